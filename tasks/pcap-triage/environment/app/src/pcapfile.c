/* Reading the classic libpcap file format. */
/*
 * File layout (all fields in the byte order given by the magic number):
 *
 *   file header, 24 bytes: magic, version major (2), version minor (2), thiszone (4),
 *                          sigfigs (4), snaplen (4), linktype (4)
 *   per record, 16 bytes:  ts_sec (4), ts_frac (4), incl_len (4), orig_len (4),
 *                          then incl_len bytes of packet data
 */
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

/* The magic number as written by a little-endian machine. */
static const uint8_t MAGIC_LE[4] = {0xd4, 0xc3, 0xb2, 0xa1};

int ps_capture_open(struct ps_capture *cap, FILE *fp)
{
    uint8_t hdr[24];
    memset(cap, 0, sizeof(*cap));
    cap->fp = fp;
    if (fread(hdr, 1, sizeof(hdr), fp) != sizeof(hdr))
        return -1;
    if (memcmp(hdr, MAGIC_LE, 4) != 0)
        return -1;
    cap->version_major = ps_le16(hdr + 4);
    cap->version_minor = ps_le16(hdr + 6);
    cap->snaplen = ps_le32(hdr + 16);
    cap->linktype = ps_le32(hdr + 20);
    return 0;
}

int ps_capture_next(struct ps_capture *cap, struct ps_record *rec)
{
    uint8_t hdr[16];
    if (fread(hdr, 1, sizeof(hdr), cap->fp) != sizeof(hdr))
        return 0;
    uint32_t sec = ps_le32(hdr);
    uint32_t usec = ps_le32(hdr + 4);
    uint32_t incl = ps_le32(hdr + 8);
    uint32_t orig = ps_le32(hdr + 12);
    free(cap->buf);
    cap->buf = malloc(incl);
    if (fread(cap->buf, 1, incl, cap->fp) != incl)
        return 0;
    rec->data = cap->buf;
    rec->caplen = incl;
    rec->wirelen = orig;
    rec->ts = (uint64_t)sec * 1000000000ULL + (uint64_t)usec * 1000u;
    return 1;
}

void ps_capture_close(struct ps_capture *cap)
{
    free(cap->buf);
    cap->buf = NULL;
}
