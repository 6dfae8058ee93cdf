/* Per-address totals ("top talkers"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

void ps_talkers_init(struct ps_talker_table *t)
{
    t->nslots = 1024;
    t->count = 0;
    t->slots = ps_xcalloc(t->nslots, sizeof(*t->slots));
}

static void grow(struct ps_talker_table *t)
{
    size_t nslots = t->nslots * 2;
    struct ps_talker **slots = ps_xcalloc(nslots, sizeof(*slots));
    for (size_t i = 0; i < t->nslots; i++) {
        struct ps_talker *h = t->slots[i];
        while (h) {
            struct ps_talker *next = h->next;
            size_t k = (size_t)(ps_hash(h->key, PS_TALKER_KEY) & (nslots - 1));
            h->next = slots[k];
            slots[k] = h;
            h = next;
        }
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
}

static struct ps_talker *lookup(struct ps_talker_table *t, const struct ps_addr *addr)
{
    uint8_t key[PS_TALKER_KEY];
    key[0] = addr->family;
    memcpy(key + 1, addr->bytes, 16);
    size_t k = (size_t)(ps_hash(key, PS_TALKER_KEY) & (t->nslots - 1));
    struct ps_talker *h = t->slots[k];
    while (h && memcmp(h->key, key, PS_TALKER_KEY) != 0)
        h = h->next;
    if (!h) {
        h = ps_xcalloc(1, sizeof(*h));
        memcpy(h->key, key, PS_TALKER_KEY);
        h->next = t->slots[k];
        t->slots[k] = h;
        t->count++;
        if (t->count > t->nslots)
            grow(t);
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
    if (dst != src) {
        dst->packets++;
        dst->bytes += wirelen;
    }
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
    for (size_t i = 0; i < t->nslots; i++)
        for (struct ps_talker *h = t->slots[i]; h; h = h->next)
            all[n++] = h;
    qsort(all, n, sizeof(*all), talker_order);
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
    for (size_t i = 0; i < t->nslots; i++) {
        struct ps_talker *h = t->slots[i];
        while (h) {
            struct ps_talker *next = h->next;
            free(h);
            h = next;
        }
    }
    free(t->slots);
    t->slots = NULL;
}
