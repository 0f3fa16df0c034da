#include "reduction/reduction_ref.h"

#include <math.h>
#include <string.h>

void reduction_ref_add_f32(struct reduction_ref *r, const float *x, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        r->sum += (double)x[i];
        r->abs_sum += fabs((double)x[i]);
    }
    r->n += (int64_t)n;
}

void reduction_ref_add_i32(struct reduction_ref *r, const int32_t *x, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        r->wrapped += (uint32_t)x[i];
    r->n += (int64_t)n;
}

int32_t reduction_ref_i32(const struct reduction_ref *r)
{
    int32_t v;
    memcpy(&v, &r->wrapped, sizeof v);
    return v;
}

double reduction_ref_bound_f32(const struct reduction_ref *r, int64_t depth)
{
    const double u = ldexp(1.0, -24), ud = ldexp(1.0, -53);
    double du = (double)depth * u;
    return (du / (1.0 - du) + (double)r->n * ud) * r->abs_sum;
}
