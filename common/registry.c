#include "common/registry.h"

#include <stdio.h>
#include <string.h>

const char *const bf_size_set_names[BF_SIZE_SETS] = {"test", "quick", "bench", "hw", "sweep"};

/* One dimension: all digits, at most 2^40. Returns 0, or -1 with why. */
static int parse_dim(const char *text, const char *start, size_t n, int64_t *out, char *why,
                     size_t len)
{
    if (n == 0) {
        snprintf(why, len, "size '%s': a dimension is missing", text);
        return -1;
    }
    if (strspn(start, "0123456789") < n) {
        snprintf(why, len, "size '%s': '%.*s' is not a whole number", text, (int)n, start);
        return -1;
    }
    int64_t v = 0;
    for (size_t i = 0; i < n && v <= (INT64_C(1) << 40); ++i)
        v = 10 * v + (start[i] - '0');
    if (v > (INT64_C(1) << 40)) {
        snprintf(why, len, "size '%s': a dimension is larger than 2^40", text);
        return -1;
    }
    *out = v;
    return 0;
}

int bf_size_ndims(const char *text)
{
    int n = 1;
    for (; *text; ++text)
        n += *text == 'x';
    return n;
}

int bf_size_parse(const char *text, const struct bf_family *f, struct bf_size *out, char *why,
                  size_t len)
{
    memset(out, 0, sizeof *out);
    if (bf_size_ndims(text) != f->ndims) {
        char example[64];
        bf_size_format(&f->sizes[BF_SIZES_BENCH][0], example, sizeof example);
        snprintf(why, len, "size '%s': %s takes %d dimension%s, %s (like %s)", text, f->name,
                 f->ndims, f->ndims == 1 ? "" : "s", f->size_form, example);
        return -1;
    }
    const char *start = text;
    for (int d = 0; d < f->ndims; ++d) {
        const char *end = strchr(start, 'x');
        size_t n = end ? (size_t)(end - start) : strlen(start);
        if (parse_dim(text, start, n, &out->dim[d], why, len) != 0)
            return -1;
        if (out->dim[d] < f->min_dim) {
            snprintf(why, len, "size '%s': each dimension must be at least %d", text, f->min_dim);
            return -1;
        }
        start += n + 1;
    }
    /* In a double: a product of dimensions up to 2^40 each cannot overflow it. */
    double elements = 1;
    for (int d = 0; d < f->ndims; ++d)
        elements *= (double)out->dim[d];
    if (elements > 0x1p48) {
        snprintf(why, len, "size '%s': more than 2^48 elements", text);
        return -1;
    }
    out->ndims = f->ndims;
    return 0;
}

void bf_size_format(const struct bf_size *s, char *buf, size_t len)
{
    int n = 0;
    buf[0] = '\0';
    for (int d = 0; d < s->ndims && n >= 0 && (size_t)n < len; ++d)
        n += snprintf(buf + n, len - (size_t)n, d ? "x%lld" : "%lld", (long long)s->dim[d]);
}
