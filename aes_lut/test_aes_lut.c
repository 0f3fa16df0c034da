/* The aes_lut family on the CPU: the reference against FIPS-197 and NIST SP
 * 800-38A, the counter's carry, the layouts' banks, and the model on random
 * and adversarial data, checked against a replay through the reference. */
#include <stdio.h>
#include <string.h>

#include "aes_lut/aes_lut_data.h"
#include "aes_lut/aes_lut_layout.h"
#include "aes_lut/aes_lut_model.h"
#include "aes_lut/aes_lut_ref.h"
#include "common/bank_model.h"
#include "tests/unit.h"

/* Hex text to bytes; returns the byte count. */
static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t)v;
    }
    return n;
}

static int same_hex(const uint8_t *got, const char *want_hex)
{
    uint8_t want[64];
    size_t n = unhex(want_hex, want);
    return memcmp(got, want, n) == 0;
}

/* FIPS-197 Appendix C: the example vectors of the three key sizes. */
static void test_fips197(void)
{
    static const char *const ct[3] = {"69c4e0d86a7b0430d8cdb78070b4c55a",
                                      "dda97ca4864cdfe06eaf70a0ec0d7191",
                                      "8ea2b7ca516745bfeafc49904b496089"};
    uint8_t key[32], pt[16], out[16];
    for (int i = 0; i < 32; ++i)
        key[i] = (uint8_t)i;
    unhex("00112233445566778899aabbccddeeff", pt);
    for (int k = 0; k < 3; ++k) {
        struct aes_lut_ref_key rk;
        EXPECT_EQ(aes_lut_ref_expand(&rk, key, 16 + 8 * k), 0, "expand");
        EXPECT_EQ(rk.rounds, 10 + 2 * k, "rounds");
        aes_lut_ref_block(&rk, pt, out);
        EXPECT(same_hex(out, ct[k]), "FIPS-197 C.%d (AES-%d)", k + 1, 128 + 64 * k);
    }
    struct aes_lut_ref_key rk;
    EXPECT_EQ(aes_lut_ref_expand(&rk, key, 20), -1, "a 20-byte key is refused");
}

/* NIST SP 800-38A F.1.1, F.1.3, F.1.5 (ECB) and F.5.1, F.5.3, F.5.5 (CTR). */
static void test_sp800_38a(void)
{
    static const char *const keys[3] = {
        "2b7e151628aed2a6abf7158809cf4f3c", "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"};
    static const char *const ecb[3] = {
        "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
        "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
        "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eef"
        "ef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e",
        "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870"
        "b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7"};
    static const char *const ctr[3] = {
        "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
        "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
        "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"
        "1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050",
        "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
        "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"};
    uint8_t pt[64], key[32], counter[16], out[64], buf[64];
    unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
          "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
          pt);
    unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", counter);
    for (int k = 0; k < 3; ++k) {
        struct aes_lut_ref_key rk;
        aes_lut_ref_expand(&rk, key, (int)unhex(keys[k], key));
        aes_lut_ref_ecb(&rk, out, pt, 64);
        EXPECT(same_hex(out, ecb[k]), "SP 800-38A F.1.%d (ECB-AES%d)", 2 * k + 1, 128 + 64 * k);
        aes_lut_ref_ctr(&rk, counter, out, pt, 64);
        EXPECT(same_hex(out, ctr[k]), "SP 800-38A F.5.%d (CTR-AES%d)", 2 * k + 1, 128 + 64 * k);
        memcpy(buf, pt, 64); /* in place, and a partial last block */
        aes_lut_ref_ctr(&rk, counter, buf, buf, 37);
        EXPECT(memcmp(buf, out, 37) == 0 && memcmp(buf + 37, pt + 37, 27) == 0,
               "CTR in place, 37 bytes: the first 37 of the 64, the rest untouched");
    }
}

/* The counter carries across all 128 bits: past 2^32, 2^64 and 2^128. */
static void test_counter(void)
{
    uint8_t c[16], want[16];
    unhex("000102030405060708090a0bffffffff", c);
    aes_lut_ref_ctr_add(c, 1);
    EXPECT(same_hex(c, "000102030405060708090a0c00000000"), "carry past 2^32");
    unhex("0001020304050607ffffffffffffffff", c);
    aes_lut_ref_ctr_add(c, 1);
    EXPECT(same_hex(c, "00010203040506080000000000000000"), "carry past 2^64");
    memset(c, 0xff, 16);
    aes_lut_ref_ctr_add(c, 1);
    memset(want, 0, 16);
    EXPECT(memcmp(c, want, 16) == 0, "2^128 - 1 + 1 wraps to 0");
    unhex("00000000000000000000000000000005", c);
    aes_lut_ref_ctr_add(c, 0xfffffffffffffffeull);
    EXPECT(same_hex(c, "00000000000000010000000000000003"), "a 64-bit add carries");

    /* The keystream across the wrap: block 1 of counter 2^128 - 1 is E(0). */
    struct aes_lut_ref_key rk;
    uint8_t key[16] = {1, 2, 3}, zero[32] = {0}, out[32], e0[16];
    aes_lut_ref_expand(&rk, key, 16);
    memset(c, 0xff, 16);
    aes_lut_ref_ctr(&rk, c, out, zero, 32);
    aes_lut_ref_block(&rk, zero, e0);
    EXPECT(memcmp(out + 16, e0, 16) == 0, "CTR across 2^128: E(0) follows E(2^128 - 1)");

    /* The cases' counters: the near-wrap kinds are 0-2 blocks short. */
    int kinds[4] = {0}, bad = 0;
    for (uint64_t seed = 0; seed < 400; ++seed) {
        struct aes_lut_case k;
        aes_lut_case_make(&k, AES_LUT_CTR, AES_LUT_RANDOM, 16, seed);
        ++kinds[k.counter_kind];
        const int ones = k.counter_kind == AES_LUT_CTR_WRAP32    ? 4
                         : k.counter_kind == AES_LUT_CTR_WRAP64  ? 8
                         : k.counter_kind == AES_LUT_CTR_WRAP128 ? 16
                                                                 : 0;
        if (ones) {
            memcpy(c, k.counter, 16);
            aes_lut_ref_ctr_add(c, 3);
            for (int i = 16 - ones; i < 16; ++i)
                bad += c[i] > 2; /* wrapped within 3 blocks: the low bytes are 0..2 */
        }
    }
    EXPECT(bad == 0 && kinds[0] && kinds[1] && kinds[2] && kinds[3],
           "counter kinds %d %d %d %d, %d not near the wrap", kinds[0], kinds[1], kinds[2],
           kinds[3], bad);
}

/* Replicated, both layouts: lane j reads bank j for every table and index;
 * T0T1: T_i[x] in the word of T_{i % 2}[x], addressed by one PRMT (x in
 * byte 1, the lane's part in byte 0); T0: T_i[x] in the word of T_0[x]. One
 * copy: T_i[x] in bank x % 32. Every layout's words inside the tables, each
 * (table, x) one word, as aes_lut_entry says. */
static void test_layouts(void)
{
    int bad_bank = 0, bad_entry = 0, bad_perm = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int t = 0; t < 4; ++t)
            for (uint32_t x = 0; x < 256; ++x) {
                for (int two = 0; two < 2; ++two) {
                    const enum aes_lut_layout l = two ? AES_LUT_LAYOUT_T0T1 : AES_LUT_LAYOUT_T0;
                    const uint32_t w = aes_lut_word(l, t, x, lane);
                    bad_bank += w % 32 != (uint32_t)lane || w >= aes_lut_words(l) ||
                                aes_lut_sbox_word(l, x, lane) % 32 != (uint32_t)lane;
                    int table;
                    uint32_t xx;
                    aes_lut_entry(l, w, &table, &xx);
                    bad_entry += table != (two ? t % 2 : 0) || xx != x ||
                                 w - aes_lut_lane_word(l, lane) != aes_lut_entry_word(l, t, x);
                }
                const uint32_t part = 4u * aes_lut_word(AES_LUT_LAYOUT_T0T1, t, 0u, lane);
                bad_perm += part > 0xffu || aes_lut_byte_perm_address(x, part) !=
                                                4u * aes_lut_word(AES_LUT_LAYOUT_T0T1, t, x, lane);
                const uint32_t w = aes_lut_word(AES_LUT_LAYOUT_SHARED, t, x, lane);
                bad_bank += w % 32 != x % 32 || w >= aes_lut_words(AES_LUT_LAYOUT_SHARED);
                int table;
                uint32_t xx;
                aes_lut_entry(AES_LUT_LAYOUT_SHARED, w, &table, &xx);
                bad_entry += table != t || xx != x;
            }
    EXPECT(bad_bank == 0 && bad_entry == 0 && bad_perm == 0,
           "%d off their banks, %d entries wrong, %d PRMT addresses wrong", bad_bank, bad_entry,
           bad_perm);
    /* T0, word by word: 32 x + lane, as the 32 KiB kernel addressed it */
    EXPECT(aes_lut_word(AES_LUT_LAYOUT_T0, 3, 5u, 7) == 5u * 32u + 7u &&
               aes_lut_word(AES_LUT_LAYOUT_T0T1, 3, 5u, 7) == 5u * 64u + 32u + 7u,
           "T0: word 32 x + lane; T0T1: 64 x + 32 (i %% 2) + lane");
    EXPECT_EQ(4 * aes_lut_words(AES_LUT_LAYOUT_T0T1), 64 * 1024, "T0 and T1: 64 KiB");
    EXPECT_EQ(4 * aes_lut_words(AES_LUT_LAYOUT_T0), 32 * 1024, "T0 alone: 32 KiB");
    EXPECT_EQ(4 * aes_lut_words(AES_LUT_LAYOUT_SHARED), 4 * 1024, "one copy: 4 KiB");
    EXPECT_EQ(aes_lut_words(AES_LUT_LAYOUT_CONSTANT), 0, "constant: no shared memory");
    /* the grid's shares cover every tile */
    for (int64_t nb = 1; nb < 200000; nb = nb * 3 + 1) {
        const int64_t grid = aes_lut_grid(AES_LUT_LAYOUT_SHARED, nb, 132, bf_sm_limits_of(90)),
                      share = aes_lut_share(nb, grid);
        EXPECT(grid >= 1 && grid * share * AES_LUT_TILE >= nb &&
                   (grid - 1) * share * AES_LUT_TILE < nb,
               "%lld blocks: grid %lld, share %lld", (long long)nb, (long long)grid,
               (long long)share);
    }
    /* The rule on each GPU: T0T1 where 3 blocks of 64 KiB (each with its
     * 1 KiB system share) fit an SM, else T0; the blocks an SM of the layout
     * taken (4 of 256 threads, T0T1 3, fewer where the tables do not fit:
     * common/sm_limits.h), and of the other layout, as replicated_t0 or a
     * T0T1 there would run. The other variants keep their own layout. */
    static const struct {
        int cc;
        enum aes_lut_layout layout;
        int t0t1, t0;
    } gpus[] = {{90, AES_LUT_LAYOUT_T0T1, 3, 4},  {100, AES_LUT_LAYOUT_T0T1, 3, 4},
                {103, AES_LUT_LAYOUT_T0T1, 3, 4}, {80, AES_LUT_LAYOUT_T0, 2, 4},
                {87, AES_LUT_LAYOUT_T0, 2, 4},    {89, AES_LUT_LAYOUT_T0, 1, 3},
                {86, AES_LUT_LAYOUT_T0, 1, 3},    {120, AES_LUT_LAYOUT_T0, 1, 3},
                {75, AES_LUT_LAYOUT_T0, 1, 2},    {70, AES_LUT_LAYOUT_T0, 1, 1}};
    for (size_t g = 0; g < sizeof gpus / sizeof *gpus; ++g) {
        const struct bf_sm_limits sm = bf_sm_limits_of(gpus[g].cc);
        const enum aes_lut_layout l = aes_lut_layout_of(AES_LUT_REPLICATED, sm);
        EXPECT(l == gpus[g].layout &&
                   aes_lut_layout_of(AES_LUT_SHARED, sm) == AES_LUT_LAYOUT_SHARED &&
                   aes_lut_layout_of(AES_LUT_CONSTANT, sm) == AES_LUT_LAYOUT_CONSTANT,
               "sm_%d: replicated takes %s", gpus[g].cc, l == AES_LUT_LAYOUT_T0T1 ? "T0T1" : "T0");
        EXPECT(aes_lut_blocks_per_sm(AES_LUT_LAYOUT_T0T1, sm) == gpus[g].t0t1 &&
                   aes_lut_blocks_per_sm(AES_LUT_LAYOUT_T0, sm) == gpus[g].t0 &&
                   aes_lut_blocks_per_sm(AES_LUT_LAYOUT_SHARED, sm) == (gpus[g].cc == 70 ? 1 : 4) &&
                   aes_lut_blocks_per_sm(AES_LUT_LAYOUT_CONSTANT, sm) == (gpus[g].cc == 70 ? 1 : 4),
               "sm_%d: T0T1 %d, T0 %d, shared %d blocks an SM", gpus[g].cc,
               aes_lut_blocks_per_sm(AES_LUT_LAYOUT_T0T1, sm),
               aes_lut_blocks_per_sm(AES_LUT_LAYOUT_T0, sm),
               aes_lut_blocks_per_sm(AES_LUT_LAYOUT_SHARED, sm));
        EXPECT_EQ(aes_lut_grid(l, INT64_C(1) << 30, 100, sm),
                  100 * (l == AES_LUT_LAYOUT_T0T1 ? gpus[g].t0t1 : gpus[g].t0),
                  "a large input: blocks an SM x SMs");
    }
}

static struct bf_site ld_site(void)
{
    struct bf_site s = bf_site_new("x", (struct bf_access){BF_LOAD, 4, 0});
    return s;
}

/* One request: the fast path agrees with bf_site_add. */
static int one_request(enum aes_lut_layout v, int table, const uint32_t x[32])
{
    struct bf_site fast = ld_site(), general = ld_site();
    aes_lut_model_request(&bf_rules_sm90, v, table, 0, x, ~0u, &fast);
    aes_lut_model_request(&bf_rules_cc1x, v, table, 0, x, ~0u, &general); /* not the fast path */
    uint32_t addr[32];
    for (int l = 0; l < 32; ++l)
        addr[l] = 4u * aes_lut_word(v, table, x[l], l);
    general = ld_site();
    bf_site_add(&general, &bf_rules_sm90, addr, ~0u);
    EXPECT(fast.wavefronts == general.wavefronts, "fast %llu, general %llu",
           (unsigned long long)fast.wavefronts, (unsigned long long)general.wavefronts);
    return (int)fast.wavefronts;
}

static void test_requests(void)
{
    uint32_t same[32], bank0[32], x[32];
    for (int l = 0; l < 32; ++l) {
        same[l] = 0x53;
        bank0[l] = 32u * (uint32_t)(l % 8);
    }
    for (int t = 0; t < 4; ++t) {
        EXPECT_EQ(one_request(AES_LUT_LAYOUT_SHARED, t, same), 1, "one byte, one copy");
        EXPECT_EQ(one_request(AES_LUT_LAYOUT_SHARED, t, bank0), 8, "one bank, one copy: 8 words");
        EXPECT_EQ(one_request(AES_LUT_LAYOUT_T0T1, t, same), 1, "one byte, replicated T0T1");
        EXPECT_EQ(one_request(AES_LUT_LAYOUT_T0T1, t, bank0), 1, "one bank, replicated T0T1");
        EXPECT_EQ(one_request(AES_LUT_LAYOUT_T0, t, same), 1, "one byte, replicated T0");
        EXPECT_EQ(one_request(AES_LUT_LAYOUT_T0, t, bank0), 1, "one bank, replicated T0");
    }
    int worst[2] = {0, 0};
    for (uint64_t r = 0; r < 20000; ++r) {
        for (int l = 0; l < 32; ++l)
            x[l] = (uint32_t)(bf_random_bits(9, r * 32 + (uint64_t)l) & 0xff);
        for (int two = 0; two < 2; ++two) {
            const int w =
                one_request(two ? AES_LUT_LAYOUT_T0T1 : AES_LUT_LAYOUT_T0, (int)(r % 4), x);
            worst[two] = w > worst[two] ? w : worst[two];
        }
    }
    EXPECT(worst[0] == 1 && worst[1] == 1,
           "replicated: one wavefront on 20000 random requests (T0 %d, T0T1 %d)", worst[0],
           worst[1]);
}

/* The model's replay against one built here from the reference's byte-by-byte
 * states: every group of 32 blocks, every round, every lookup. */
static void replay_by_reference(enum aes_lut_layout v, const struct aes_lut_case *c, int64_t n,
                                struct bf_site out[3])
{
    struct aes_lut_ref_key rk;
    aes_lut_ref_expand(&rk, c->key, c->key_bytes);
    for (int i = 0; i < 3; ++i) {
        out[i] = ld_site();
        if (v == AES_LUT_LAYOUT_CONSTANT)
            out[i].access = bf_ldc(4);
    }
    const int64_t nb = (n + 15) / 16;
    static uint8_t state[32][14][16];
    for (int64_t g = 0; g * 32 < nb; ++g) {
        const int lanes = nb - 32 * g >= 32 ? 32 : (int)(nb - 32 * g);
        for (int l = 0; l < lanes; ++l) {
            uint8_t in[16];
            const uint64_t b = (uint64_t)(32 * g + l);
            if (c->mode == AES_LUT_CTR) {
                memcpy(in, c->counter, 16);
                aes_lut_ref_ctr_add(in, b);
            } else {
                aes_lut_plain_fill(c, in, 16 * b, 16);
            }
            aes_lut_ref_states(&rk, in, state[l]);
        }
        for (int r = 1; r <= rk.rounds; ++r)
            for (int col = 0; col < 4; ++col)
                for (int t = 0; t < 4; ++t) {
                    uint32_t x[32] = {0};
                    for (int l = 0; l < lanes; ++l)
                        x[l] = state[l][r - 1][4 * ((col + t) % 4) + t]; /* row t, column col+t */
                    aes_lut_model_request(&bf_rules_sm90, v, t, r == rk.rounds, x,
                                          lanes == 32 ? ~0u : (1u << lanes) - 1u,
                                          &out[r == 1          ? 0
                                               : r < rk.rounds ? 1
                                                               : 2]);
                }
    }
}

static double ways(const struct bf_site *s)
{
    return s->ideal ? (double)s->wavefronts / (double)s->ideal : 0;
}

static void test_model(void)
{
    struct bf_site sites[BF_MAX_SITES], want[3];
    const struct {
        enum aes_lut_mode mode;
        enum aes_lut_input input;
        int key_bytes;
        int64_t n;
    } cases[] = {
        {AES_LUT_CTR, AES_LUT_RANDOM, 16, 16 * 1000 + 5},
        {AES_LUT_CTR, AES_LUT_RANDOM, 32, 16 * 33},
        {AES_LUT_ECB, AES_LUT_RANDOM, 24, 16 * 517},
        {AES_LUT_ECB, AES_LUT_ONEBANK, 16, 16 * 4099},
        /* past two periods of the plaintext, and a partial group: one period x 2 + the rest */
        {AES_LUT_ECB, AES_LUT_RANDOM, 16, 16 * (2 * AES_LUT_PERIOD + 45)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        struct aes_lut_case c;
        aes_lut_case_make(&c, cases[i].mode, cases[i].input, cases[i].key_bytes, 7 + i);
        for (int v = 0; v < AES_LUT_LAYOUTS; ++v) {
            const enum aes_lut_layout var = (enum aes_lut_layout)v;
            const int first = var != AES_LUT_LAYOUT_CONSTANT; /* the constant variant: no set-up */
            EXPECT_EQ(aes_lut_model_launch_layout(var, &c, cases[i].n, &bf_rules_sm90, sites),
                      first + 3, "sites");
            replay_by_reference(var, &c, cases[i].n, want);
            for (int s = 0; s < 3; ++s)
                EXPECT(sites[s + first].requests == want[s].requests &&
                           sites[s + first].wavefronts == want[s].wavefronts &&
                           sites[s + first].worst == want[s].worst &&
                           sites[s + first].access.op == want[s].access.op,
                       "case %zu layout %d site %d: model %llu/%llu, reference replay %llu/%llu", i,
                       v, s, (unsigned long long)sites[s + first].wavefronts,
                       (unsigned long long)sites[s + first].requests,
                       (unsigned long long)want[s].wavefronts,
                       (unsigned long long)want[s].requests);
            if (var == AES_LUT_LAYOUT_CONSTANT)
                EXPECT(sites[0].ideal == sites[0].requests && sites[0].worst <= 32 &&
                           sites[1].wavefronts > sites[1].requests,
                       "constant: ideal 1 a read, at most 32 addresses, more than 1 on average");
            if (var == AES_LUT_LAYOUT_T0T1 || var == AES_LUT_LAYOUT_T0)
                for (int s = 1; s < 4; ++s)
                    EXPECT(sites[s].wavefronts == sites[s].requests, "replicated: 1 way, %s",
                           sites[s].name);
            if (var == AES_LUT_LAYOUT_SHARED && cases[i].input == AES_LUT_ONEBANK)
                EXPECT(sites[1].worst == 8 && ways(&sites[1]) > 7.9,
                       "one bank: round 1 8-way (3 lanes in the last group), got %.2f",
                       ways(&sites[1]));
            if (var == AES_LUT_LAYOUT_SHARED && cases[i].input == AES_LUT_RANDOM &&
                cases[i].n > 16000)
                EXPECT(ways(&sites[2]) > 2.5 && ways(&sites[2]) < 4.0,
                       "random: middle rounds %.2f-way", ways(&sites[2]));
        }
        /* requests: 16 a round for each group of 32 blocks */
        const int64_t groups = (cases[i].n / 16 + 31) / 32;
        EXPECT_EQ(sites[1].requests, 16 * groups, "round 1 requests");
        EXPECT_EQ(sites[3].requests, 16 * groups, "last round requests");
    }
    /* No launch: sites without requests. */
    struct aes_lut_case c;
    aes_lut_case_make(&c, AES_LUT_ECB, AES_LUT_RANDOM, 16, 1);
    EXPECT_EQ(aes_lut_model_launch(AES_LUT_SHARED, &c, 17, &bf_rules_sm90, sites), 4, "sites");
    EXPECT(sites[0].requests == 0 && sites[1].requests == 0, "ECB of 17 bytes: no launch");
    EXPECT(aes_lut_model_launch(AES_LUT_CONSTANT, &c, 17, &bf_rules_sm90, sites) == 3 &&
               sites[0].requests == 0,
           "constant, ECB of 17 bytes: no launch");
    /* The variant replays the layout its GPU takes (the rules' cc): on sm_90
     * T0T1, on sm_89 T0, site for site as the layouts' own replays. Set-up:
     * 64 KiB or 32 KiB of 16-byte stores, 4 wavefronts a request, each block. */
    struct bf_bank_rules sm89 = bf_rules_sm90;
    sm89.cc = 89;
    sm89.sms = 128;
    aes_lut_case_make(&c, AES_LUT_CTR, AES_LUT_RANDOM, 16, 1);
    for (int two = 0; two < 2; ++two) {
        const struct bf_bank_rules *rules = two ? &bf_rules_sm90 : &sm89;
        struct bf_site layout[BF_MAX_SITES];
        const int64_t n = 16 * AES_LUT_TILE * 3 - 11; /* 3 tiles: 3 blocks; the last 5 bytes */
        aes_lut_model_launch(AES_LUT_REPLICATED, &c, n, rules, sites);
        aes_lut_model_launch_layout(two ? AES_LUT_LAYOUT_T0T1 : AES_LUT_LAYOUT_T0, &c, n, rules,
                                    layout);
        int same = 1;
        for (int s = 0; s < 4; ++s)
            same &= strcmp(sites[s].name, layout[s].name) == 0 &&
                    sites[s].requests == layout[s].requests &&
                    sites[s].wavefronts == layout[s].wavefronts;
        EXPECT(same && strstr(sites[1].name, two ? "x*64+lane" : "x*32+lane") != NULL &&
                   sites[2].wavefronts == sites[2].requests,
               "replicated on sm_%d: the %s sites (%s)", rules->cc, two ? "T0T1" : "T0",
               sites[1].name);
        EXPECT(sites[0].requests == 3u * (two ? 128 : 64) &&
                   sites[0].wavefronts == 4 * sites[0].requests,
               "replicated set-up on sm_%d: %d requests of 4 wavefronts, 3 blocks: %llu / %llu",
               rules->cc, two ? 128 : 64, (unsigned long long)sites[0].wavefronts,
               (unsigned long long)sites[0].requests);
    }
}

/* The launchers' rule (aes_lut_refusal): its edges. */
static void test_refusal(void)
{
    const int64_t most = ((int64_t)1 << 62) - 1;
    EXPECT(aes_lut_refusal(0, 0) == NULL && aes_lut_refusal(0, 1) == NULL &&
               aes_lut_refusal(0, most) == NULL && aes_lut_refusal(1, most - 15) == NULL,
           "CTR of any length below 2^62, ECB of whole blocks, taken");
    EXPECT(aes_lut_refusal(0, -1) != NULL && aes_lut_refusal(1, 17) != NULL &&
               aes_lut_refusal(0, most + 1) != NULL && aes_lut_refusal(0, INT64_MAX) != NULL &&
               aes_lut_refusal(1, INT64_MAX - 15) != NULL,
           "a negative length, ECB of a partial block, 2^62 bytes or more refused");
}

int main(void)
{
    test_refusal();
    test_fips197();
    test_sp800_38a();
    test_counter();
    test_layouts();
    test_requests();
    test_model();
    return unit_finish("test_aes_lut");
}
