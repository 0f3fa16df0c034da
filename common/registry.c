#include "common/registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bf_size_parse(const char *text, int ndims, int min_dim, struct bf_size *out, char *why,
                  size_t len)
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
            snprintf(why, len, "size '%s': each dimension must be a %s whole number", text,
                     min_dim > 0 ? "positive" : "non-negative");
            return -1;
        }
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE || v > (1ll << 40)) {
            snprintf(why, len, "size '%s': a dimension is larger than 2^40", text);
            return -1;
        }
        if (v < min_dim) {
            snprintf(why, len, "size '%s': each dimension must be at least %d", text, min_dim);
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
