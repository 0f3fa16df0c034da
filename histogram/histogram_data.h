/* The inputs the tests and the benchmark count, and the bank model replays:
 * sample i of a stream is a pure function of (input, seed, i), the same on
 * the host and on the device. Each sample draws 32 random bits. */
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

/* Count trailing zeros of a nonzero word, portably. */
static BF_HD int histogram_ctz(uint32_t x)
{
    int n = 0;
    while (!(x & 1u)) {
        x >>= 1;
        ++n;
    }
    return n;
}

/* Sample i: a byte when bins is 256, a 16-bit value (bin = value >> 4) when
 * 4096. One-bank bytes come from {0, 32, ..., 224} (3-bit data scaled to 8
 * bits); one-bank 16-bit samples have bins 0, 32, ..., 4064. Skewed: the
 * bins fall in 16 blocks, block k taking 2^-(k+1) of the samples. */
static BF_HD uint32_t histogram_sample(enum histogram_input input, int bins, uint64_t seed,
                                       uint64_t i)
{
    uint32_t r = (uint32_t)(bf_random_bits(seed, i / 2) >> (32 * (i % 2)));
    uint32_t block = (uint32_t)histogram_ctz(r | 0x8000u); /* 0..15: P = 2^-(k+1) */
    if (bins == 256) {
        switch (input) {
        case HISTOGRAM_UNIFORM:
            return r >> 24;
        case HISTOGRAM_SAME:
            return (uint32_t)(bf_mix64(seed) & 0xffu);
        case HISTOGRAM_SKEWED:
            return block * 16u + (r >> 28);
        default:
            return (r >> 29) << 5;
        }
    }
    uint32_t low = r >> 28; /* the 4 bits below the bin */
    switch (input) {
    case HISTOGRAM_UNIFORM:
        return r >> 16;
    case HISTOGRAM_SAME:
        return (uint32_t)(bf_mix64(seed) & 0xffffu);
    case HISTOGRAM_SKEWED:
        return (block * 256u + (r >> 16 & 0xffu)) << 4 | low;
    default:
        return ((r >> 16 & 127u) * 32u) << 4 | low;
    }
}

#endif
