/* The inputs the tests and the benchmark count, and the bank model replays:
 * sample i of a stream is a pure function of (input, seed, i), the same on
 * the host and on the device. */
#ifndef BANKFREE_HISTOGRAM_DATA_H
#define BANKFREE_HISTOGRAM_DATA_H

#include <stdint.h>

#include "common/data.h"
#include "common/hostdev.h"

enum histogram_input {
    HISTOGRAM_UNIFORM, /* every bin alike */
    HISTOGRAM_SAME,    /* one value, drawn from the seed: every lane on one word */
    HISTOGRAM_SKEWED,  /* geometric: half the samples in the first 1/16 of the bins, ... */
    HISTOGRAM_ONEBANK, /* bins that are multiples of 32: one bank of a one-copy histogram */
    HISTOGRAM_INPUTS
};

/* Count trailing zeros of a nonzero word. */
static BF_HD int histogram_ctz(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return __ffs((int)x) - 1;
#elif defined(__GNUC__)
    return __builtin_ctz(x);
#else
    int n = 0;
    while (!(x & 1u)) {
        x >>= 1;
        ++n;
    }
    return n;
#endif
}

/* The inputs' random stream: draw k is 64 bits (splitmix64, one mix a
 * draw), and it repeats every HISTOGRAM_PERIOD draws (4 MiB of samples). A
 * histogram does not see the order of its samples, so the repetition hides
 * no fault of a kernel from the tests; it lets the bank model replay one
 * period and multiply, exact at any size (histogram_model.c). */
#define HISTOGRAM_PERIOD (1u << 20)
static BF_HD uint64_t histogram_draw(uint64_t seed, uint64_t k)
{
    return bf_mix64(seed + (k % HISTOGRAM_PERIOD + 1u) * 0x9e3779b97f4a7c15ull);
}

/* Samples a draw makes: 8-bit samples take 16 random bits, 16-bit ones 32. */
static BF_HD int histogram_per_draw(int bins)
{
    return bins == 256 ? 4 : 2;
}

/* The random bits of the sample that is part `part` of a draw. */
static BF_HD uint32_t histogram_part(int bins, uint64_t draw, uint64_t part)
{
    return bins == 256 ? (uint32_t)(draw >> (16u * part)) & 0xffffu
                       : (uint32_t)(draw >> (32u * part));
}

/* The random bits of sample i. */
static BF_HD uint32_t histogram_bits(int bins, uint64_t seed, uint64_t i)
{
    const uint64_t per = (uint64_t)histogram_per_draw(bins);
    return histogram_part(bins, histogram_draw(seed, i / per), i % per);
}

/* The one value of the all-same input. */
static BF_HD uint32_t histogram_same_value(int bins, uint64_t seed)
{
    return (uint32_t)(bf_mix64(seed) & (bins == 256 ? 0xffu : 0xffffu));
}

/* A sample from its random bits r (16 for 8-bit samples, 32 for 16-bit): a
 * byte when bins is 256, a 16-bit value (bin = value >> 4) when 4096; `same`
 * is histogram_same_value's. One-bank bytes come from {0, 32, ..., 224}
 * (3-bit data scaled to 8 bits); one-bank 16-bit samples have bins 0, 32,
 * ..., 4064. Skewed: the bins fall in 16 blocks, block k taking about
 * 2^-(k+1) of the samples. */
static BF_HD uint32_t histogram_sample_of(enum histogram_input input, int bins, uint32_t same,
                                          uint32_t r)
{
    if (input == HISTOGRAM_SAME)
        return same;
    if (input == HISTOGRAM_SKEWED) {
        const uint32_t block = (uint32_t)histogram_ctz(r | 0x8000u); /* 0..15 */
        return bins == 256 ? block * 16u + (r >> 12)
                           : (block * 256u + (r >> 16 & 0xffu)) << 4 | r >> 28;
    }
    if (input == HISTOGRAM_UNIFORM)
        return bins == 256 ? r >> 8 : r >> 16;
    /* one bank; a 16-bit sample's 4 bits below its bin are random */
    return bins == 256 ? (r >> 13) << 5 : ((r >> 16 & 127u) * 32u) << 4 | r >> 28;
}

/* Sample i of the input. */
static BF_HD uint32_t histogram_sample(enum histogram_input input, int bins, uint64_t seed,
                                       uint64_t i)
{
    return histogram_sample_of(input, bins, histogram_same_value(bins, seed),
                               histogram_bits(bins, seed, i));
}

#endif
