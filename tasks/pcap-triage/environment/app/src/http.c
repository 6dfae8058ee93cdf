/* HTTP requests: counts request lines and the Host header of each request. */
#include <string.h>

#include "pcapsum.h"

static const char *const METHODS[] = {"GET ", "POST ", "HEAD ", "PUT ", "DELETE ", "OPTIONS "};

void ps_http_init(struct ps_http_stats *s)
{
    s->requests = s->hosts = s->bad = 0;
    ps_names_init(&s->names);
}

static int is_request(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < sizeof(METHODS) / sizeof(METHODS[0]); i++) {
        size_t n = strlen(METHODS[i]);
        if (len >= n && memcmp(data, METHODS[i], n) == 0)
            return 1;
    }
    return 0;
}

/* Handles one complete header line (without its line end); 1 when it was the Host. */
static int header_line(struct ps_http_stats *s, const uint8_t *line, size_t n)
{
    if (n < 5 || memcmp(line, "Host:", 5) != 0)
        return 0;
    size_t start = 5, end = n;
    while (start < end && (line[start] == ' ' || line[start] == '\t'))
        start++;
    if (start == end) {
        s->bad++;
        return 1;
    }
    char value[128];
    size_t pos = 0;
    value[0] = '\0';
    for (size_t i = start; i < end; i++)
        ps_escape_byte(value, &pos, line[i], 0);
    s->hosts++;
    ps_names_add(&s->names, value);
    return 1;
}

void ps_http_payload(struct ps_http_stats *s, const uint8_t *data, size_t len)
{
    if (!is_request(data, len))
        return;
    s->requests++;
    size_t pos = 0;
    int first = 1;
    while (pos < len) {
        size_t end = pos;
        while (data[end] != '\n')
            end++;
        size_t n = end - pos;
        if (n > 0 && data[pos + n - 1] == '\r')
            n--;
        if (!first) {
            if (n == 0)
                return; /* end of the header block */
            if (header_line(s, data + pos, n))
                return;
        }
        first = 0;
        pos = end + 1;
    }
}

void ps_http_free(struct ps_http_stats *s)
{
    ps_names_free(&s->names);
}
