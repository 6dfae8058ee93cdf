/* Which services were contacted: TCP connection attempts and UDP datagrams per port. */
#include <inttypes.h>
#include <stdlib.h>

#include "pcapsum.h"

struct entry {
    int udp;
    unsigned port;
    uint64_t count;
};

void ps_services_init(struct ps_services *s)
{
    s->tcp = ps_xcalloc(65536, sizeof(uint64_t));
    s->udp = ps_xcalloc(65536, sizeof(uint64_t));
}

void ps_services_add(struct ps_services *s, const struct ps_decoded *d)
{
    if (d->l4 == PS_L4_TCP && (d->tcp_flags & 0x12) == 0x02)
        s->tcp[d->dport]++;
    else if (d->l4 == PS_L4_UDP)
        s->udp[d->dport]++;
}

static int entry_order(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    if (a->udp != b->udp)
        return a->udp - b->udp;
    return a->port < b->port ? -1 : (a->port > b->port);
}

void ps_services_print(FILE *out, const struct ps_services *s, size_t top)
{
    struct entry *all = ps_xmalloc(sizeof(*all) * 2 * 65536);
    size_t n = 0;
    for (unsigned port = 0; port < 65536; port++) {
        if (s->tcp[port])
            all[n++] = (struct entry){0, port, s->tcp[port]};
        if (s->udp[port])
            all[n++] = (struct entry){1, port, s->udp[port]};
    }
    qsort(all, n, sizeof(*all), entry_order);
    size_t shown = n < top ? n : top;
    fprintf(out, "services: total=%zu shown=%zu\n", n, shown);
    for (size_t i = 0; i < shown; i++)
        fprintf(out, "service %s %u %" PRIu64 "\n", all[i].udp ? "udp" : "tcp", all[i].port,
                all[i].count);
    free(all);
}

void ps_services_free(struct ps_services *s)
{
    free(s->tcp);
    free(s->udp);
}
