/* Deterministic random inputs. Element i of the stream with a given seed is a
 * pure function of (seed, i), the same on the host and on the device, so a
 * failure is reproduced from its seed alone. Values are never zero. */
#ifndef BANKFREE_DATA_H
#define BANKFREE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "common/hostdev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64's finaliser: a bijection that mixes every input bit. */
static BF_HD uint64_t bf_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* 64 random bits for element i of the stream `seed`. */
static BF_HD uint64_t bf_random_bits(uint64_t seed, uint64_t i)
{
    return bf_mix64(seed ^ bf_mix64(i + 0x9e3779b97f4a7c15ull));
}

/* A float in (-1, 1) on a grid of 2^-23, never 0: (k - 2^23 + 1/2) / 2^23. */
static BF_HD float bf_random_f32(uint64_t seed, uint64_t i)
{
    uint64_t h = bf_random_bits(seed, i);
    int32_t k = (int32_t)(h >> 40) - (1 << 23);
    return ((float)k + 0.5f) * (1.0f / 8388608.0f);
}

/* An int32 over the whole range, never 0: sums of a few wrap around 2^32. */
static BF_HD int32_t bf_random_i32(uint64_t seed, uint64_t i)
{
    uint32_t v = (uint32_t)(bf_random_bits(seed, i) >> 32);
    return (int32_t)(v != 0 ? v : 1u);
}

/* A fresh seed for case `index` of a run that started from `base`. */
static inline uint64_t bf_case_seed(uint64_t base, uint64_t index)
{
    return bf_mix64(base + 0x632be59bd9b4e019ull * (index + 1));
}

/* Fills d[0..n) with bf_random_f32(seed, i) on the device. */
cudaError_t bf_fill_random_f32(float *d, size_t n, uint64_t seed, cudaStream_t stream);

/* Fills d[0..n) with bf_random_i32(seed, i) on the device. */
cudaError_t bf_fill_random_i32(int32_t *d, size_t n, uint64_t seed, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
