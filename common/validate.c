#include "common/validate.h"

#include <math.h>
#include <string.h>

cudaError_t bf_poison(void *d, size_t bytes, cudaStream_t stream)
{
    return cudaMemsetAsync(d, 0xff, bytes, stream);
}

size_t bf_compare_exact(const void *got, const void *want, size_t n, size_t elem_bytes,
                        size_t *first)
{
    const unsigned char *g = got, *w = want;
    size_t bad = 0;
    *first = n;
    for (size_t i = 0; i < n; ++i) {
        if (memcmp(g + i * elem_bytes, w + i * elem_bytes, elem_bytes) != 0) {
            if (bad++ == 0)
                *first = i;
        }
    }
    return bad;
}

int bf_compare_f32(const float *got, const double *ref, size_t n, double tol,
                   struct bf_float_check *out)
{
    double err2 = 0, ref2 = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(got[i]) && isfinite(ref[i])) {
            out->nans++;
            continue;
        }
        double d = fabs((double)got[i] - ref[i]);
        if (d > out->max_abs) {
            out->max_abs = d;
            out->worst = i;
        }
        err2 += d * d;
        ref2 += ref[i] * ref[i];
    }
    out->rel_l2 = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    return out->nans == 0 && out->rel_l2 <= tol;
}
