/* ICMP and ICMPv6: message kinds, and the packets that ICMPv4 errors quote back. */
#include <inttypes.h>
#include <string.h>

#include "pcapsum.h"

void ps_icmp_init(struct ps_icmp_stats *s)
{
    s->echo_request = s->echo_reply = s->unreachable = s->time_exceeded = s->other = 0;
    s->quoted = 0;
    ps_names_init(&s->targets);
}

/* An ICMPv4 error quotes the IP header and the first 8 bytes of the offending packet
 * after its own 8-byte header. */
static void quoted(struct ps_icmp_stats *s, const uint8_t *msg, size_t len)
{
    if (len < 8 + 20)
        return;
    const uint8_t *ip = msg + 8;
    size_t n = len - 8;
    if ((ip[0] >> 4) != 4)
        return;
    size_t ihl = (size_t)(ip[0] & 15) * 4;
    if (ihl < 20 || ihl + 8 > n)
        return;
    struct ps_addr dst;
    char addr[64], text[128], proto[8];
    dst.family = 4;
    memset(dst.bytes, 0, sizeof(dst.bytes));
    memcpy(dst.bytes, ip + 16, 4);
    ps_addr_format(&dst, addr, sizeof(addr));
    unsigned port = 0;
    const char *name;
    switch (ip[9]) {
    case 6:
        name = "tcp";
        port = ps_be16(ip + ihl + 2);
        break;
    case 17:
        name = "udp";
        port = ps_be16(ip + ihl + 2);
        break;
    case 1:
        name = "icmp";
        break;
    default:
        snprintf(proto, sizeof(proto), "%u", ip[9]);
        name = proto;
        break;
    }
    snprintf(text, sizeof(text), "%s %s %u", name, addr, port);
    s->quoted++;
    ps_names_add(&s->targets, text);
}

void ps_icmp_message(struct ps_icmp_stats *s, int v6, const uint8_t *msg, size_t len)
{
    uint8_t type = msg[0];
    if (type == (v6 ? 128 : 8)) {
        s->echo_request++;
    } else if (type == (v6 ? 129 : 0)) {
        s->echo_reply++;
    } else if (type == (v6 ? 1 : 3)) {
        s->unreachable++;
        if (!v6)
            quoted(s, msg, len);
    } else if (type == (v6 ? 3 : 11)) {
        s->time_exceeded++;
        if (!v6)
            quoted(s, msg, len);
    } else {
        s->other++;
    }
}

void ps_icmp_print(FILE *out, const struct ps_icmp_stats *s, size_t top)
{
    fprintf(out,
            "icmp: echo-request=%" PRIu64 " echo-reply=%" PRIu64 " unreachable=%" PRIu64
            " time-exceeded=%" PRIu64 " other=%" PRIu64 " quoted=%" PRIu64 " ",
            s->echo_request, s->echo_reply, s->unreachable, s->time_exceeded, s->other,
            s->quoted);
    ps_print_names(out, "icmp-quoted", &s->targets, top);
}

void ps_icmp_free(struct ps_icmp_stats *s)
{
    ps_names_free(&s->targets);
}
