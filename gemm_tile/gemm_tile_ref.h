/* The CPU reference: C = A * B in float64 from the fp16 inputs, in the "TN"
 * layout of gemm_tile.h, and the relative L2 error the tests judge by; with
 * the fp16 conversions the host needs (C11 has no half type). Plain loops. */
#ifndef BANKFREE_GEMM_TILE_REF_H
#define BANKFREE_GEMM_TILE_REF_H

#include <stddef.h>
#include <stdint.h>

/* The value of an IEEE-754 binary16 bit pattern (subnormals, infinities and
 * NaN included). */
double gemm_tile_ref_half_value(uint16_t bits);

/* The binary16 nearest to x (ties to even; overflow to infinity, NaN kept). */
uint16_t gemm_tile_ref_half_bits(double x);

/* c[i * n + j] = sum over p < k of a[i * k + p] * b[j * k + p] in float64:
 * a row-major m x k, b column-major k x n, c row-major m x n. */
void gemm_tile_ref(double *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                   int64_t k);

/* ||got - want||_2 / ||want||_2 over n values (got as float). want all zero:
 * ||got||_2. A NaN in got (an unwritten, poisoned element) gives NaN. */
double gemm_tile_ref_rel_l2_f32(const float *got, const double *want, size_t n);

/* The same for fp16 output (binary16 bit patterns). */
double gemm_tile_ref_rel_l2_f16(const uint16_t *got, const double *want, size_t n);

/* A random fp16 in (-1, 1), never 0: (2 j + 1) / 2048 for j in [-1024, 1023],
 * exactly representable; element i of the stream `seed`. */
uint16_t gemm_tile_ref_random_half(uint64_t seed, uint64_t i);

#endif
