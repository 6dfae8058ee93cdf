/* pak - batch archiver (formats 1-3).  Legacy tool; the Python port must match it. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define EXIT_IO 1
#define EXIT_FORMAT 2
#define EXIT_DATA 3
#define EXIT_UNSAFE 4
#define EXIT_KEY 5
#define EXIT_USAGE 64
#define MAX_ENTRY_SIZE (64u * 1024u * 1024u)

typedef struct { uint8_t *p; size_t n, cap; } buf_t;

static void die(int code, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fputs("pak: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

static void warnx(const char *fmt, ...) {
    va_list ap;
    fputs("pak: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) die(EXIT_IO, "out of memory");
    return p;
}

static void bput(buf_t *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) die(EXIT_IO, "out of memory");
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void bu8(buf_t *b, unsigned v) { uint8_t c = (uint8_t)v; bput(b, &c, 1); }
static void bu16le(buf_t *b, unsigned v) { bu8(b, v); bu8(b, v >> 8); }
static void bu32le(buf_t *b, uint32_t v) { bu16le(b, v & 0xffff); bu16le(b, v >> 16); }
static void bu16be(buf_t *b, unsigned v) { bu8(b, v >> 8); bu8(b, v); }
static void bu32be(buf_t *b, uint32_t v) { bu16be(b, v >> 16); bu16be(b, v & 0xffff); }
static void bvar(buf_t *b, uint32_t v) {
    while (v >= 0x80) { bu8(b, (v & 0x7f) | 0x80); v >>= 7; }
    bu8(b, v);
}

/* ---- checksums ---- */
static uint32_t crc32_tab[256];
static uint16_t crc16_tab[256];
static void init_tables(void) {
    for (unsigned i = 0; i < 256; i++) {
        uint32_t c = (uint32_t)i << 24;
        for (int k = 0; k < 8; k++) c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : (c << 1);
        crc32_tab[i] = c;
        uint16_t d = (uint16_t)(i << 8);
        for (int k = 0; k < 8; k++) d = (d & 0x8000) ? (uint16_t)((d << 1) ^ 0x1021) : (uint16_t)(d << 1);
        crc16_tab[i] = d;
    }
}
static uint32_t crc32(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = (c << 8) ^ crc32_tab[(c >> 24) ^ p[i]];
    return c;
}
static uint16_t crc16(const uint8_t *p, size_t n) {
    uint16_t c = 0xFFFF;
    for (size_t i = 0; i < n; i++) c = (uint16_t)((c << 8) ^ crc16_tab[(c >> 8) ^ p[i]]);
    return c;
}
static unsigned sum16(const uint8_t *p, size_t n) {
    unsigned s = 0;
    for (size_t i = 0; i < n; i++) s += p[i];
    return s & 0xffff;
}
static uint32_t fnv1a(const uint8_t *p, size_t n) {
    uint32_t h = 0x811C9DC5u;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x01000193u; }
    return h;
}

/* ---- keystream ---- */
static unsigned pw_check(const char *key) {
    size_t n = strlen(key);
    uint8_t *t = xmalloc(n + 4);
    memcpy(t, "pak:", 4);
    memcpy(t + 4, key, n);
    uint32_t h = fnv1a(t, n + 4);
    free(t);
    return (h >> 8) & 0xffff;
}
static uint32_t ks_init(const char *key, unsigned index) {
    return fnv1a((const uint8_t *)key, strlen(key)) ^ (uint32_t)((index + 1u) * 0x9E3779B9u);
}
static void ks_xor(uint32_t *state, uint8_t *p, size_t n) {
    uint32_t s = *state;
    for (size_t i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; p[i] ^= (uint8_t)(s >> 24); }
    *state = s;
}

/* ---- rle ---- */
static void rle_encode(const uint8_t *d, size_t n, buf_t *out) {
    size_t i = 0;
    while (i < n) {
        size_t run = 1;
        while (i + run < n && run < 128 && d[i + run] == d[i]) run++;
        if (run >= 3) { bu8(out, 257 - run); bu8(out, d[i]); i += run; continue; }
        size_t start = i, count = 0;
        while (i < n && count < 128) {
            if (i + 2 < n && d[i] == d[i + 1] && d[i] == d[i + 2]) break;
            i++; count++;
        }
        bu8(out, count - 1);
        bput(out, d + start, count);
    }
}
static int rle_decode(const uint8_t *d, size_t n, uint8_t *out, size_t size) {
    size_t i = 0, o = 0;
    while (i < n) {
        unsigned c = d[i++];
        if (c < 128) {
            size_t cnt = c + 1;
            if (i + cnt > n || o + cnt > size) return -1;
            memcpy(out + o, d + i, cnt); o += cnt; i += cnt;
        } else if (c > 128) {
            size_t cnt = 257 - c;
            if (i >= n || o + cnt > size) return -1;
            memset(out + o, d[i], cnt); o += cnt; i++;
        }
    }
    return o == size ? 0 : -1;
}

/* ---- lz ---- */
#define LZ_WINDOW 4096
#define LZ_MIN 3
#define LZ_MAX 18
#define LZ_HASH 4096
#define LZ_CHAIN 32
static unsigned lz_hash(const uint8_t *d, size_t i) {
    return (((unsigned)d[i] << 8) ^ ((unsigned)d[i + 1] << 4) ^ d[i + 2]) & (LZ_HASH - 1);
}
static void lz_encode(const uint8_t *d, size_t n, buf_t *out) {
    long head[LZ_HASH];
    long *prev = xmalloc((n ? n : 1) * sizeof(long));
    for (int k = 0; k < LZ_HASH; k++) head[k] = -1;
    size_t flag_at = 0;
    int bit = 8;
    size_t i = 0;
    while (i < n) {
        if (bit == 8) { flag_at = out->n; bu8(out, 0); bit = 0; }
        size_t best_len = 0, best_off = 0;
        if (i + 2 < n) {
            size_t limit = n - i < LZ_MAX ? n - i : LZ_MAX;
            long cand = head[lz_hash(d, i)];
            int chain = 0;
            while (cand >= 0 && chain < LZ_CHAIN) {
                size_t off = i - (size_t)cand;
                if (off > LZ_WINDOW) break;
                size_t len = 0;
                while (len < limit && d[cand + len] == d[i + len]) len++;
                if (len > best_len) {
                    best_len = len; best_off = off;
                    if (len == limit) break;
                }
                cand = prev[cand];
                chain++;
            }
        }
        if (best_len >= LZ_MIN) {
            bu8(out, (best_off - 1) & 0xff);
            bu8(out, (((best_off - 1) >> 8) << 4) | (best_len - LZ_MIN));
            for (size_t p = i; p < i + best_len; p++)
                if (p + 2 < n) { unsigned h = lz_hash(d, p); prev[p] = head[h]; head[h] = (long)p; }
            i += best_len;
        } else {
            out->p[flag_at] |= (uint8_t)(1u << bit);
            bu8(out, d[i]);
            if (i + 2 < n) { unsigned h = lz_hash(d, i); prev[i] = head[h]; head[h] = (long)i; }
            i++;
        }
        bit++;
    }
    free(prev);
}
static int lz_decode(const uint8_t *d, size_t n, uint8_t *out, size_t size) {
    size_t i = 0, o = 0;
    while (o < size) {
        if (i >= n) return -1;
        unsigned flags = d[i++];
        for (int bit = 0; bit < 8; bit++) {
            if (o >= size) break;
            if ((flags >> bit) & 1) {
                if (i >= n) return -1;
                out[o++] = d[i++];
                continue;
            }
            if (i + 1 >= n) return -1;
            unsigned b0 = d[i], b1 = d[i + 1];
            i += 2;
            size_t off = (b0 | ((b1 >> 4) << 8)) + 1, len = (b1 & 15) + LZ_MIN;
            if (off > o || o + len > size) return -1;
            for (size_t k = 0; k < len; k++, o++) out[o] = out[o - off];
        }
    }
    return 0;
}

static const char *method_names[] = {"store", "rle", "lz"};

static void compress(int method, const uint8_t *d, size_t n, buf_t *out) {
    out->n = 0;
    if (method == 1) rle_encode(d, n, out);
    else if (method == 2) lz_encode(d, n, out);
    else bput(out, d, n);
}
static int decompress(int method, const uint8_t *p, size_t n, uint8_t *out, size_t size) {
    if (method == 1) return rle_decode(p, n, out, size);
    if (method == 2) return lz_decode(p, n, out, size);
    if (n != size) return -1;
    if (n) memcpy(out, p, n);
    return 0;
}

/* ---- archive model ---- */
typedef struct { int method; const uint8_t *p; size_t n; } block_t;
typedef struct {
    const uint8_t *name; size_t name_len;
    int has_meta; uint32_t mtime; unsigned mode;
    int method; uint32_t size; uint32_t check;
    const uint8_t *payload; size_t payload_len;
    block_t *blocks; size_t nblocks; int blocked;
} entry_t;
typedef struct {
    int version; unsigned flags; unsigned block_exp; unsigned pwcheck;
    entry_t *entries; size_t count;
    int trailer_ok; /* -1: none */
} archive_t;

static char *shown(const uint8_t *name, size_t n) {
    char *s = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) s[i] = (name[i] >= 0x20 && name[i] < 0x7f) ? (char)name[i] : '?';
    s[n] = 0;
    return s;
}

typedef struct { const uint8_t *d; size_t n, pos; } rd_t;
static void need(rd_t *r, size_t k) {
    if (r->pos + k > r->n) die(EXIT_FORMAT, "truncated archive at offset %zu", r->pos);
}
static const uint8_t *take(rd_t *r, size_t k) { need(r, k); const uint8_t *p = r->d + r->pos; r->pos += k; return p; }
static unsigned ru8(rd_t *r) { return *take(r, 1); }
static unsigned ru16le(rd_t *r) { const uint8_t *p = take(r, 2); return p[0] | (p[1] << 8); }
static uint32_t ru32le(rd_t *r) { const uint8_t *p = take(r, 4); return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24); }
static unsigned ru16be(rd_t *r) { const uint8_t *p = take(r, 2); return (p[0] << 8) | p[1]; }
static uint32_t ru32be(rd_t *r) { const uint8_t *p = take(r, 4); return ((uint32_t)p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }
static uint32_t rvar(rd_t *r) {
    size_t start = r->pos;
    uint64_t v = 0;
    int shift = 0;
    for (int k = 0; k < 5; k++) {
        unsigned b = ru8(r);
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (v > 0xFFFFFFFFu) break;
            return (uint32_t)v;
        }
    }
    die(EXIT_FORMAT, "bad varint at offset %zu", start);
    return 0;
}

static int check_method(unsigned m, entry_t *e) {
    if (m > 2) die(EXIT_FORMAT, "unknown method %u in %s", m, shown(e->name, e->name_len));
    return (int)m;
}
static uint32_t check_size(uint32_t s, entry_t *e) {
    if (s > MAX_ENTRY_SIZE) die(EXIT_FORMAT, "entry too large: %s", shown(e->name, e->name_len));
    return s;
}
static unsigned read_flags(rd_t *r) {
    unsigned f = ru8(r);
    if (f & ~1u) die(EXIT_FORMAT, "unsupported flags 0x%02x", f);
    return f;
}

static void read_trailer(rd_t *r, archive_t *a, const char *magic, int be) {
    size_t end = r->pos;
    if (r->n - r->pos < 8 || memcmp(r->d + end, magic, 4) != 0) die(EXIT_FORMAT, "missing trailer");
    r->pos += 4;
    uint32_t stored = be ? ru32be(r) : ru32le(r);
    a->trailer_ok = crc32(r->d, end) == stored;
}

static void parse(const uint8_t *d, size_t n, archive_t *a) {
    memset(a, 0, sizeof *a);
    a->trailer_ok = -1;
    if (n < 4 || memcmp(d, "PAK", 3) != 0) die(EXIT_FORMAT, "not a pak archive");
    a->version = d[3];
    if (a->version < 1 || a->version > 3) die(EXIT_FORMAT, "unsupported format %d", a->version);
    rd_t r = {d, n, 4};
    uint32_t count;
    if (a->version == 1) {
        count = ru16le(&r);
    } else if (a->version == 2) {
        a->flags = read_flags(&r);
        count = ru32le(&r);
        if (a->flags & 1) a->pwcheck = ru16le(&r);
    } else {
        a->flags = read_flags(&r);
        a->block_exp = ru8(&r);
        if (a->block_exp < 9 || a->block_exp > 16) die(EXIT_FORMAT, "bad block size exponent %u", a->block_exp);
        count = rvar(&r);
        if (a->flags & 1) a->pwcheck = ru16be(&r);
    }
    size_t cap = 16;
    a->entries = xmalloc(cap * sizeof(entry_t));
    for (uint32_t k = 0; k < count; k++) {
        if (a->count == cap) { cap *= 2; a->entries = realloc(a->entries, cap * sizeof(entry_t)); if (!a->entries) die(EXIT_IO, "out of memory"); }
        entry_t *e = &a->entries[a->count];
        memset(e, 0, sizeof *e);
        if (a->version == 1) {
            e->name_len = ru8(&r); e->name = take(&r, e->name_len);
            e->method = check_method(ru8(&r), e);
            e->size = check_size(ru32le(&r), e);
            uint32_t csize = ru32le(&r);
            e->check = ru16le(&r);
            e->payload_len = csize; e->payload = take(&r, csize);
        } else if (a->version == 2) {
            e->name_len = ru16le(&r); e->name = take(&r, e->name_len);
            e->has_meta = 1; e->mtime = ru32le(&r); e->mode = ru16le(&r);
            e->method = check_method(ru8(&r), e);
            e->size = check_size(ru32le(&r), e);
            uint32_t csize = ru32le(&r);
            e->check = ru32le(&r);
            e->payload_len = csize; e->payload = take(&r, csize);
        } else {
            size_t start = r.pos;
            e->name_len = rvar(&r); e->name = take(&r, e->name_len);
            e->has_meta = 1; e->mtime = rvar(&r); e->mode = ru16be(&r);
            e->size = rvar(&r);
            e->check = ru32be(&r);
            unsigned stored = ru16be(&r);
            if (crc16(d + start, r.pos - 2 - start) != stored) die(EXIT_FORMAT, "damaged header at offset %zu", start);
            check_size(e->size, e);
            e->blocked = 1;
            uint64_t bs = 1u << a->block_exp;
            e->nblocks = (size_t)(((uint64_t)e->size + bs - 1) >> a->block_exp);
            e->blocks = xmalloc((e->nblocks ? e->nblocks : 1) * sizeof(block_t));
            for (size_t b = 0; b < e->nblocks; b++) {
                e->blocks[b].method = check_method(ru8(&r), e);
                e->blocks[b].n = rvar(&r);
                e->blocks[b].p = take(&r, e->blocks[b].n);
            }
        }
        a->count++;
    }
    if (a->version == 2) read_trailer(&r, a, "END!", 0);
    else if (a->version == 3) read_trailer(&r, a, "END3", 1);
    if (r.pos < n) warnx("warning: %zu trailing bytes ignored", n - r.pos);
}

static uint8_t *load(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) die(EXIT_IO, "cannot open %s", path);
    buf_t b = {0};
    uint8_t tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) bput(&b, tmp, k);
    if (ferror(f)) die(EXIT_IO, "cannot open %s", path);
    fclose(f);
    *n = b.n;
    return b.p ? b.p : xmalloc(1);
}

static uint64_t packed_of(entry_t *e) {
    if (!e->blocked) return e->payload_len;
    uint64_t s = 0;
    for (size_t b = 0; b < e->nblocks; b++) s += e->blocks[b].n;
    return s;
}

static void ratio(char *out, uint64_t size, uint64_t packed) {
    if (size == 0) { strcpy(out, "-"); return; }
    long long pm = ((long long)size - (long long)packed) * 1000 / (long long)size;
    sprintf(out, "%lld.%lld%%", pm / 10, llabs(pm % 10));
}

#define ROW "%10s %10s %6s %-6s %-8s %-16s %s\n"

static int cmd_list(const char *path) {
    size_t n;
    uint8_t *d = load(path, &n);
    archive_t a;
    parse(d, n, &a);
    printf("Archive: %s\n", path);
    printf("Format %d, %zu entries%s\n", a.version, a.count, (a.flags & 1) ? ", encrypted" : "");
    printf(ROW, "Size", "Packed", "Ratio", "Method", "Check", "Modified", "Name");
    uint64_t ts = 0, tp = 0;
    for (size_t k = 0; k < a.count; k++) {
        entry_t *e = &a.entries[k];
        char s1[32], s2[32], r[32], m[16], c[16], t[32];
        uint64_t packed = packed_of(e);
        ts += e->size; tp += packed;
        sprintf(s1, "%u", e->size);
        sprintf(s2, "%llu", (unsigned long long)packed);
        ratio(r, e->size, packed);
        if (!e->blocked) strcpy(m, method_names[e->method]);
        else if (e->nblocks == 0) strcpy(m, "-");
        else {
            strcpy(m, method_names[e->blocks[0].method]);
            for (size_t b = 1; b < e->nblocks; b++)
                if (e->blocks[b].method != e->blocks[0].method) { strcat(m, "*"); break; }
        }
        sprintf(c, a.version == 1 ? "%04x" : "%08x", e->check);
        if (!e->has_meta) strcpy(t, "-");
        else { time_t tt = (time_t)e->mtime; strftime(t, sizeof t, "%Y-%m-%d %H:%M", gmtime(&tt)); }
        printf(ROW, s1, s2, r, m, c, t, shown(e->name, e->name_len));
    }
    char s1[32], s2[32], r[32], f[32];
    sprintf(s1, "%llu", (unsigned long long)ts);
    sprintf(s2, "%llu", (unsigned long long)tp);
    ratio(r, ts, tp);
    sprintf(f, "%zu file%s", a.count, a.count == 1 ? "" : "s");
    printf(ROW, s1, s2, r, "", "", "", f);
    return 0;
}

static void unlock(archive_t *a, const char *key) {
    if (!(a->flags & 1)) return;
    if (!key) die(EXIT_KEY, "archive is encrypted (use -k)");
    if (pw_check(key) != a->pwcheck) die(EXIT_KEY, "wrong password");
}

enum { ST_OK, ST_CRC, ST_BAD };
static const char *status_names[] = {"OK", "CRC MISMATCH", "BAD DATA"};

static int decode_entry(archive_t *a, size_t index, const char *key, uint8_t **data) {
    entry_t *e = &a->entries[index];
    uint32_t ks = 0;
    int enc = a->flags & 1;
    if (enc) ks = ks_init(key, (unsigned)index);
    uint8_t *out = xmalloc(e->size);
    *data = NULL;
    if (!e->blocked) {
        uint8_t *p = xmalloc(e->payload_len);
        memcpy(p, e->payload, e->payload_len);
        if (enc) ks_xor(&ks, p, e->payload_len);
        int rc = decompress(e->method, p, e->payload_len, out, e->size);
        free(p);
        if (rc) { free(out); return ST_BAD; }
    } else {
        size_t bs = (size_t)1 << a->block_exp, left = e->size, o = 0;
        for (size_t b = 0; b < e->nblocks; b++) {
            size_t want = left < bs ? left : bs;
            uint8_t *p = xmalloc(e->blocks[b].n);
            memcpy(p, e->blocks[b].p, e->blocks[b].n);
            if (enc) ks_xor(&ks, p, e->blocks[b].n);
            int rc = decompress(e->blocks[b].method, p, e->blocks[b].n, out + o, want);
            free(p);
            if (rc) { free(out); return ST_BAD; }
            o += want; left -= want;
        }
    }
    uint32_t check = a->version == 1 ? sum16(out, e->size) : crc32(out, e->size);
    *data = out;
    return check == e->check ? ST_OK : ST_CRC;
}

static int cmd_test(const char *path, const char *key) {
    size_t n;
    uint8_t *d = load(path, &n);
    archive_t a;
    parse(d, n, &a);
    unlock(&a, key);
    unsigned good = 0, bad = 0;
    for (size_t k = 0; k < a.count; k++) {
        uint8_t *data;
        int st = decode_entry(&a, k, key, &data);
        free(data);
        printf("%s: %s\n", shown(a.entries[k].name, a.entries[k].name_len), status_names[st]);
        if (st == ST_OK) good++; else bad++;
    }
    int failed = bad > 0;
    if (a.trailer_ok >= 0) {
        printf("archive checksum: %s\n", a.trailer_ok ? "OK" : "BAD");
        if (!a.trailer_ok) failed = 1;
    }
    printf("%u ok, %u bad\n", good, bad);
    return failed ? EXIT_DATA : 0;
}

static int mkdirs(char *path) {
    for (char *s = path + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            if (mkdir(path, 0755) != 0 && errno != EEXIST) { *s = '/'; return -1; }
            *s = '/';
        }
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
    return 0;
}

static int is_unsafe(const uint8_t *name, size_t n) {
    if (n == 0 || name[0] == '/') return 1;
    for (size_t i = 0; i < n; i++) if (name[i] == '\\' || name[i] == 0) return 1;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || name[i] == '/') {
            if (i - start == 2 && name[start] == '.' && name[start + 1] == '.') return 1;
            start = i + 1;
        }
    }
    return 0;
}

static int cmd_extract(const char *path, const char *dir, const char *key) {
    size_t n;
    uint8_t *d = load(path, &n);
    archive_t a;
    parse(d, n, &a);
    unlock(&a, key);
    int rc = 0;
    unsigned written = 0;
    char *top = strdup(dir);
    mkdirs(top);
    free(top);
    for (size_t k = 0; k < a.count; k++) {
        entry_t *e = &a.entries[k];
        char *nm = shown(e->name, e->name_len);
        if (is_unsafe(e->name, e->name_len)) {
            warnx("unsafe name skipped: %s", nm);
            if (rc < EXIT_UNSAFE) rc = EXIT_UNSAFE;
            continue;
        }
        uint8_t *data;
        int st = decode_entry(&a, k, key, &data);
        if (st == ST_BAD) {
            warnx("corrupt data in %s", nm);
            if (rc < EXIT_DATA) rc = EXIT_DATA;
            continue;
        }
        if (st == ST_CRC) {
            warnx("crc mismatch in %s", nm);
            if (rc < EXIT_DATA) rc = EXIT_DATA;
        }
        size_t dl = strlen(dir);
        char *dest = xmalloc(dl + e->name_len + 2);
        memcpy(dest, dir, dl);
        dest[dl] = '/';
        memcpy(dest + dl + 1, e->name, e->name_len);
        dest[dl + 1 + e->name_len] = 0;
        int ok = 1;
        char *slash = strrchr(dest + dl + 1, '/');
        if (slash) { *slash = 0; if (mkdirs(dest) != 0) ok = 0; *slash = '/'; }
        FILE *f = ok ? fopen(dest, "wb") : NULL;
        if (!f || (e->size && fwrite(data, 1, e->size, f) != e->size)) ok = 0;
        if (f && fclose(f) != 0) ok = 0;
        if (ok && chmod(dest, e->has_meta ? (e->mode & 0777) : 0644) != 0) ok = 0;
        free(dest);
        free(data);
        if (!ok) {
            warnx("cannot write %s", nm);
            if (rc < EXIT_IO) rc = EXIT_IO;
            continue;
        }
        written++;
    }
    if (a.trailer_ok == 0) {
        warnx("archive checksum mismatch");
        if (rc < EXIT_DATA) rc = EXIT_DATA;
    }
    printf("extracted %u of %zu entries\n", written, a.count);
    return rc;
}

/* ---- create ---- */
typedef struct { uint8_t *name; size_t name_len; uint8_t *data; size_t size; uint32_t mtime; unsigned mode; } member_t;

static int pack(int method, const uint8_t *d, size_t n, buf_t *out, int strict) {
    compress(method, d, n, out);
    if (method && (strict ? out->n >= n : out->n > n)) { out->n = 0; bput(out, d, n); return 0; }
    return method;
}

static int cmd_create(const char *fmt, const char *mname, const char *bsz, const char *key,
                      const char *path, int nfiles, char **files) {
    if (strcmp(fmt, "1") && strcmp(fmt, "2") && strcmp(fmt, "3")) die(EXIT_FORMAT, "unsupported format '%s'", fmt);
    int method = -1;
    for (int k = 0; k < 3; k++) if (!strcmp(mname, method_names[k])) method = k;
    if (method < 0) die(EXIT_FORMAT, "unknown method '%s'", mname);
    unsigned exp = 12;
    if (bsz) {
        size_t L = strlen(bsz);
        long v = -1;
        if (L >= 1 && L <= 6 && strspn(bsz, "0123456789") == L) v = strtol(bsz, NULL, 10);
        int found = 0;
        for (unsigned e = 9; e <= 16; e++) if (v == (1L << e)) { exp = e; found = 1; }
        if (!found) die(EXIT_FORMAT, "bad block size '%s'", bsz);
    }
    int version = fmt[0] - '0';
    if (version == 1 && method == 2) die(EXIT_FORMAT, "method lz needs format 2 or later");
    if (version == 1 && key) die(EXIT_FORMAT, "format 1 cannot encrypt");
    member_t *m = xmalloc(nfiles * sizeof(member_t));
    for (int k = 0; k < nfiles; k++) {
        const char *arg = files[k];
        const char *nm = arg;
        while (nm[0] == '.' && nm[1] == '/') nm += 2;
        while (*nm == '/') nm++;
        if (!*nm) die(EXIT_FORMAT, "bad name '%s'", arg);
        size_t dn;
        FILE *f = fopen(arg, "rb");
        struct stat st;
        if (!f) die(EXIT_IO, "cannot read %s", arg);
        buf_t b = {0};
        uint8_t tmp[65536];
        size_t got;
        while ((got = fread(tmp, 1, sizeof tmp, f)) > 0) bput(&b, tmp, got);
        if (ferror(f) || stat(arg, &st) != 0) die(EXIT_IO, "cannot read %s", arg);
        fclose(f);
        dn = b.n;
        m[k].name = (uint8_t *)nm; m[k].name_len = strlen(nm);
        m[k].data = b.p ? b.p : xmalloc(1); m[k].size = dn;
        m[k].mtime = (uint32_t)st.st_mtime; m[k].mode = st.st_mode & 0777;
        if (version == 1 && m[k].name_len > 255) die(EXIT_FORMAT, "name too long for format 1: %s", shown(m[k].name, m[k].name_len));
        for (int j = 0; j < k; j++)
            if (m[j].name_len == m[k].name_len && !memcmp(m[j].name, m[k].name, m[k].name_len))
                die(EXIT_FORMAT, "duplicate name %s", shown(m[k].name, m[k].name_len));
    }
    buf_t out = {0}, tmp = {0};
    size_t *packed = xmalloc(nfiles * sizeof(size_t));
    bput(&out, "PAK", 3);
    bu8(&out, version);
    if (version == 1) bu16le(&out, nfiles);
    else if (version == 2) { bu8(&out, key ? 1 : 0); bu32le(&out, nfiles); if (key) bu16le(&out, pw_check(key)); }
    else { bu8(&out, key ? 1 : 0); bu8(&out, exp); bvar(&out, nfiles); if (key) bu16be(&out, pw_check(key)); }
    for (int k = 0; k < nfiles; k++) {
        member_t *e = &m[k];
        uint32_t ks = key ? ks_init(key, k) : 0;
        if (version == 3) {
            buf_t h = {0};
            bvar(&h, e->name_len); bput(&h, e->name, e->name_len);
            bvar(&h, e->mtime); bu16be(&h, e->mode); bvar(&h, e->size);
            bu32be(&h, crc32(e->data, e->size));
            bput(&out, h.p, h.n);
            bu16be(&out, crc16(h.p, h.n));
            free(h.p);
            size_t bs = (size_t)1 << exp;
            packed[k] = 0;
            for (size_t s = 0; s < e->size; s += bs) {
                size_t len = e->size - s < bs ? e->size - s : bs;
                int used = pack(method, e->data + s, len, &tmp, 1);
                if (key) ks_xor(&ks, tmp.p, tmp.n);
                bu8(&out, used); bvar(&out, tmp.n); bput(&out, tmp.p, tmp.n);
                packed[k] += tmp.n;
            }
            continue;
        }
        int used = pack(method, e->data, e->size, &tmp, 0);
        if (key) ks_xor(&ks, tmp.p, tmp.n);
        if (version == 1) {
            bu8(&out, e->name_len); bput(&out, e->name, e->name_len);
            bu8(&out, used); bu32le(&out, e->size); bu32le(&out, tmp.n); bu16le(&out, sum16(e->data, e->size));
        } else {
            bu16le(&out, e->name_len); bput(&out, e->name, e->name_len);
            bu32le(&out, e->mtime); bu16le(&out, e->mode); bu8(&out, used);
            bu32le(&out, e->size); bu32le(&out, tmp.n); bu32le(&out, crc32(e->data, e->size));
        }
        bput(&out, tmp.p, tmp.n);
        packed[k] = tmp.n;
    }
    if (version == 2) { uint32_t c = crc32(out.p, out.n); bput(&out, "END!", 4); bu32le(&out, c); }
    else if (version == 3) { uint32_t c = crc32(out.p, out.n); bput(&out, "END3", 4); bu32be(&out, c); }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(out.p, 1, out.n, f) != out.n || fclose(f) != 0) die(EXIT_IO, "cannot write %s", path);
    unsigned long long ts = 0, tp = 0;
    for (int k = 0; k < nfiles; k++) {
        printf("a %s (%zu -> %zu)\n", shown(m[k].name, m[k].name_len), m[k].size, packed[k]);
        ts += m[k].size; tp += packed[k];
    }
    printf("%d files, %llu -> %llu bytes\n", nfiles, ts, tp);
    return 0;
}

static int usage(void) {
    fputs("usage: pak c [-f 1|2|3] [-m store|rle|lz] [-k KEY] [-b SIZE] ARCHIVE FILE...\n"
          "       pak l ARCHIVE\n"
          "       pak x [-k KEY] ARCHIVE DIR\n"
          "       pak t [-k KEY] ARCHIVE\n", stderr);
    return EXIT_USAGE;
}

int main(int argc, char **argv) {
    init_tables();
    if (argc < 2) return usage();
    const char *cmd = argv[1];
    const char *allowed;
    if (!strcmp(cmd, "c")) allowed = "fmkb";
    else if (!strcmp(cmd, "l")) allowed = "";
    else if (!strcmp(cmd, "x") || !strcmp(cmd, "t")) allowed = "k";
    else return usage();
    const char *opt_f = "3", *opt_m = "lz", *opt_b = NULL, *opt_k = NULL;
    int i = 2;
    while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "-") != 0) {
        if (!strcmp(argv[i], "--")) { i++; break; }
        const char *o = argv[i];
        char c = o[1];
        if (strlen(o) != 2 || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || !strchr(allowed, c)) {
            fprintf(stderr, "pak: unknown option %s\n", o);
            return EXIT_USAGE;
        }
        if (i + 1 >= argc) { fprintf(stderr, "pak: option %s needs a value\n", o); return EXIT_USAGE; }
        const char *v = argv[i + 1];
        if (c == 'f') opt_f = v; else if (c == 'm') opt_m = v; else if (c == 'b') opt_b = v; else opt_k = v;
        i += 2;
    }
    int nops = argc - i;
    char **ops = argv + i;
    if (cmd[0] == 'c' ? nops < 2 : (cmd[0] == 'x' ? nops != 2 : nops != 1)) return usage();
    if (opt_k && !*opt_k) { fputs("pak: empty key\n", stderr); return EXIT_USAGE; }
    int rc;
    if (cmd[0] == 'c') rc = cmd_create(opt_f, opt_m, opt_b, opt_k, ops[0], nops - 1, ops + 1);
    else if (cmd[0] == 'l') rc = cmd_list(ops[0]);
    else if (cmd[0] == 'x') rc = cmd_extract(ops[0], ops[1], opt_k);
    else rc = cmd_test(ops[0], opt_k);
    fflush(stdout);
    return rc;
}
