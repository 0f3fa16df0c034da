#include "aes_lut/aes_lut_model.h"

#include <math.h>
#include <string.h>

#include "aes_lut/aes_lut_ref.h"

static struct bf_site site(const char *name, struct bf_access access)
{
    struct bf_site s = bf_site_new(name, access);
    return s;
}

/* ---- AES, to know every lookup's byte ---- */

/* T_0 from the reference's S-box (aes_lut_layout.h says what it holds). The
 * model computes the states with T-tables for speed; test_aes_lut.c checks
 * them against the reference's byte-by-byte states. */
static uint32_t te0[256];

static void te0_init(void)
{
    if (te0[0] != 0)
        return;
    for (int x = 0; x < 256; ++x) {
        const uint32_t s = aes_lut_ref_sbox[x], s2 = (s << 1 ^ (s & 0x80 ? 0x11b : 0)) & 0xff;
        te0[x] = s2 << 24 | s << 16 | s << 8 | (s2 ^ s);
    }
}

static uint32_t ror(uint32_t v, int bits)
{
    return bits == 0 ? v : v >> bits | v << (32 - bits);
}

struct key {
    uint32_t rk[60]; /* FIPS-197's w[i] as big-endian words */
    int rounds;
};

static void key_of(const struct aes_lut_case *c, struct key *k)
{
    struct aes_lut_ref_key ref;
    aes_lut_ref_expand(&ref, c->key, c->key_bytes);
    k->rounds = ref.rounds;
    for (int i = 0; i < 4 * (ref.rounds + 1); ++i)
        k->rk[i] = (uint32_t)ref.w[i][0] << 24 | (uint32_t)ref.w[i][1] << 16 |
                   (uint32_t)ref.w[i][2] << 8 | ref.w[i][3];
}

/* The cipher's input for AES block b: the counter block counter + b (CTR) or
 * the plaintext's block b (ECB), as 4 big-endian words. */
static void block_input(const struct aes_lut_case *c, uint64_t b, uint32_t in[4])
{
    uint8_t bytes[16];
    if (c->mode == AES_LUT_CTR) {
        memcpy(bytes, c->counter, 16);
        aes_lut_ref_ctr_add(bytes, b);
    } else {
        aes_lut_plain_fill(c, bytes, 16u * b, 16);
    }
    for (int w = 0; w < 4; ++w)
        in[w] = (uint32_t)bytes[4 * w] << 24 | (uint32_t)bytes[4 * w + 1] << 16 |
                (uint32_t)bytes[4 * w + 2] << 8 | bytes[4 * w + 3];
}

/* state[r]: the state entering round r + 1 (after AddRoundKey), r < Nr. */
static void states_of(const struct key *k, const uint32_t in[4], uint32_t state[14][4])
{
    uint32_t s[4], t[4];
    for (int col = 0; col < 4; ++col)
        s[col] = in[col] ^ k->rk[col];
    for (int r = 1; r <= k->rounds; ++r) {
        memcpy(state[r - 1], s, sizeof s);
        if (r == k->rounds)
            break;
        for (int col = 0; col < 4; ++col)
            t[col] = te0[s[col] >> 24] ^ ror(te0[s[(col + 1) & 3] >> 16 & 0xff], 8) ^
                     ror(te0[s[(col + 2) & 3] >> 8 & 0xff], 16) ^
                     ror(te0[s[(col + 3) & 3] & 0xff], 24) ^ k->rk[4 * r + col];
        memcpy(s, t, sizeof t);
    }
}

/* The byte a round looks up for output column `col` from table `table`: row
 * `table` of column col + table (ShiftRows), as the kernels read it. */
static uint32_t lookup_byte(const uint32_t s[4], int col, int table)
{
    return s[(col + table) & 3] >> (24 - 8 * table) & 0xff;
}

/* ---- counting ---- */

void aes_lut_model_request(const struct bf_bank_rules *rules, enum aes_lut_layout layout, int table,
                           int sbox, const uint32_t x[32], uint32_t active, struct bf_site *s)
{
    uint32_t word[32];
    for (int lane = 0; lane < 32; ++lane)
        word[lane] = sbox ? aes_lut_sbox_word(layout, x[lane], lane)
                          : aes_lut_word(layout, table, x[lane], lane);
    bf_site_add_words(s, rules, word, active);
}

/* Where one replay's requests go: the sites of round 1, the middle rounds
 * and the last round. */
struct sink {
    enum aes_lut_layout layout;
    const struct bf_bank_rules *rules;
    struct bf_site *round[3];
};

/* Group g: the warp request of AES blocks 32 g .. 32 g + 31, lanes past the
 * last block (nb) idle. Every round reads 16 bytes of each lane's state: for
 * output column col, T_table of row `table`; the last round the S-box. */
static void replay_group(struct sink *k, const struct aes_lut_case *c, const struct key *key,
                         int64_t nb, int64_t g)
{
    static uint32_t state[32][14][4];
    uint32_t in[4], x[32] = {0};
    const int64_t left = nb - 32 * g;
    const int lanes = left >= 32 ? 32 : (int)left;
    const uint32_t active = lanes == 32 ? ~0u : (1u << lanes) - 1u;
    for (int lane = 0; lane < lanes; ++lane) {
        block_input(c, (uint64_t)(32 * g + lane), in);
        states_of(key, in, state[lane]);
    }
    for (int r = 1; r <= key->rounds; ++r) {
        const int which = r == 1 ? 0 : r < key->rounds ? 1 : 2;
        for (int col = 0; col < 4; ++col)
            for (int table = 0; table < 4; ++table) {
                for (int lane = 0; lane < lanes; ++lane)
                    x[lane] = lookup_byte(state[lane][r - 1], col, table);
                aes_lut_model_request(k->rules, k->layout, table, r == key->rounds, x, active,
                                      k->round[which]);
            }
    }
}

static void clear_sink(struct sink *k, struct bf_site one[3], const struct sink *from)
{
    *k = *from;
    for (int i = 0; i < 3; ++i) {
        one[i] = site(from->round[i]->name, from->round[i]->access);
        k->round[i] = &one[i];
    }
}

/* Adds `part` to `into` scaled by num / den: exact for the requests (every
 * full group makes as many), rounded for the wavefronts. */
static void add_scaled(struct sink *into, const struct bf_site part[3], uint64_t num, uint64_t den)
{
    for (int i = 0; i < 3; ++i) {
        struct bf_site *s = into->round[i];
        s->requests += part[i].requests / den * num;
        s->ideal += part[i].ideal / den * num;
        s->wavefronts += (uint64_t)llround((double)part[i].wavefronts * num / den);
        if (part[i].worst_active != 0 && (s->worst_active == 0 || part[i].worst > s->worst)) {
            memcpy(s->worst_addr, part[i].worst_addr, sizeof s->worst_addr); /* for --lanes */
            s->worst_active = part[i].worst_active;
        }
        if (part[i].worst > s->worst)
            s->worst = part[i].worst;
    }
}

/* Every group's requests: ECB's repeat every AES_LUT_PERIOD blocks (replay
 * one period and multiply); CTR's past AES_LUT_MODEL_EXACT full groups are
 * sampled. Returns 1 if sampled. */
static int replay(struct sink *k, const struct aes_lut_case *c, int64_t nb)
{
    struct key key;
    te0_init();
    key_of(c, &key);
    const int64_t full = nb / 32, cycle = AES_LUT_PERIOD / 32;
    struct bf_site one[3];
    struct sink part;
    int sampled = 0;
    if (c->mode == AES_LUT_ECB && full >= cycle) {
        clear_sink(&part, one, k);
        for (int64_t g = 0; g < cycle; ++g)
            replay_group(&part, c, &key, nb, g);
        add_scaled(k, one, (uint64_t)(full / cycle), 1);
        for (int64_t g = 0; g < full % cycle; ++g)
            replay_group(k, c, &key, nb, g);
    } else if (full > AES_LUT_MODEL_EXACT) {
        clear_sink(&part, one, k);
        for (int64_t i = 0; i < AES_LUT_MODEL_SAMPLE; ++i)
            replay_group(&part, c, &key, nb, i * full / AES_LUT_MODEL_SAMPLE);
        add_scaled(k, one, (uint64_t)full, AES_LUT_MODEL_SAMPLE);
        sampled = 1;
    } else {
        for (int64_t g = 0; g < full; ++g)
            replay_group(k, c, &key, nb, g);
    }
    if (nb % 32 != 0)
        replay_group(k, c, &key, nb, full);
    return sampled;
}

/* AES blocks a launch encrypts, or -1 when there is no launch. */
static int64_t launch_blocks(const struct aes_lut_case *c, int64_t n)
{
    if (n <= 0 || aes_lut_refusal(c->mode == AES_LUT_ECB, n) != NULL)
        return -1;
    return (n + 15) / 16;
}

int aes_lut_model_launch_layout(enum aes_lut_layout layout, const struct aes_lut_case *c, int64_t n,
                                const struct bf_bank_rules *rules,
                                struct bf_site sites[BF_MAX_SITES])
{
    /* [layout][site][sampled]; the constant variant's reads are ldc, the
     * constant cache's serialisation counted in distinct addresses. */
    static const char *const names[AES_LUT_LAYOUTS][3][2] = {
        [AES_LUT_LAYOUT_SHARED] = {{"round 1: ld Ti[x]", "round 1: ld Ti[x] (sampled)"},
                                   {"middle rounds: ld Ti[x]", "middle rounds: ld Ti[x] (sampled)"},
                                   {"last round: ld T0[x] (S-box byte)",
                                    "last round: ld T0[x] (S-box byte; sampled)"}},
        [AES_LUT_LAYOUT_CONSTANT] = {{"round 1: ldc Ti[x]", "round 1: ldc Ti[x] (sampled)"},
                                     {"middle rounds: ldc Ti[x]",
                                      "middle rounds: ldc Ti[x] (sampled)"},
                                     {"last round: ldc T0[x] (S-box byte)",
                                      "last round: ldc T0[x] (S-box byte; sampled)"}},
        [AES_LUT_LAYOUT_T0T1] = {{"round 1: ld T0/T1[x*64+lane]",
                                  "round 1: ld T0/T1[x*64+lane] (sampled)"},
                                 {"middle rounds: ld T0/T1[x*64+lane]",
                                  "middle rounds: ld T0/T1[x*64+lane] (sampled)"},
                                 {"last round: ld T0[x*64+lane] (S-box byte)",
                                  "last round: ld T0[x*64+lane] (S-box byte; sampled)"}},
        [AES_LUT_LAYOUT_T0] = {{"round 1: ld T0[x*32+lane]", "round 1: ld T0[x*32+lane] (sampled)"},
                               {"middle rounds: ld T0[x*32+lane]",
                                "middle rounds: ld T0[x*32+lane] (sampled)"},
                               {"last round: ld T0[x*32+lane] (S-box byte)",
                                "last round: ld T0[x*32+lane] (S-box byte; sampled)"}},
    };
    const uint32_t words = aes_lut_words(layout);
    const int first = words > 0; /* site 0: the set-up, where there is shared memory */
    const struct bf_access lookup = words > 0 ? bf_ld(4) : bf_ldc(4);
    if (words > 0)
        sites[0] = site(layout == AES_LUT_LAYOUT_T0T1 ? "setup: st.128 [32 copies of T0 and T1]"
                        : layout == AES_LUT_LAYOUT_T0 ? "setup: st.128 [32 copies of T0]"
                                                      : "setup: st.128 [T0..T3]",
                        bf_st(16));
    for (int i = 0; i < 3; ++i)
        sites[first + i] = site(names[layout][i][0], lookup);
    const int64_t nb = launch_blocks(c, n);
    if (nb < 0)
        return first + 3;

    if (words > 0) { /* every block writes its tables as 16-byte stores, thread t vector t */
        const uint64_t grid =
            (uint64_t)aes_lut_grid(layout, nb, rules->sms, bf_sm_limits_of(rules->cc));
        struct bf_site setup = site(sites[0].name, sites[0].access);
        uint32_t addr[32];
        for (uint32_t v = 0; v < words / 4; v += 32) {
            for (int lane = 0; lane < 32; ++lane)
                addr[lane] = 16u * (v + (uint32_t)lane);
            const uint32_t left = words / 4 - v;
            bf_site_add(&setup, rules, addr, left >= 32 ? ~0u : (1u << left) - 1u);
        }
        bf_site_merge(&sites[0], &setup, grid);
    }

    struct sink k = {layout, rules, {&sites[first], &sites[first + 1], &sites[first + 2]}};
    if (replay(&k, c, nb))
        for (int i = 0; i < 3; ++i)
            sites[first + i].name = names[layout][i][1];
    return first + 3;
}

int aes_lut_model_launch(enum aes_lut_variant variant, const struct aes_lut_case *c, int64_t n,
                         const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    return aes_lut_model_launch_layout(aes_lut_layout_of(variant, bf_sm_limits_of(rules->cc)), c, n,
                                       rules, sites);
}
