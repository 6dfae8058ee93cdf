/* Accumulating per-packet results and printing the report (docs/FORMAT.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

void ps_summary_init(struct ps_summary *s, const struct ps_capture *cap)
{
    memset(s, 0, sizeof(*s));
    s->cap = cap;
    ps_flows_init(&s->flows);
    ps_services_init(&s->services);
    ps_talkers_init(&s->talkers);
    ps_icmp_init(&s->icmp_stats);
    ps_dns_init(&s->dns);
    ps_http_init(&s->http);
}

void ps_summary_packet(struct ps_summary *s, const struct ps_record *rec)
{
    struct ps_decoded d;
    s->total++;
    s->wire_bytes += rec->wirelen;
    s->captured_bytes += rec->caplen;
    ps_sizes_add(&s->sizes, rec->wirelen);
    if (!s->have_time) {
        s->first = s->last = rec->ts;
        s->have_time = 1;
    } else {
        if (rec->ts < s->first)
            s->first = rec->ts;
        if (rec->ts > s->last)
            s->last = rec->ts;
    }
    if (ps_decode(s->cap->linktype, rec->data, rec->caplen, &d) != 0) {
        s->malformed++;
        return;
    }
    s->decoded++;
    switch (d.l3) {
    case PS_L3_IPV4:
        s->ipv4++;
        break;
    case PS_L3_IPV6:
        s->ipv6++;
        break;
    case PS_L3_ARP:
        s->arp++;
        return;
    default:
        s->other++;
        return;
    }
    if (d.fragment)
        s->fragments++;
    switch (d.l4) {
    case PS_L4_TCP:
        s->tcp++;
        break;
    case PS_L4_UDP:
        s->udp++;
        break;
    case PS_L4_ICMP:
        s->icmp++;
        ps_icmp_message(&s->icmp_stats, 0, d.payload, d.paylen);
        break;
    case PS_L4_ICMPV6:
        s->icmpv6++;
        ps_icmp_message(&s->icmp_stats, 1, d.payload, d.paylen);
        break;
    default:
        break;
    }
    ps_flows_add(&s->flows, &d, rec->wirelen, rec->ts);
    ps_services_add(&s->services, &d);
    ps_talkers_add(&s->talkers, &d, rec->wirelen);
    if (d.l4 == PS_L4_UDP && (d.sport == 53 || d.dport == 53))
        ps_dns_message(&s->dns, d.payload, d.paylen);
    if (d.l4 == PS_L4_TCP && d.paylen > 0)
        ps_http_payload(&s->http, d.payload, d.paylen);
}

static void print_time(FILE *out, uint64_t ts)
{
    fprintf(out, "%" PRIu64 ".%09" PRIu64, (uint64_t)(ts / 1000000000u), (uint64_t)(ts % 1000000000u));
}

static const char *proto_name(uint8_t proto, uint8_t family, char *buf, size_t size)
{
    if (proto == 6)
        return "tcp";
    if (proto == 17)
        return "udp";
    if (proto == 1 && family == 4)
        return "icmp";
    if (proto == 58 && family == 6)
        return "icmpv6";
    snprintf(buf, size, "%u", proto);
    return buf;
}

static int flow_order(const void *pa, const void *pb)
{
    const struct ps_flow *a = *(const struct ps_flow *const *)pa;
    const struct ps_flow *b = *(const struct ps_flow *const *)pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->packets != b->packets)
        return a->packets > b->packets ? -1 : 1;
    return memcmp(a->key, b->key, PS_KEY_LEN);
}

static int name_order(const void *pa, const void *pb)
{
    const struct ps_name *a = *(const struct ps_name *const *)pa;
    const struct ps_name *b = *(const struct ps_name *const *)pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->text, b->text);
}

static void print_flow(FILE *out, const struct ps_flow *f)
{
    static const char letters[] = "FSRPAUEC";
    struct ps_addr a, b;
    char abuf[64], bbuf[64], pbuf[8], flags[9];
    a.family = b.family = f->key[1];
    memcpy(a.bytes, f->key + 2, 16);
    memcpy(b.bytes, f->key + 20, 16);
    ps_addr_format(&a, abuf, sizeof(abuf));
    ps_addr_format(&b, bbuf, sizeof(bbuf));
    unsigned aport = ((unsigned)f->key[18] << 8) | f->key[19];
    unsigned bport = ((unsigned)f->key[36] << 8) | f->key[37];
    size_t k = 0;
    for (int i = 0; i < 8; i++)
        if (f->flags & (1u << i))
            flags[k++] = letters[i];
    if (k == 0)
        flags[k++] = '-';
    flags[k] = '\0';
    fprintf(out, "flow %s %s %u %s %u packets=%" PRIu64 " bytes=%" PRIu64 " a2b=%" PRIu64
                 " b2a=%" PRIu64 " first=",
            proto_name(f->key[0], f->key[1], pbuf, sizeof(pbuf)), abuf, aport, bbuf, bport,
            f->packets, f->bytes, f->a2b, f->b2a);
    print_time(out, f->first);
    fputs(" last=", out);
    print_time(out, f->last);
    fprintf(out, " flags=%s\n", flags);
}

void ps_print_names(FILE *out, const char *label, const struct ps_name_table *t,
                        size_t top)
{
    struct ps_name **all = ps_names_list(t);
    size_t shown = t->count < top ? t->count : top;
    qsort(all, t->count, sizeof(*all), name_order);
    fprintf(out, "names=%zu shown=%zu\n", t->count, shown);
    for (size_t i = 0; i < shown; i++)
        fprintf(out, "%s %" PRIu64 " %s\n", label, all[i]->count, all[i]->text);
    free(all);
}

void ps_report(FILE *out, const struct ps_summary *s, size_t top)
{
    const struct ps_capture *cap = s->cap;
    fprintf(out, "capture: byteorder=%s resolution=%s version=%u.%u linktype=%" PRIu32
                 " snaplen=%" PRIu32 "\n",
            cap->big_endian ? "be" : "le", cap->nanosecond ? "ns" : "us", cap->version_major,
            cap->version_minor, cap->linktype, cap->snaplen);
    fprintf(out, "packets: total=%" PRIu64 " decoded=%" PRIu64 " malformed=%" PRIu64
                 " truncated=%s\n",
            s->total, s->decoded, s->malformed, cap->truncated ? "yes" : "no");
    fprintf(out, "bytes: wire=%" PRIu64 " captured=%" PRIu64 "\n", s->wire_bytes,
            s->captured_bytes);
    if (s->have_time) {
        fputs("time: first=", out);
        print_time(out, s->first);
        fputs(" last=", out);
        print_time(out, s->last);
        fputs(" span=", out);
        print_time(out, s->last - s->first);
        fputc('\n', out);
    } else {
        fputs("time: first=- last=- span=-\n", out);
    }
    fprintf(out, "link: ipv4=%" PRIu64 " ipv6=%" PRIu64 " arp=%" PRIu64 " other=%" PRIu64 "\n",
            s->ipv4, s->ipv6, s->arp, s->other);
    fprintf(out, "transport: tcp=%" PRIu64 " udp=%" PRIu64 " icmp=%" PRIu64 " icmpv6=%" PRIu64
                 " fragments=%" PRIu64 "\n",
            s->tcp, s->udp, s->icmp, s->icmpv6, s->fragments);

    ps_sizes_print(out, &s->sizes);
    ps_services_print(out, &s->services, top);

    struct ps_flow **flows = ps_flows_list(&s->flows);
    size_t nflows = s->flows.count, shown = nflows < top ? nflows : top;
    qsort(flows, nflows, sizeof(*flows), flow_order);
    fprintf(out, "flows: total=%zu shown=%zu\n", nflows, shown);
    for (size_t i = 0; i < shown; i++)
        print_flow(out, flows[i]);
    ps_flows_sessions(out, flows, nflows);
    free(flows);
    ps_talkers_print(out, &s->talkers, top);
    ps_icmp_print(out, &s->icmp_stats, top);

    fprintf(out, "dns: queries=%" PRIu64 " responses=%" PRIu64 " bad=%" PRIu64 " ",
            s->dns.queries, s->dns.responses, s->dns.bad);
    ps_print_names(out, "dns-name", &s->dns.names, top);
    fprintf(out, "http: requests=%" PRIu64 " hosts=%" PRIu64 " bad=%" PRIu64 " ",
            s->http.requests, s->http.hosts, s->http.bad);
    ps_print_names(out, "http-host", &s->http.names, top);
}

void ps_summary_free(struct ps_summary *s)
{
    ps_flows_free(&s->flows);
    ps_services_free(&s->services);
    ps_talkers_free(&s->talkers);
    ps_icmp_free(&s->icmp_stats);
    ps_dns_free(&s->dns);
    ps_http_free(&s->http);
}
