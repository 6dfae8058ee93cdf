/* The flow table: one entry per (protocol, endpoint pair), direction-independent.
 * Flows are kept in a list in the order they were first seen. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

static void put_endpoint(uint8_t *k, const struct ps_addr *addr, uint16_t port)
{
    memcpy(k, addr->bytes, 16);
    k[16] = (uint8_t)(port >> 8);
    k[17] = (uint8_t)port;
}

/* Builds the canonical key; returns 1 when the packet goes from endpoint a to b. */
static int make_key(uint8_t *key, const struct ps_decoded *d)
{
    uint8_t src[18], dst[18];
    memset(src, 0, sizeof(src));
    memset(dst, 0, sizeof(dst));
    put_endpoint(src, &d->src, d->sport);
    put_endpoint(dst, &d->dst, d->dport);
    int forward = memcmp(src, dst, sizeof(src)) <= 0;
    key[0] = d->proto;
    key[1] = d->src.family;
    memcpy(key + 2, forward ? src : dst, 18);
    memcpy(key + 20, forward ? dst : src, 18);
    return forward;
}

void ps_flows_init(struct ps_flow_table *t)
{
    t->nslots = 1;
    t->count = 0;
    t->slots = ps_xcalloc(1, sizeof(*t->slots)); /* slots[0]: the head of the list */
}

void ps_flows_add(struct ps_flow_table *t, const struct ps_decoded *d, uint64_t wirelen,
                  uint64_t ts)
{
    uint8_t key[PS_KEY_LEN];
    int forward = make_key(key, d);
    struct ps_flow *f = t->slots[0], *last = NULL;
    while (f && memcmp(f->key, key, PS_KEY_LEN) != 0) {
        last = f;
        f = f->next;
    }
    if (!f) {
        f = ps_xcalloc(1, sizeof(*f));
        memcpy(f->key, key, PS_KEY_LEN);
        f->first = f->last = ts;
        if (last)
            last->next = f;
        else
            t->slots[0] = f;
        t->count++;
    }
    f->packets++;
    f->bytes += wirelen;
    if (forward)
        f->a2b++;
    else
        f->b2a++;
    if (ts < f->first)
        f->first = ts;
    if (ts > f->last)
        f->last = ts;
    if (d->l4 == PS_L4_TCP) {
        uint8_t fl = d->tcp_flags;
        f->flags |= fl;
        if ((fl & 0x12) == 0x02)
            f->tcp_state |= PS_SEEN_SYN;
        if ((fl & 0x12) == 0x12)
            f->tcp_state |= PS_SEEN_SYNACK;
        if (fl & 0x04)
            f->tcp_state |= PS_SEEN_RST;
        if (fl & 0x01)
            f->tcp_state |= PS_SEEN_FIN;
    }
}

/* How each TCP flow went, judged from what was seen of it (docs/FORMAT.md section 5). */
void ps_flows_sessions(FILE *out, struct ps_flow *const *flows, size_t count)
{
    uint64_t tcp = 0, closed = 0, reset = 0, open = 0, refused = 0, unanswered = 0,
             midstream = 0;
    for (size_t i = 0; i < count; i++) {
        const struct ps_flow *f = flows[i];
        if (f->key[0] != 6)
            continue;
        tcp++;
        unsigned fl = f->flags;
        if (!(fl & 0x02))
            midstream++;
        else if (!(fl & 0x10))
            (fl & 0x04) ? refused++ : unanswered++;
        else if (fl & 0x04)
            reset++;
        else if (fl & 0x01)
            closed++;
        else
            open++;
    }
    fprintf(out,
            "tcp-sessions: flows=%" PRIu64 " closed=%" PRIu64 " reset=%" PRIu64 " open=%" PRIu64
            " refused=%" PRIu64 " unanswered=%" PRIu64 " midstream=%" PRIu64 "\n",
            tcp, closed, reset, open, refused, unanswered, midstream);
}

struct ps_flow **ps_flows_list(const struct ps_flow_table *t)
{
    struct ps_flow **all = ps_xmalloc(sizeof(*all) * (t->count + 1));
    size_t n = 0;
    for (struct ps_flow *f = t->slots[0]; f; f = f->next)
        all[n++] = f;
    return all;
}

void ps_flows_free(struct ps_flow_table *t)
{
    struct ps_flow *f = t->slots[0];
    while (f) {
        struct ps_flow *next = f->next;
        free(f);
        f = next;
    }
    free(t->slots);
    t->slots = NULL;
}
