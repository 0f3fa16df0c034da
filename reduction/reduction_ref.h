/* CPU reference sums, accumulated a piece at a time so that an input larger
 * than host memory can be checked in chunks: int32 exact modulo 2^32, fp32 in
 * float64 with the sum of magnitudes that bounds a float sum's error. */
#ifndef BANKFREE_REDUCTION_REF_H
#define BANKFREE_REDUCTION_REF_H

#include <stddef.h>
#include <stdint.h>

struct reduction_ref {
    int64_t n;
    double sum;       /* fp32 inputs, added in float64 */
    double abs_sum;   /* sum of |x|: the scale of any float sum's error */
    uint32_t wrapped; /* int32 inputs, added modulo 2^32 */
};

void reduction_ref_add_f32(struct reduction_ref *r, const float *x, size_t n);
void reduction_ref_add_i32(struct reduction_ref *r, const int32_t *x, size_t n);

/* The int32 sum, wrapped as two's complement. */
int32_t reduction_ref_i32(const struct reduction_ref *r);

/* How far an fp32 sum whose additions form a tree of the given depth may be
 * from r->sum: depth * 2^-24 / (1 - depth * 2^-24) * sum |x| (Higham's bound
 * for a sum in that order), plus the float64 reference's own n * 2^-53 * sum |x|. */
double reduction_ref_bound_f32(const struct reduction_ref *r, int64_t depth);

#endif
