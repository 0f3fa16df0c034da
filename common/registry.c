#include "common/registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bf_bench_columns[] = {
    "family", "size", "variant",    "median_ms", "min_ms",   "max_ms",       "noise_pct",    "reps",
    "rate",   "unit", "of_ceiling", "vs_vendor", "vs_naive", "smem_ld_ways", "smem_st_ways", NULL};

int bf_size_parse(const char *text, int ndims, struct bf_size *out, char *why, size_t len)
{
    const char *p = text;
    memset(out, 0, sizeof *out);
    for (int d = 0; d < ndims; ++d) {
        if (d > 0) {
            if (*p != 'x') {
                snprintf(why, len, "size '%s' needs %d dimensions, like %s", text, ndims,
                         ndims == 1   ? "1000000"
                         : ndims == 2 ? "8192x8192"
                                      : "4096x4096x4096");
                return -1;
            }
            ++p;
        }
        if (*p < '0' || *p > '9') {
            snprintf(why, len, "size '%s': each dimension must be a positive whole number", text);
            return -1;
        }
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE || v > (1ll << 40)) {
            snprintf(why, len, "size '%s': a dimension is larger than 2^40", text);
            return -1;
        }
        if (v < 1) {
            snprintf(why, len, "size '%s': each dimension must be at least 1", text);
            return -1;
        }
        out->dim[d] = v;
        p = end;
    }
    if (*p != '\0') {
        snprintf(why, len, "size '%s' needs %d dimension%s, like %s", text, ndims,
                 ndims == 1 ? "" : "s",
                 ndims == 1   ? "1000000"
                 : ndims == 2 ? "8192x8192"
                              : "4096x4096x4096");
        return -1;
    }
    out->ndims = ndims;
    return 0;
}

void bf_size_format(const struct bf_size *s, char *buf, size_t len)
{
    int n = 0;
    buf[0] = '\0';
    for (int d = 0; d < s->ndims && n >= 0 && (size_t)n < len; ++d)
        n += snprintf(buf + n, len - (size_t)n, d ? "x%lld" : "%lld", (long long)s->dim[d]);
}

int64_t bf_size_elements(const struct bf_size *s)
{
    int64_t n = 1;
    for (int d = 0; d < s->ndims; ++d)
        n *= s->dim[d];
    return n;
}

void bf_bench_model_cells(struct bf_table *t, const struct bf_site *sites, int nsites)
{
    uint64_t wf[2] = {0, 0}, ideal[2] = {0, 0};
    for (int i = 0; i < nsites; ++i) {
        int store = sites[i].access.op == BF_STORE || sites[i].access.op == BF_RED;
        wf[store] += sites[i].wavefronts;
        ideal[store] += sites[i].ideal;
    }
    for (int k = 0; k < 2; ++k) {
        if (ideal[k])
            bf_table_num(t, "%.2f", (double)wf[k] / (double)ideal[k]);
        else
            bf_table_text(t, "-");
    }
}
