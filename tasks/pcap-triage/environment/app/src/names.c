/* Counting names (DNS question names, HTTP hosts), in first-seen order. */
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

void ps_names_init(struct ps_name_table *t)
{
    t->nslots = 16; /* capacity of the array */
    t->count = 0;
    t->slots = ps_xcalloc(t->nslots, sizeof(*t->slots));
}

void ps_names_add(struct ps_name_table *t, const char *text)
{
    for (size_t i = 0; i < t->count; i++) {
        if (strcmp(t->slots[i]->text, text) == 0) {
            t->slots[i]->count++;
            return;
        }
    }
    if (t->count == t->nslots) {
        t->nslots *= 2;
        t->slots = ps_xrealloc(t->slots, t->nslots * sizeof(*t->slots));
    }
    struct ps_name *n = ps_xcalloc(1, sizeof(*n));
    n->text = ps_xstrdup(text);
    n->count = 1;
    t->slots[t->count++] = n;
}

struct ps_name **ps_names_list(const struct ps_name_table *t)
{
    struct ps_name **all = ps_xmalloc(sizeof(*all) * (t->count + 1));
    for (size_t i = 0; i < t->count; i++)
        all[i] = t->slots[i];
    return all;
}

void ps_names_free(struct ps_name_table *t)
{
    for (size_t i = 0; i < t->count; i++) {
        free(t->slots[i]->text);
        free(t->slots[i]);
    }
    free(t->slots);
    t->slots = NULL;
}
