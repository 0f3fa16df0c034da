/* Checking outputs: poison before every run, compare every element after. */
#ifndef BANKFREE_VALIDATE_H
#define BANKFREE_VALIDATE_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sets every byte to 0xff: each float a NaN, each int -1, each byte 255, so
 * an element the kernel never wrote cannot pass for a result. */
cudaError_t bf_poison(void *d, size_t bytes, cudaStream_t stream);

/* Bitwise compare of n elements of elem_bytes each. Returns the number that
 * differ and sets *first to the first one (n if none). */
size_t bf_compare_exact(const void *got, const void *want, size_t n, size_t elem_bytes,
                        size_t *first);

#ifdef __cplusplus
}
#endif

#endif
