/* The cases the tests and the benchmark encrypt, and the bank model replays:
 * key, starting counter and plaintext are pure functions of the seed, so a
 * failure is reproduced from its seed alone. */
#ifndef BANKFREE_AES_LUT_DATA_H
#define BANKFREE_AES_LUT_DATA_H

#include <stdint.h>
#include <string.h>

#include "common/data.h"

enum aes_lut_mode { AES_LUT_CTR, AES_LUT_ECB };

enum aes_lut_input {
    AES_LUT_RANDOM,  /* random plaintext */
    AES_LUT_ONEBANK, /* ECB: plaintext that sends every lookup of round 1 to bank 0 of a one-copy
                      * table (the byte after AddRoundKey is 32 (b % 8) for block b) */
};

/* The plaintext repeats every AES_LUT_PERIOD 16-byte blocks (256 KiB). ECB
 * encrypts equal blocks alike, so its lookups repeat too and the model
 * replays one period and multiplies, exact at any size. CTR's lookups depend
 * on the counter, not the plaintext: they never repeat (aes_lut_model.c). */
#define AES_LUT_PERIOD (1u << 14)

/* How a case's starting counter is chosen: at random, or 0, 1 or 2 blocks
 * short of carrying out of its low 32, low 64 or all 128 bits (the last wraps
 * to 0). Drawn from the seed. */
enum aes_lut_counter {
    AES_LUT_CTR_RANDOM,
    AES_LUT_CTR_WRAP32,
    AES_LUT_CTR_WRAP64,
    AES_LUT_CTR_WRAP128
};

struct aes_lut_case {
    enum aes_lut_mode mode;
    enum aes_lut_input input;
    int key_bytes;
    enum aes_lut_counter counter_kind;
    uint8_t key[32];
    uint8_t counter[16];
    uint64_t seed;
};

/* Byte i of 16 * count random bytes of stream `seed`. */
static inline uint8_t aes_lut_random_byte(uint64_t seed, uint64_t i)
{
    return (uint8_t)(bf_random_bits(seed, i / 8u) >> (8u * (i % 8u)));
}

static inline void aes_lut_case_make(struct aes_lut_case *c, enum aes_lut_mode mode,
                                     enum aes_lut_input input, int key_bytes, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->mode = mode;
    c->input = input;
    c->key_bytes = key_bytes;
    c->seed = seed;
    const uint64_t key_seed = bf_mix64(seed ^ 0x6b6579u), ctr_seed = bf_mix64(seed ^ 0x637472u);
    for (int i = 0; i < key_bytes; ++i)
        c->key[i] = aes_lut_random_byte(key_seed, (uint64_t)i);
    for (int i = 0; i < 16; ++i)
        c->counter[i] = aes_lut_random_byte(ctr_seed, (uint64_t)i);
    const uint64_t r = bf_mix64(ctr_seed);
    c->counter_kind = (enum aes_lut_counter)(r % 4u);
    const int ones = c->counter_kind == AES_LUT_CTR_WRAP32    ? 4
                     : c->counter_kind == AES_LUT_CTR_WRAP64  ? 8
                     : c->counter_kind == AES_LUT_CTR_WRAP128 ? 16
                                                              : 0;
    if (ones > 0) { /* the low `ones` bytes: 2^(8 ones) - 1 - short */
        const uint8_t short_by = (uint8_t)(r / 4u % 3u);
        memset(c->counter + 16 - ones, 0xff, (size_t)ones);
        c->counter[15] = (uint8_t)(0xffu - short_by);
    }
}

/* Byte i of the plaintext. */
static inline uint8_t aes_lut_plain(const struct aes_lut_case *c, uint64_t i)
{
    const uint64_t period_bytes = 16ull * AES_LUT_PERIOD;
    if (c->input == AES_LUT_ONEBANK)
        return (uint8_t)(c->key[i % 16u] ^ (32u * (i / 16u % 8u)));
    return aes_lut_random_byte(bf_mix64(c->seed ^ 0x706c61696eu), i % period_bytes);
}

/* n bytes of plaintext from byte `first` on: one period computed, the rest
 * copied (a period of the one-bank input, 128 bytes, divides it). */
static inline void aes_lut_plain_fill(const struct aes_lut_case *c, uint8_t *out, uint64_t first,
                                      uint64_t n)
{
    const uint64_t period_bytes = 16ull * AES_LUT_PERIOD;
    const uint64_t head = n < period_bytes ? n : period_bytes;
    for (uint64_t i = 0; i < head; ++i)
        out[i] = aes_lut_plain(c, first + i);
    for (uint64_t done = head; done < n;) { /* out[i] = out[i - period], a doubling copy */
        uint64_t step = done < n - done ? done : n - done;
        memcpy(out + done, out, (size_t)step);
        done += step;
    }
}

#endif
