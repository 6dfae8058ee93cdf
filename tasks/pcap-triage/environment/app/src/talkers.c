/* Per-address totals ("top talkers"), kept in a list in first-seen order. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

void ps_talkers_init(struct ps_talker_table *t)
{
    t->nslots = 1;
    t->count = 0;
    t->slots = ps_xcalloc(1, sizeof(*t->slots)); /* slots[0]: the head of the list */
}

static struct ps_talker *lookup(struct ps_talker_table *t, const struct ps_addr *addr)
{
    uint8_t key[PS_TALKER_KEY];
    key[0] = addr->family;
    memcpy(key + 1, addr->bytes, 16);
    struct ps_talker *h = t->slots[0], *last = NULL;
    while (h && memcmp(h->key, key, PS_TALKER_KEY) != 0) {
        last = h;
        h = h->next;
    }
    if (!h) {
        h = ps_xcalloc(1, sizeof(*h));
        memcpy(h->key, key, PS_TALKER_KEY);
        if (last)
            last->next = h;
        else
            t->slots[0] = h;
        t->count++;
    }
    return h;
}

void ps_talkers_add(struct ps_talker_table *t, const struct ps_decoded *d, uint64_t wirelen)
{
    struct ps_talker *src = lookup(t, &d->src);
    src->packets++;
    src->bytes += wirelen;
    src->sent++;
    struct ps_talker *dst = lookup(t, &d->dst);
    dst->packets++;
    dst->bytes += wirelen;
    dst->received++;
}

static int talker_order(const void *pa, const void *pb)
{
    const struct ps_talker *a = *(const struct ps_talker *const *)pa;
    const struct ps_talker *b = *(const struct ps_talker *const *)pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->packets != b->packets)
        return a->packets > b->packets ? -1 : 1;
    return memcmp(a->key, b->key, PS_TALKER_KEY);
}

void ps_talkers_print(FILE *out, const struct ps_talker_table *t, size_t top)
{
    struct ps_talker **all = ps_xmalloc(sizeof(*all) * (t->count + 1));
    size_t n = 0;
    for (struct ps_talker *h = t->slots[0]; h; h = h->next)
        all[n++] = h;
    /* selection sort: the lists are short */
    for (size_t i = 0; i < n; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < n; j++)
            if (talker_order(&all[j], &all[best]) < 0)
                best = j;
        struct ps_talker *tmp = all[i];
        all[i] = all[best];
        all[best] = tmp;
    }
    size_t shown = n < top ? n : top;
    fprintf(out, "hosts: total=%zu shown=%zu\n", n, shown);
    for (size_t i = 0; i < shown; i++) {
        struct ps_addr addr;
        char text[64];
        addr.family = all[i]->key[0];
        memcpy(addr.bytes, all[i]->key + 1, 16);
        ps_addr_format(&addr, text, sizeof(text));
        fprintf(out, "host %s packets=%" PRIu64 " bytes=%" PRIu64 " sent=%" PRIu64
                     " received=%" PRIu64 "\n",
                text, all[i]->packets, all[i]->bytes, all[i]->sent, all[i]->received);
    }
    free(all);
}

void ps_talkers_free(struct ps_talker_table *t)
{
    struct ps_talker *h = t->slots[0];
    while (h) {
        struct ps_talker *next = h->next;
        free(h);
        h = next;
    }
    free(t->slots);
    t->slots = NULL;
}
