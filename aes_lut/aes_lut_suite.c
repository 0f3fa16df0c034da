/* The aes_lut family as the runner sees it: variants, modes and key sizes,
 * sizes, the model hook, the correctness test against OpenSSL's EVP (or,
 * built without OpenSSL, against the CPU reference) and the benchmark beside
 * the shared-memory bound of the same lookups (the variants' ceiling,
 * aes_lut_ceiling.h) and a device-to-device copy of the same bytes (memory's,
 * which no variant reaches: the lookups bind first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef AES_LUT_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#include "aes_lut/aes_lut.h"
#include "aes_lut/aes_lut_ceiling.h"
#include "aes_lut/aes_lut_data.h"
#include "aes_lut/aes_lut_model.h"
#include "aes_lut/aes_lut_ref.h"
#include "common/bench.h"
#include "common/ceilings.h"
#include "common/check.h"
#include "common/registry.h"
#include "common/validate.h"

extern const struct bf_family aes_lut_family;

/* The library's variants, and the suite's own fourth: replicated in its T0
 * layout on any GPU (aes_lut_run_layout), so that a GPU that takes T0T1 (the
 * H100) tests, profiles and times the layout of those that take T0. */
enum { REPLICATED_T0 = AES_LUT_VARIANTS, VARIANTS };
static const struct bf_variant variants[VARIANTS] = {
    [AES_LUT_SHARED] = {"shared", "4 T-tables, one shared copy: random bytes about 3-way, up to "
                                  "8-way"},
    [AES_LUT_CONSTANT] = {"constant", "4 T-tables in constant memory: no shared memory; a warp's "
                                      "about 30 distinct addresses served one after another"},
    [AES_LUT_REPLICATED] = {"replicated", "T0 and T1 in 32 copies (T0 alone where 3 blocks of "
                                          "64 KiB do not fit an SM), lane j in bank j: 1 way on "
                                          "any data"},
    [REPLICATED_T0] = {"replicated_t0", "replicated's T0 layout on any GPU (32 copies, rotated "
                                        "for T1-T3), as sm_75 to sm_89 and sm_120 run it: 1 way "
                                        "on any data"},
};

/* The variants are held to the lookups' bound (path 1), not to memory's: the
 * copies (path 0) stand beside them for what memory would allow. */
enum { PATH_MEMORY, PATH_LOOKUPS };
static const int paths[VARIANTS] = {[AES_LUT_SHARED] = PATH_LOOKUPS,
                                    [AES_LUT_CONSTANT] = PATH_LOOKUPS,
                                    [AES_LUT_REPLICATED] = PATH_LOOKUPS,
                                    [REPLICATED_T0] = PATH_LOOKUPS};

/* Types: key size and mode; onebank is ECB on plaintext that sends round 1's
 * lookups to one bank. */
static const char *const types[] = {
    "aes128-ctr", "aes192-ctr", "aes256-ctr",     "aes128-ecb",
    "aes192-ecb", "aes256-ecb", "aes128-onebank",
};
static void type_case(int type, uint64_t seed, struct aes_lut_case *c)
{
    static const int key_bytes[] = {16, 24, 32, 16, 24, 32, 16};
    aes_lut_case_make(c, type < 3 ? AES_LUT_CTR : AES_LUT_ECB,
                      type == 6 ? AES_LUT_ONEBANK : AES_LUT_RANDOM, key_bytes[type], seed);
}

/* A size is the message's length in bytes. The input starts size % 16 bytes
 * past a 16-byte boundary; the output is the input (in place) when size % 3
 * is 0, else starts (size / 16) % 16 bytes past one: the sizes cover aligned
 * and unaligned buffers both. ECB of a partial block must be refused. */
static uint64_t in_offset(int64_t n)
{
    return (uint64_t)(n % 16);
}
static int in_place(int64_t n)
{
    return n % 3 == 0;
}
static uint64_t out_offset(int64_t n)
{
    return (uint64_t)(n / 16 % 16);
}

/* Every edge: empty, one byte, a block either side, primes, many tiles, a
 * multiple of the tile in place (16 MiB + 11 is not); 1 GiB is the bench's,
 * checked there. */
static const struct bf_size test_sizes[] = {
    {1, {0}},    {1, {1}},     {1, {15}},      {1, {16}},       {1, {17}},
    {1, {31}},   {1, {32}},    {1, {33}},      {1, {1021}},     {1, {4096}},
    {1, {4099}}, {1, {65537}}, {1, {1000003}}, {1, {16777216}}, {1, {16777259}},
};
static const struct bf_size quick_sizes[] = {
    {1, {0}}, {1, {1}}, {1, {17}}, {1, {1021}}, {1, {4096}}, {1, {65537}},
};
/* 1 GiB far past L2; 16 MiB, in and out left in L2 (warm): the tables' speed
 * alone. */
static const struct bf_size bench_sizes[] = {{1, {1073741824}}, {1, {16777216}}};
/* For ncu: a few blocks, a grid of blocks (the grid is at most 4 blocks an
 * SM, replicated 3: every launch is one wave) and the bench's 1 GiB (many tiles a block).
 * The model of CTR is exact up to 4 MiB (AES_LUT_MODEL_EXACT) and samples
 * past it, so at 1 GiB tests/hw_check.sh holds the ECB types to ncu exactly
 * (exact at any size: the plaintext repeats) and the sampled CTR types, in a
 * run of their own, within 1%; the same kernel body. */
static const struct bf_size hw_sizes[] = {
    {1, {65537}}, {1, {1000003}}, {1, {4194304}}, {1, {1073741824}}};

/* The sweep: 2^12 ... 2^30 bytes (x4). */
static const struct bf_size sweep_sizes[] = {
    {1, {1ll << 12}}, {1, {1ll << 14}}, {1, {1ll << 16}}, {1, {1ll << 18}}, {1, {1ll << 20}},
    {1, {1ll << 22}}, {1, {1ll << 24}}, {1, {1ll << 26}}, {1, {1ll << 28}}, {1, {1ll << 30}},
};

static double test_bytes(int type, const struct bf_size *s)
{
    (void)type; /* every cipher the same bytes */
    return 2.0 * (double)s->dim[0] + 64.0;
}

static double bench_bytes(int type, const struct bf_size *s)
{
    (void)type;
    return 3.0 * (double)s->dim[0] + 64.0; /* the copy's destination too */
}

/* What the launchers refuse at a size: their own rule (aes_lut_refusal), for
 * the runner and for the launches the test expects refused. */
static const char *aes_lut_refuses(int variant, int type, const struct bf_size *s)
{
    (void)variant;
    struct aes_lut_case c;
    type_case(type, 0, &c);
    return aes_lut_refusal(c.mode == AES_LUT_ECB, s->dim[0]);
}

static int aes_lut_model(int variant, int type, const struct bf_size *size, uint64_t seed,
                         const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    struct aes_lut_case c;
    type_case(type, seed, &c);
    if (variant == REPLICATED_T0)
        return aes_lut_model_launch_layout(AES_LUT_LAYOUT_T0, &c, size->dim[0], rules, sites);
    return aes_lut_model_launch((enum aes_lut_variant)variant, &c, size->dim[0], rules, sites);
}

/* ---- the expected output ---- */

/* out = the encryption of in (n bytes) under case c, by the CPU reference. */
static void encrypt_ref(const struct aes_lut_case *c, uint8_t *out, const uint8_t *in, size_t n)
{
    struct aes_lut_ref_key k;
    aes_lut_ref_expand(&k, c->key, c->key_bytes);
    if (c->mode == AES_LUT_CTR)
        aes_lut_ref_ctr(&k, c->counter, out, in, n);
    else
        aes_lut_ref_ecb(&k, out, in, n);
}

#ifdef AES_LUT_HAVE_OPENSSL
/* The same by OpenSSL's EVP, as a user encrypting a file would (no padding);
 * in pieces of 2^28 bytes, since EVP takes an int length. */
static void encrypt_openssl(const struct aes_lut_case *c, uint8_t *out, const uint8_t *in, size_t n)
{
    const EVP_CIPHER *cipher = c->mode == AES_LUT_CTR ? (c->key_bytes == 16   ? EVP_aes_128_ctr()
                                                         : c->key_bytes == 24 ? EVP_aes_192_ctr()
                                                                              : EVP_aes_256_ctr())
                                                      : (c->key_bytes == 16   ? EVP_aes_128_ecb()
                                                         : c->key_bytes == 24 ? EVP_aes_192_ecb()
                                                                              : EVP_aes_256_ecb());
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx != NULL &&
             EVP_EncryptInit_ex(ctx, cipher, NULL, c->key,
                                c->mode == AES_LUT_CTR ? c->counter : NULL) == 1 &&
             EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
    for (size_t i = 0; ok && i < n; i += (size_t)1 << 28) {
        const size_t m = n - i < ((size_t)1 << 28) ? n - i : (size_t)1 << 28;
        int len = 0;
        ok = EVP_EncryptUpdate(ctx, out + i, &len, in + i, (int)m) == 1 && (size_t)len == m;
    }
    EVP_CIPHER_CTX_free(ctx);
    BF_CHECK_STATUS(ok, "EVP_EncryptUpdate", "OpenSSL failed");
}
#endif

/* The expected output: OpenSSL's where built with it (and, up to 1 MiB, the
 * reference's too, which must agree), else the reference's. */
static void expected(const struct aes_lut_case *c, uint8_t *want, const uint8_t *in, size_t n)
{
#ifdef AES_LUT_HAVE_OPENSSL
    encrypt_openssl(c, want, in, n);
    if (n <= ((size_t)1 << 20)) {
        uint8_t *ref = malloc(n ? n : 1);
        BF_CHECK_STATUS(ref != NULL, "malloc", "out of host memory");
        encrypt_ref(c, ref, in, n);
        BF_CHECK_STATUS(memcmp(ref, want, n) == 0, "aes_lut reference", "differs from OpenSSL");
        free(ref);
    }
#else
    encrypt_ref(c, want, in, n);
#endif
}

/* ---- one case on the device ---- */

struct data {
    struct aes_lut_case c;
    int64_t n;
    uint8_t *d_in_base, *d_out_base, *d_in, *d_out;
    uint8_t *want; /* host: the expected output (the untouched poison where refused) */
    int refused;   /* ECB of a partial block: the launcher must refuse it */
};

static void data_init(struct data *d, int type, const struct bf_size *s, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    type_case(type, seed, &d->c);
    d->n = s->dim[0];
    const size_t n = (size_t)d->n;
    d->refused = aes_lut_refuses(0, type, s) != NULL;
    BF_CHECK(cudaMalloc((void **)&d->d_in_base, n + 32));
    d->d_in = d->d_in_base + in_offset(d->n);
    if (in_place(d->n)) {
        d->d_out = d->d_in;
    } else {
        BF_CHECK(cudaMalloc((void **)&d->d_out_base, n + 32));
        d->d_out = d->d_out_base + out_offset(d->n);
    }
    uint8_t *plain = malloc(n ? n : 1);
    d->want = malloc(n ? n : 1);
    BF_CHECK_STATUS(plain != NULL && d->want != NULL, "malloc", "out of host memory");
    aes_lut_plain_fill(&d->c, plain, 0, n);
    BF_CHECK(cudaMemcpy(d->d_in, plain, n, cudaMemcpyHostToDevice));
    if (!d->refused)
        expected(&d->c, d->want, plain, n);
    else if (in_place(d->n))
        memcpy(d->want, plain, n); /* refused: nothing may change */
    else
        memset(d->want, 0xff, n); /* refused: the poison stays */
    free(plain);
}

static void data_free(struct data *d)
{
    BF_CHECK(cudaFree(d->d_in_base));
    BF_CHECK(cudaFree(d->d_out_base));
    free(d->want);
}

/* Variant v (REPLICATED_T0 the suite's) on d. */
static cudaError_t run(const struct data *d, int v, cudaStream_t stream)
{
    if (v == REPLICATED_T0)
        return aes_lut_run_layout(AES_LUT_LAYOUT_T0, d->c.mode == AES_LUT_CTR, d->c.key,
                                  d->c.key_bytes, d->c.counter, d->d_out, d->d_in, d->n, stream);
    if (d->c.mode == AES_LUT_CTR)
        return aes_lut_ctr((enum aes_lut_variant)v, d->c.key, d->c.key_bytes, d->c.counter,
                           d->d_out, d->d_in, d->n, stream);
    return aes_lut_ecb((enum aes_lut_variant)v, d->c.key, d->c.key_bytes, d->d_out, d->d_in, d->n,
                       stream);
}

/* In place the input is the output: it is restored before each run instead
 * of poisoned. A struct data *, as the bench's poison hook takes it. */
static cudaError_t prepare(void *arg)
{
    const struct data *d = arg;
    if (!in_place(d->n))
        return bf_poison(d->d_out, (size_t)d->n, 0);
    uint8_t *plain = malloc(d->n ? (size_t)d->n : 1);
    if (plain == NULL)
        return cudaErrorMemoryAllocation;
    aes_lut_plain_fill(&d->c, plain, 0, (uint64_t)d->n);
    cudaError_t err = cudaMemcpy(d->d_in, plain, (size_t)d->n, cudaMemcpyHostToDevice);
    free(plain);
    return err;
}

/* Every byte against the expected output. 0 if right. */
static int check(const struct data *d, char *why, size_t len)
{
    const size_t n = (size_t)d->n;
    uint8_t *got = malloc(n ? n : 1);
    BF_CHECK_STATUS(got != NULL, "malloc", "out of host memory");
    BF_CHECK(cudaMemcpy(got, d->d_out, n, cudaMemcpyDeviceToHost));
    size_t first, bad = bf_compare_exact(got, d->want, n, 1, &first);
    if (bad != 0)
        snprintf(why, len, "%zu of %zu bytes wrong%s; first byte %zu = 0x%02x, want 0x%02x", bad, n,
                 d->refused ? " (a refused call wrote)" : "", first, got[first], d->want[first]);
    free(got);
    return bad != 0;
}

static int aes_lut_test(int variant, int type, const struct bf_size *s, uint64_t seed, char *why,
                        size_t len)
{
    struct data d;
    data_init(&d, type, s, seed);
    BF_CHECK(prepare(&d));
    cudaError_t err = BF_PROFILED(run(&d, variant, 0));
    int bad;
    if (d.refused) {
        bad = err != cudaErrorInvalidValue;
        if (bad)
            snprintf(why, len, "ECB of %lld bytes: got %s, want cudaErrorInvalidValue",
                     (long long)d.n, cudaGetErrorName(err));
    } else {
        BF_CHECK(err);
        bad = 0;
    }
    BF_CHECK(cudaDeviceSynchronize());
    if (!bad)
        bad = check(&d, why, len);
    data_free(&d);
    return bad;
}

/* ---- benchmark ---- */

static cudaError_t run_variant(void *arg, int variant, cudaStream_t stream)
{
    return run(arg, variant, stream);
}

static cudaError_t run_copy(void *arg, cudaStream_t stream)
{
    const struct data *d = arg;
    return bf_copy_ceiling(d->d_out, d->d_in, (size_t)d->n, stream);
}

static cudaError_t run_copy_kernel(void *arg, cudaStream_t stream)
{
    const struct data *d = arg;
    return bf_copy_kernel_ceiling(d->d_out, d->d_in, (size_t)d->n, stream);
}

/* The lookups' bound: the cipher's 16 table reads a round, for its rounds. */
struct lookups {
    const struct data *d;
    int rounds, sms;
};
static cudaError_t run_lookups(void *arg, cudaStream_t stream)
{
    const struct lookups *l = arg;
    return aes_lut_lookup_ceiling(l->d->d_out, l->d->d_in, l->d->n / 16, l->rounds, l->sms, stream);
}

static int check_variant(void *arg, int variant, char *why, size_t len)
{
    (void)variant;
    return check(arg, why, len);
}

static int aes_lut_bench(unsigned mask, int type, const struct bf_size *s,
                         const struct bf_bench_ctx *ctx, struct bf_table *t)
{
    struct data d;
    data_init(&d, type, s, ctx->seed);
    const double bytes = 2.0 * (double)d.n; /* read and written */
    struct bf_bench b;
    bf_bench_begin(&b, &aes_lut_family, mask, type, s, ctx, t);
    const int aligned = ((uintptr_t)d.d_in | (uintptr_t)d.d_out) % 16 == 0;
    struct lookups look = {&d, d.c.key_bytes / 4 + 6, ctx->dev->sms};
    if (!in_place(d.n) && aligned && d.n % 16 == 0)
        bf_bench_ceiling(&b, "table lookups (ceiling)", PATH_LOOKUPS, bytes,
                         (struct bf_job){run_lookups, &look, NULL, NULL});
    if (!in_place(d.n))
        bf_bench_ceiling(&b, "cudaMemcpy (copy ceiling)", PATH_MEMORY, bytes,
                         (struct bf_job){run_copy, &d, NULL, NULL});
    if (!in_place(d.n) && aligned)
        bf_bench_ceiling(&b, "copy kernel (ceiling)", PATH_MEMORY, bytes,
                         (struct bf_job){run_copy_kernel, &d, NULL, NULL});
    bf_bench_variants(&b, bytes, (struct bf_variant_job){run_variant, &d, prepare, check_variant});
    int failed = bf_bench_end(&b, bytes, bytes <= (double)ctx->dev->l2_bytes);
    data_free(&d);
    return failed;
}

const struct bf_family aes_lut_family = {
    .name = "aes_lut",
    .summary = "AES-128/192/256 CTR and ECB from T-tables, any length and alignment",
    .variants = variants,
    .nvariants = VARIANTS,
    .paths = paths,
    BF_ARRAY(types, types),
    .ndims = 1,
    .min_dim = 0,
    .model_types_alike = 0,
    .size_form = "BYTES",
    BF_SIZES(BF_SIZES_TEST, test_sizes),
    BF_SIZES(BF_SIZES_QUICK, quick_sizes),
    BF_SIZES(BF_SIZES_BENCH, bench_sizes),
    BF_SIZES(BF_SIZES_HW, hw_sizes),
    BF_SIZES(BF_SIZES_SWEEP, sweep_sizes),
    .sweep_types = 1u << 0 | 1u << 2, /* aes128-ctr, aes256-ctr */
    .test_bytes = test_bytes,
    .bench_bytes = bench_bytes,
    .model = aes_lut_model,
    .refuses = aes_lut_refuses,
    .test = aes_lut_test,
    .bench = aes_lut_bench,
};
