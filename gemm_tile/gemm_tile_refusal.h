/* Which launches gemm_tile_f32, gemm_tile_f16 and gemm_tile_wgmma_launch
 * refuse with cudaErrorInvalidValue (gemm_tile.h). One rule for both paths,
 * the runner's refusals and the tests, here alone so that each path, copied
 * without the other, still checks its own arguments. Plain C. */
#ifndef BANKFREE_GEMM_TILE_REFUSAL_H
#define BANKFREE_GEMM_TILE_REFUSAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "gemm_tile/gemm_tile.h"

/* Why an m x n x k launch of `variant` is refused; NULL: its sizes are
 * fine. Tiles of C are counted as 128 x 128 elements, the mma.sync
 * kernel's narrow tile. */
static inline const char *gemm_tile_refusal(enum gemm_tile_variant variant, int64_t m, int64_t n,
                                            int64_t k)
{
    if ((unsigned)variant >= GEMM_TILE_VARIANTS)
        return "no such variant";
    if (m < 1 || n < 1)
        return "M or N below 1";
    if (k < 8 || k % 8 != 0)
        return "K not a positive multiple of 8";
    /* Tiles counted without m + 127, which overflows near INT64_MAX. */
    if (m / 128 + (m % 128 != 0) > INT_MAX / (n / 128 + (n % 128 != 0)))
        return "more than 2^31 - 1 tiles of C";
    if (variant >= GEMM_TILE_MMA_SYNC_VARIANTS && (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX))
        return "M, N or K of 2^31 or more (TMA's coordinates are 32-bit)";
    return NULL;
}

/* The same for a launch on these pointers, which also must not be NULL,
 * a and b 16-byte aligned (each cp.async or TMA row starts on 16 bytes). */
static inline const char *gemm_tile_launch_refusal(enum gemm_tile_variant variant, const void *c,
                                                   const void *a, const void *b, int64_t m,
                                                   int64_t n, int64_t k)
{
    if (c == NULL || a == NULL || b == NULL)
        return "a NULL pointer";
    if ((uintptr_t)a % 16 != 0 || (uintptr_t)b % 16 != 0)
        return "A or B not 16-byte aligned";
    return gemm_tile_refusal(variant, m, n, k);
}

#endif
