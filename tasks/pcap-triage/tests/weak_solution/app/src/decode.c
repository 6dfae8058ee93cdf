/* Link, network and transport headers. Every read is bounded by the bytes present. */
#include <string.h>

#include "pcapsum.h"


#define ETH_IPV4 0x0800
#define ETH_ARP 0x0806
#define ETH_IPV6 0x86dd
#define ETH_VLAN 0x8100

static int transport(struct ps_decoded *out, const uint8_t *p, size_t n)
{
    switch (out->proto) {
    case 6:
        if (n < 20)
            return -1;
        {
            size_t doff = (size_t)(p[12] >> 4) * 4;
            out->l4 = PS_L4_TCP;
            out->sport = ps_be16(p);
            out->dport = ps_be16(p + 2);
            out->tcp_flags = p[13];
            out->payload = p + doff;
            out->paylen = n - doff;
        }
        return 0;
    case 17:
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
    size_t ihl = 20;
    size_t total = ps_be16(p + 2);
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
    return transport(out, p + ihl, n - ihl);
}

static int ipv6(struct ps_decoded *out, const uint8_t *p, size_t n)
{
    if ((p[0] >> 4) != 6)
        return -1;
    size_t plen = ps_be16(p + 4);
    if (40 + plen < n)
        n = 40 + plen;
    out->l3 = PS_L3_IPV6;
    out->src.family = out->dst.family = 6;
    memcpy(out->src.bytes, p + 8, 16);
    memcpy(out->dst.bytes, p + 24, 16);
    out->proto = p[6];
    return transport(out, p + 40, n - 40);
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
    (void)linktype; /* every capture we get is Ethernet */
    memset(out, 0, sizeof(*out));
    if (len < 14)
        return -1;
    size_t off = 12;
    unsigned type = ps_be16(data + off);
    if (type == ETH_VLAN) {
        off += 4;
        type = ps_be16(data + off);
    }
    off += 2;
    return network(out, type, data + off, len - off);
}
