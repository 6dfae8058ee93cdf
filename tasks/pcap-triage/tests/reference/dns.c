/* DNS messages: counts queries and responses and the first question's name. */
/*
 * A DNS message starts with a 12-byte header: id (2), flags (2; QR is the top bit of
 * the first flags byte), question count (2), answer, authority and additional counts
 * (2 each). The first question's name follows at offset 12, as a sequence of labels
 * (a length byte and that many bytes) ending with a zero byte or a compression
 * pointer (two bytes, the top two bits set, 14 bits of offset into the message).
 */
#include <string.h>

#include "pcapsum.h"

void ps_dns_init(struct ps_dns_stats *s)
{
    s->queries = s->responses = s->bad = 0;
    ps_names_init(&s->names);
}

int ps_dns_name(const uint8_t *msg, size_t len, size_t off, char *out)
{
    size_t pos = off, run_start = off, wire = 1, outpos = 0;
    out[0] = '\0';
    for (;;) {
        if (pos >= len)
            return -1;
        uint8_t c = msg[pos];
        if (c == 0)
            break;
        if ((c & 0xc0) == 0xc0) {
            if (pos + 1 >= len)
                return -1;
            size_t target = ((size_t)(c & 0x3f) << 8) | msg[pos + 1];
            if (target >= run_start)
                return -1; /* pointers must go strictly backwards: no loops */
            pos = run_start = target;
            continue;
        }
        if (c & 0xc0)
            return -1; /* reserved label types */
        if (pos + 1 + c > len)
            return -1;
        wire += (size_t)c + 1;
        if (wire > 255)
            return -1;
        if (outpos > 0)
            out[outpos++] = '.';
        for (size_t i = 0; i < c; i++)
            ps_escape_byte(out, &outpos, msg[pos + 1 + i], 1);
        out[outpos] = '\0';
        pos += 1 + (size_t)c;
    }
    if (outpos == 0) {
        out[0] = '.';
        out[1] = '\0';
    }
    return 0;
}

void ps_dns_message(struct ps_dns_stats *s, const uint8_t *msg, size_t len)
{
    char name[PS_NAME_MAX];
    if (len < 12) {
        s->bad++;
        return;
    }
    if (msg[2] & 0x80)
        s->responses++;
    else
        s->queries++;
    if (ps_be16(msg + 4) == 0)
        return;
    if (ps_dns_name(msg, len, 12, name) != 0) {
        s->bad++;
        return;
    }
    ps_names_add(&s->names, name);
}

void ps_dns_free(struct ps_dns_stats *s)
{
    ps_names_free(&s->names);
}
