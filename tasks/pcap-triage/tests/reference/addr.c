/* Text forms of addresses: dotted quads and RFC 5952 IPv6. */
#include <stdio.h>

#include "pcapsum.h"

static void format_v6(const uint8_t *b, char *out, size_t size)
{
    unsigned groups[8];
    for (int i = 0; i < 8; i++)
        groups[i] = ((unsigned)b[2 * i] << 8) | b[2 * i + 1];
    /* the longest run of two or more zero groups (the first one on a tie) becomes "::" */
    int best = -1, best_len = 0;
    for (int i = 0; i < 8;) {
        if (groups[i] != 0) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && groups[j] == 0)
            j++;
        if (j - i > best_len && j - i >= 2) {
            best = i;
            best_len = j - i;
        }
        i = j;
    }
    size_t pos = 0;
    out[0] = '\0';
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            pos += (size_t)snprintf(out + pos, size - pos, "::");
            i += best_len - 1;
            continue;
        }
        if (pos > 0 && out[pos - 1] != ':')
            pos += (size_t)snprintf(out + pos, size - pos, ":");
        pos += (size_t)snprintf(out + pos, size - pos, "%x", groups[i]);
    }
}

void ps_addr_format(const struct ps_addr *addr, char *out, size_t size)
{
    const uint8_t *b = addr->bytes;
    if (addr->family == 4)
        snprintf(out, size, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
    else
        format_v6(b, out, size);
}
