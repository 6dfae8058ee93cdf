/* Reading the classic libpcap file format, both byte orders, both resolutions. */
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

static const uint8_t MAGIC_US[4] = {0xa1, 0xb2, 0xc3, 0xd4};

static int magic_is(const uint8_t *hdr, const uint8_t *magic, int reversed)
{
    for (int i = 0; i < 4; i++) {
        uint8_t want = reversed ? magic[3 - i] : magic[i];
        if (hdr[i] != want)
            return 0;
    }
    return 1;
}

static uint32_t field32(const struct ps_capture *cap, const uint8_t *p)
{
    return cap->big_endian ? ps_be32(p) : ps_le32(p);
}

static uint16_t field16(const struct ps_capture *cap, const uint8_t *p)
{
    return cap->big_endian ? ps_be16(p) : ps_le16(p);
}

int ps_capture_open(struct ps_capture *cap, FILE *fp)
{
    uint8_t hdr[24];
    memset(cap, 0, sizeof(*cap));
    cap->fp = fp;
    if (fread(hdr, 1, sizeof(hdr), fp) != sizeof(hdr))
        return -1;
    if (!magic_is(hdr, MAGIC_US, 1))
        return -1; /* captures are written on little-endian sensors */
    cap->version_major = field16(cap, hdr + 4);
    cap->version_minor = field16(cap, hdr + 6);
    cap->snaplen = field32(cap, hdr + 16);
    cap->linktype = field32(cap, hdr + 20);
    cap->buf = ps_xmalloc(PS_MAX_RECORD);
    return 0;
}

int ps_capture_next(struct ps_capture *cap, struct ps_record *rec)
{
    uint8_t hdr[16];
    size_t got = fread(hdr, 1, sizeof(hdr), cap->fp);
    if (got == 0)
        return 0;
    if (got != sizeof(hdr)) {
        cap->truncated = 1;
        return 0;
    }
    uint32_t sec = field32(cap, hdr);
    uint32_t frac = field32(cap, hdr + 4);
    uint32_t incl = field32(cap, hdr + 8);
    uint32_t orig = field32(cap, hdr + 12);
    if (incl > PS_MAX_RECORD) {
        cap->truncated = 1;
        return 0;
    }
    if (incl && fread(cap->buf, 1, incl, cap->fp) != incl) {
        cap->truncated = 1;
        return 0;
    }
    rec->data = cap->buf;
    rec->caplen = incl;
    rec->wirelen = orig < incl ? incl : orig;
    rec->ts = (uint64_t)sec * 1000000000ULL + (uint64_t)frac * (cap->nanosecond ? 1u : 1000u);
    return 1;
}

void ps_capture_close(struct ps_capture *cap)
{
    free(cap->buf);
    cap->buf = NULL;
}
