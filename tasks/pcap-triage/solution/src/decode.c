/* Link, network and transport headers. Every read is bounded by the bytes present. */
/*
 * ps_decode() peels one header at a time: link (Ethernet with VLAN tags, or raw IP),
 * network (IPv4 or IPv6 with extension headers), transport (TCP, UDP, ICMP, ICMPv6).
 * Each layer gets a pointer to its first byte and the number of bytes that follow;
 * a layer that cannot be read makes the whole packet malformed (-1).
 */
#include <string.h>

#include "pcapsum.h"

#define LINKTYPE_ETHERNET 1
#define LINKTYPE_RAW 101

#define ETH_IPV4 0x0800
#define ETH_ARP 0x0806
#define ETH_IPV6 0x86dd
#define ETH_VLAN 0x8100
#define ETH_QINQ 0x88a8
#define ETH_QINQ_OLD 0x9100

static int transport(struct ps_decoded *out, const uint8_t *p, size_t n)
{
    switch (out->proto) {
    case 6:
        if (n < 20)
            return -1;
        {
            size_t doff = (size_t)(p[12] >> 4) * 4;
            if (doff < 20 || doff > n)
                return -1;
            out->l4 = PS_L4_TCP;
            out->sport = ps_be16(p);
            out->dport = ps_be16(p + 2);
            out->tcp_flags = p[13];
            out->payload = p + doff;
            out->paylen = n - doff;
        }
        return 0;
    case 17:
        if (n < 8)
            return -1;
        out->l4 = PS_L4_UDP;
        out->sport = ps_be16(p);
        out->dport = ps_be16(p + 2);
        out->payload = p + 8;
        out->paylen = n - 8;
        return 0;
    case 1:
        if (out->l3 != PS_L3_IPV4)
            return 0;
        if (n < 4)
            return -1;
        out->l4 = PS_L4_ICMP;
        out->payload = p;
        out->paylen = n;
        return 0;
    case 58:
        if (out->l3 != PS_L3_IPV6)
            return 0;
        if (n < 4)
            return -1;
        out->l4 = PS_L4_ICMPV6;
        out->payload = p;
        out->paylen = n;
        return 0;
    default:
        return 0;
    }
}

static int ipv4(struct ps_decoded *out, const uint8_t *p, size_t n)
{
    if (n < 20 || (p[0] >> 4) != 4)
        return -1;
    size_t ihl = (size_t)(p[0] & 15) * 4;
    if (ihl < 20 || ihl > n)
        return -1;
    size_t total = ps_be16(p + 2);
    if (total < ihl)
        return -1;
    if (total < n)
        n = total; /* link-layer padding */
    out->l3 = PS_L3_IPV4;
    out->src.family = out->dst.family = 4;
    memcpy(out->src.bytes, p + 12, 4);
    memcpy(out->dst.bytes, p + 16, 4);
    out->proto = p[9];
    unsigned offset = ps_be16(p + 6) & 0x1fff;
    int more = (p[6] & 0x20) != 0;
    out->fragment = offset != 0 || more;
    if (offset != 0)
        return 0;
    return transport(out, p + ihl, n - ihl);
}

static int ipv6(struct ps_decoded *out, const uint8_t *p, size_t n)
{
    if (n < 40 || (p[0] >> 4) != 6)
        return -1;
    size_t plen = ps_be16(p + 4);
    if (40 + plen < n)
        n = 40 + plen;
    out->l3 = PS_L3_IPV6;
    out->src.family = out->dst.family = 6;
    memcpy(out->src.bytes, p + 8, 16);
    memcpy(out->dst.bytes, p + 24, 16);
    uint8_t next = p[6];
    size_t off = 40;
    int nonfirst = 0;
    while (next == 0 || next == 43 || next == 44 || next == 60) {
        if (next == 44) {
            if (off + 8 > n)
                return -1;
            out->fragment = 1;
            if ((ps_be16(p + off + 2) >> 3) != 0)
                nonfirst = 1;
            next = p[off];
            off += 8;
        } else {
            if (off + 2 > n)
                return -1;
            size_t len = ((size_t)p[off + 1] + 1) * 8;
            if (off + len > n)
                return -1;
            next = p[off];
            off += len;
        }
    }
    out->proto = next;
    if (nonfirst)
        return 0;
    return transport(out, p + off, n - off);
}

static int network(struct ps_decoded *out, unsigned type, const uint8_t *p, size_t n)
{
    switch (type) {
    case ETH_IPV4:
        return ipv4(out, p, n);
    case ETH_IPV6:
        return ipv6(out, p, n);
    case ETH_ARP:
        out->l3 = PS_L3_ARP;
        return 0;
    default:
        out->l3 = PS_L3_OTHER;
        return 0;
    }
}

int ps_decode(uint32_t linktype, const uint8_t *data, size_t len, struct ps_decoded *out)
{
    memset(out, 0, sizeof(*out));
    if (linktype == LINKTYPE_RAW) {
        if (len < 1)
            return -1;
        unsigned version = data[0] >> 4;
        if (version == 4)
            return ipv4(out, data, len);
        if (version == 6)
            return ipv6(out, data, len);
        out->l3 = PS_L3_OTHER;
        return 0;
    }
    if (linktype != LINKTYPE_ETHERNET) {
        out->l3 = PS_L3_OTHER;
        return 0;
    }
    if (len < 14)
        return -1;
    size_t off = 12;
    unsigned type = ps_be16(data + off);
    while (type == ETH_VLAN || type == ETH_QINQ || type == ETH_QINQ_OLD) {
        if (off + 6 > len)
            return -1;
        off += 4;
        type = ps_be16(data + off);
    }
    off += 2;
    return network(out, type, data + off, len - off);
}
