/* Counting names (DNS question names, HTTP hosts). */
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

void ps_names_init(struct ps_name_table *t)
{
    t->nslots = 256;
    t->count = 0;
    t->slots = ps_xcalloc(t->nslots, sizeof(*t->slots));
}

static void grow(struct ps_name_table *t)
{
    size_t nslots = t->nslots * 2;
    struct ps_name **slots = ps_xcalloc(nslots, sizeof(*slots));
    for (size_t i = 0; i < t->nslots; i++) {
        struct ps_name *n = t->slots[i];
        while (n) {
            struct ps_name *next = n->next;
            size_t h = (size_t)(ps_hash(n->text, strlen(n->text)) & (nslots - 1));
            n->next = slots[h];
            slots[h] = n;
            n = next;
        }
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
}

void ps_names_add(struct ps_name_table *t, const char *text)
{
    size_t h = (size_t)(ps_hash(text, strlen(text)) & (t->nslots - 1));
    struct ps_name *n = t->slots[h];
    while (n && strcmp(n->text, text) != 0)
        n = n->next;
    if (!n) {
        n = ps_xcalloc(1, sizeof(*n));
        n->text = ps_xstrdup(text);
        n->next = t->slots[h];
        t->slots[h] = n;
        t->count++;
        if (t->count > t->nslots)
            grow(t);
    }
    n->count++;
}

struct ps_name **ps_names_list(const struct ps_name_table *t)
{
    struct ps_name **all = ps_xmalloc(sizeof(*all) * (t->count + 1));
    size_t k = 0;
    for (size_t i = 0; i < t->nslots; i++)
        for (struct ps_name *n = t->slots[i]; n; n = n->next)
            all[k++] = n;
    return all;
}

void ps_names_free(struct ps_name_table *t)
{
    for (size_t i = 0; i < t->nslots; i++) {
        struct ps_name *n = t->slots[i];
        while (n) {
            struct ps_name *next = n->next;
            free(n->text);
            free(n);
            n = next;
        }
    }
    free(t->slots);
    t->slots = NULL;
}
