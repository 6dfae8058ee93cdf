/* DNS messages: counts queries and responses and the first question's name. */
#include <string.h>

#include "pcapsum.h"

void ps_dns_init(struct ps_dns_stats *s)
{
    s->queries = s->responses = s->bad = 0;
    ps_names_init(&s->names);
}

/* Appends the labels starting at off to out, following compression pointers. */
static int read_labels(const uint8_t *msg, size_t len, size_t off, char *out, size_t *outpos)
{
    size_t start = off;
    for (;;) {
        uint8_t c = msg[off];
        if (c == 0)
            return 0;
        if ((c & 0xc0) == 0xc0) {
            size_t target = ((size_t)(c & 0x3f) << 8) | msg[off + 1];
            if (target >= start)
                return -1; /* a pointer into the same run would loop */
            return read_labels(msg, len, target, out, outpos);
        }
        if (c & 0xc0)
            return -1;
        if (*outpos > 0)
            out[(*outpos)++] = '.';
        for (size_t i = 0; i < c; i++) {
            uint8_t b = msg[off + 1 + i];
            out[(*outpos)++] = (char)(b >= 'A' && b <= 'Z' ? b + 32 : b);
        }
        out[*outpos] = '\0';
        off += 1 + (size_t)c;
    }
}

int ps_dns_name(const uint8_t *msg, size_t len, size_t off, char *out)
{
    size_t outpos = 0;
    out[0] = '\0';
    if (read_labels(msg, len, off, out, &outpos) != 0)
        return -1;
    if (outpos == 0) {
        out[0] = '.';
        out[1] = '\0';
    }
    return 0;
}

void ps_dns_message(struct ps_dns_stats *s, const uint8_t *msg, size_t len)
{
    char name[256];
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
