/* A histogram of wire lengths. */
#include <inttypes.h>

#include "pcapsum.h"

/* Upper bounds (inclusive) of every bucket but the last. */
static const uint64_t LIMITS[PS_SIZE_BUCKETS - 1] = {63, 127, 255, 511, 1023, 1518};
static const char *const LABELS[PS_SIZE_BUCKETS] = {"0-63",     "64-127",    "128-255", "256-511",
                                                    "512-1023", "1024-1518", "1519+"};

void ps_sizes_add(struct ps_sizes *s, uint64_t wirelen)
{
    int i = 0;
    while (i < PS_SIZE_BUCKETS - 1 && wirelen > LIMITS[i])
        i++;
    s->counts[i]++;
}

void ps_sizes_print(FILE *out, const struct ps_sizes *s)
{
    fputs("sizes:", out);
    for (int i = 0; i < PS_SIZE_BUCKETS; i++)
        fprintf(out, " %s=%" PRIu64, LABELS[i], s->counts[i]);
    fputc('\n', out);
}
