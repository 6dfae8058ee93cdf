/* Byte readers, checked allocation, hashing. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

uint16_t ps_be16(const uint8_t *p)
{
    return (uint16_t)(((unsigned)p[0] << 8) | (unsigned)p[1]);
}

uint32_t ps_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
           (uint32_t)p[3];
}

uint16_t ps_le16(const uint8_t *p)
{
    return (uint16_t)(((unsigned)p[1] << 8) | (unsigned)p[0]);
}

uint32_t ps_le32(const uint8_t *p)
{
    return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) |
           (uint32_t)p[0];
}

void ps_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pcapsum: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

void *ps_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        ps_die("out of memory");
    return p;
}

void *ps_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        ps_die("out of memory");
    return p;
}

void *ps_xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        ps_die("out of memory");
    return p;
}

char *ps_xstrdup(const char *text)
{
    size_t n = strlen(text) + 1;
    char *copy = ps_xmalloc(n);
    memcpy(copy, text, n);
    return copy;
}

/* FNV-1a, 64 bit. */
uint64_t ps_hash(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
