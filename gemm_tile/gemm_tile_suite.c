/* The gemm_tile family as the runner sees it: variants, output types, sizes
 * (M x N x K), the model hook, the correctness test (against the float64 CPU
 * reference on small shapes and cublasGemmEx on large ones, relative L2
 * error under 1e-3, C poisoned first with the bytes around it, C one
 * element into its allocation where M is odd, a K that is not a multiple of
 * 8 refused) and the benchmark beside cublasGemmEx and the two paths'
 * instruction ceilings, in the same run.
 *
 * The bench's rate is GFLOP/s (rate_unit): every row passes its floating-point
 * operations as its "bytes", so of_ceiling and the ratios are ratios of FLOP
 * rates. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "common/bench.h"
#include "common/check.h"
#include "common/registry.h"
#include "common/validate.h"
#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_ceiling.h"
#include "gemm_tile/gemm_tile_model.h"
#include "gemm_tile/gemm_tile_ref.h"
#include "gemm_tile/gemm_tile_refusal.h"

extern const struct bf_family gemm_tile_family;

/* Each path has its own instruction ceiling (the bench's), and each variant
 * is held to its path's. */
enum { PATH_MMA_SYNC, PATH_WGMMA };
static const int paths[GEMM_TILE_VARIANTS] = {[GEMM_TILE_WGMMA_INTERLEAVE] = PATH_WGMMA,
                                              [GEMM_TILE_WGMMA_SW32] = PATH_WGMMA,
                                              [GEMM_TILE_WGMMA_SW64] = PATH_WGMMA,
                                              [GEMM_TILE_WGMMA_SW128] = PATH_WGMMA};

static const struct bf_variant variants[GEMM_TILE_VARIANTS] = {
    [GEMM_TILE_ROWMAJOR] = {"rowmajor", "128-byte tile rows: ldmatrix 8-way (8 rows of one 16-byte "
                                        "column in 4 banks)"},
    [GEMM_TILE_PADDED] = {"padded", "144-byte tile rows (+16 B): ldmatrix 1 way, cp.async 2.6-way "
                                    "(rows start inside a 128-byte line)"},
    [GEMM_TILE_SWIZZLED] = {"swizzled", "128-byte rows, chunk ^= row % 8 (CuTe Swizzle<3,3,3>): "
                                        "ldmatrix and cp.async 1 way, no spare bytes"},
    [GEMM_TILE_WGMMA_INTERLEAVE] = {"wgmma_interleave",
                                    "sm_90a: TMA and wgmma, no swizzle: 8 x 16-byte core matrices, "
                                    "TMA boxes 16 bytes wide"},
    [GEMM_TILE_WGMMA_SW32] = {"wgmma_sw32", "sm_90a: TMA and wgmma, 32-byte swizzle (32-byte "
                                            "boxes, chunk ^= (row / 4) % 2)"},
    [GEMM_TILE_WGMMA_SW64] = {"wgmma_sw64", "sm_90a: TMA and wgmma, 64-byte swizzle (64-byte "
                                            "boxes, chunk ^= (row / 2) % 4)"},
    [GEMM_TILE_WGMMA_SW128] = {"wgmma_sw128", "sm_90a: TMA and wgmma, 128-byte swizzle: the "
                                              "swizzled tile, written by the copy engine"},
};

/* The wgmma variants need sm_90a code in this build and a GPU of compute
 * capability 9.0; the mma.sync ones sm_80 (cp.async, mma.m16n8k16) and, for
 * padded, a block of 108 KiB of shared memory. */
static const char *gemm_tile_unavailable(int variant, const struct bf_device *dev)
{
    static char why[200];
    const enum gemm_tile_variant v = (enum gemm_tile_variant)variant;
    const cudaError_t built = gemm_tile_supported(v, -1);
    if (built != cudaSuccess)
        return "this build has no sm_90a code (its CUDA architectures have no 90)";
    if (dev == NULL)
        return NULL;
    const int cc = 10 * dev->cc_major + dev->cc_minor;
    if (v >= GEMM_TILE_MMA_SYNC_VARIANTS && cc != 90)
        snprintf(why, sizeof why, "wgmma needs a GPU of compute capability 9.0; this one is %d.%d",
                 dev->cc_major, dev->cc_minor);
    else if (v < GEMM_TILE_MMA_SYNC_VARIANTS && cc < 80)
        snprintf(why, sizeof why,
                 "cp.async and mma.m16n8k16 need compute capability 8.0; this GPU is %d.%d",
                 dev->cc_major, dev->cc_minor);
    else if (v < GEMM_TILE_MMA_SYNC_VARIANTS &&
             gemm_tile_bn_fitting(v, 1, 1, 1, dev->sm.block_shared) == 0)
        snprintf(why, sizeof why,
                 "its tile's 3 stages need %u bytes of shared memory a block; this GPU gives %d",
                 gemm_tile_smem_bytes(v, GEMM_TILE_BN_NARROW), dev->sm.block_shared);
    else if (gemm_tile_supported(v, dev->id) != cudaSuccess)
        snprintf(why, sizeof why,
                 "this build has no code of compute capability 8.0 or later "
                 "for this GPU (only a trap)");
    else
        return NULL;
    return why;
}

/* The output type: fp32 C, or C rounded to fp16. Shared memory is the same. */
static const char *const types[] = {"f32", "f16"};
enum { TYPE_F32, TYPE_F16 };

/* Sizes are M x N x K. The small shapes (8, 8 x 24 x 8, 16, 24,
 * 40, 1 x 1 x 8, primes for M and N), edge tiles on every side, K tails of
 * the 64-wide K tile, interior and edge blocks in one launch (300 x 600 x
 * 128; they run different copy code), two K the launcher must refuse (12,
 * 20), and the large ones checked against cublasGemmEx, among them 2000 x
 * 3000 x 264: edges on both sides and a K tail, and 2000 x 3000 x 256 and
 * x 192, where the mma.sync kernel's blocks go from an interior tile to an
 * edge one and back with the next tile's first K tiles copied in this
 * one's last (with 3 K tiles the first of them still copies the tile's own
 * third). On 132 SMs the wgmma kernel takes its middle tile (128 x 128,
 * clusters of two tile rows) at 2000 x 3000, and at 500 x 4000 x 200 (edges on both
 * sides, a K tail), 501 x 4000 x 200 (the same with C one element in:
 * stored directly) and 1000 x 4200 x 264 (two tiles a block, the ring
 * wrapping from one to the next); 4000 x 3000 x 264 is 2000 x 3000 x 264
 * in its wide tile; 128 x 8456 x 72 is one tile row in the 96 tile (89
 * blocks, no cluster; every consumer's rows inside C, so fp16 goes out
 * four halves a thread and fp32 in pairs unpredicated, but the last tile,
 * 8 columns wide), 1 x 12673 x 72 in the middle tile alone (100 blocks;
 * the 96 tile's 133 would take two rounds; the last tile 1 column wide).
 * The narrow tile splits K over clusters of 2 (gemm_tile_wgmma_split) at
 * 129 x 200 x 8200 (parts of 64 and 65 K tiles, edges, a K tail), 1 x 300
 * x 2056 (M = 1, parts of 16 and 17 K tiles: the fewest that split) and
 * 384 x 704 x 8192 (66 clusters: a whole H100). It takes its 176 tile at
 * 1000 x 14336 x 4096 (5 rounds, edges in M and N), its 168 tile at 1700
 * x 2600 x 200 (two rounds, edges in M, N and K) and runs C in two
 * launches (gemm_tile_wgmma_first_columns) at 257 x 11624 x 5184: a round
 * of wide tiles over the first 8448 columns, one of middle ones over the
 * rest. (8192^3 is the bench's and 4096^3 and 1000^3 the hw list's,
 * which gpu.gemm_tile.bench runs, checking C too.) */
static const struct bf_size test_sizes[] = {
    {3, {8, 8, 8}},          {3, {8, 24, 8}},          {3, {16, 16, 16}},
    {3, {24, 24, 24}},       {3, {40, 40, 40}},        {3, {1, 1, 8}},
    {3, {1, 1, 12}},         {3, {16, 16, 20}},        {3, {7, 13, 8}},
    {3, {13, 7, 24}},        {3, {31, 37, 40}},        {3, {127, 131, 64}},
    {3, {129, 127, 72}},     {3, {257, 509, 200}},     {3, {1, 300, 2056}},
    {3, {517, 1, 136}},      {3, {300, 600, 128}},     {3, {1700, 2600, 200}},
    {3, {8192, 1024, 8192}}, {3, {1000, 14336, 4096}}, {3, {2000, 3000, 264}},
    {3, {2000, 3000, 256}},  {3, {2000, 3000, 192}},   {3, {257, 11624, 5184}},
    {3, {128, 8456, 72}},    {3, {1, 12673, 72}},      {3, {500, 4000, 200}},
    {3, {501, 4000, 200}},   {3, {1000, 4200, 264}},   {3, {4000, 3000, 264}},
    {3, {129, 200, 8200}},   {3, {384, 704, 8192}},
};
/* For the sanitizers: 1700 x 2600 has more tiles than an H100 has SMs, so
 * both kernels' blocks take two (edges too): the wgmma kernel's in its 168
 * tile (B's shares overlapping; with K 384 its 5-stage ring wraps, 12 K
 * tiles a block), and with K 128 the mma.sync kernel copies the next tile's
 * K tiles while it multiplies this one's (with K 16, one K tile, it does
 * not); 3000 x 2600 x 16 does the same in the wgmma kernel's wide tile. The
 * smaller sizes run both kernels' narrow tiles, 501 x 2200 x 72 the wgmma
 * kernel's middle one with C stored directly, 257 x 8449 x 72 its 168 tile
 * and 257 x 5801 x 72 its 176 one (C stored directly, N odd); 65 x 200 x
 * 8200 its narrow tile's K split over clusters of 2, 7 x 8500 x 2056 and 64
 * x 8456 x 72 its 96 tile (M short of a consumer's rows; the first
 * consumer's inside) and 7 x 12700 x 2056 its middle tile alone at one tile
 * row, and 1 x 16904 x 10304 two launches (132 middle tiles alone, then the
 * last 8 columns' narrow tile with its K split) (these four checked against
 * the CPU's reference: cuBLAS's split-K kernels, which a larger size calls,
 * carry races and uninitialized reads of their own under the sanitizers). */
static const struct bf_size quick_sizes[] = {
    {3, {1, 1, 8}},         {3, {40, 40, 40}},      {3, {127, 131, 64}},   {3, {257, 509, 200}},
    {3, {300, 600, 128}},   {3, {16, 16, 20}},      {3, {1700, 2600, 16}}, {3, {1700, 2600, 128}},
    {3, {501, 2200, 72}},   {3, {3000, 2600, 16}},  {3, {65, 200, 8200}},  {3, {7, 8500, 2056}},
    {3, {1, 16904, 10304}}, {3, {257, 8449, 72}},   {3, {7, 12700, 2056}}, {3, {64, 8456, 72}},
    {3, {257, 5801, 72}},   {3, {1700, 2600, 384}},
};
static const struct bf_size bench_sizes[] = {
    {3, {4096, 4096, 4096}}, {3, {8192, 8192, 8192}}, {3, {8192, 1024, 8192}}};
/* For ncu: sizes of under one wave of wide tiles on 132 SMs (32 and 128),
 * one with edge tiles, and the bench's 4096 (512 wide tiles, four waves).
 * On the Hopper path 1024^3 and 1000^3 run the narrow tile (128 blocks),
 * 512 x 4096 x 1024 the middle one (128 x 128, clusters of 2), the other
 * two the wide one; the mma.sync path runs its narrow tile at 1024^3,
 * 1000^3 and 512 x 4096 x 1024. One tile row of A (M = 37: the Hopper
 * path's short A box) is not here: the mma.sync path's cp.async copies that
 * zero-fill most of a tile's rows cost other than the model says
 * (docs/notes/gemm_tile/hardware-counters.md, "One tile row of A"). 512 x
 * 512 x 8192 splits the Hopper narrow tile's K in 2 (the partials' pushes
 * and reads); 128 x 11008 x 1024 runs its 96 tile and 128 x 14336 x 1024
 * its middle tile, alone (one tile row: the whole B tile a block, no
 * multicast); 512 x 11008 x 1024 the 168 tile (two rounds, B's shares
 * overlapping), 512 x 11200 x 1024 the 176 tile (two rounds), 512^3 the
 * thin tile (64 blocks of 128 x 32); 264 x 11624 x 5184 two launches, wide
 * tiles then middle ones (ncu sums both; C on 16 bytes, so staged, as the
 * model takes it). Its edge rows (8 of A, 104 of B) are whole cp.async
 * instructions of 4 rows on the mma.sync path: an instruction that copies
 * some rows and zero-fills others costs more than the model says (258 rows:
 * 4 wavefronts more each, docs/bank-rules.md). */
static const struct bf_size hw_sizes[] = {
    {3, {1024, 1024, 1024}}, {3, {1000, 1000, 1000}}, {3, {512, 4096, 1024}},
    {3, {2048, 2048, 512}},  {3, {4096, 4096, 4096}}, {3, {512, 512, 8192}},
    {3, {128, 11008, 1024}}, {3, {128, 14336, 1024}}, {3, {264, 11624, 5184}},
    {3, {512, 11008, 1024}}, {3, {512, 11200, 1024}}, {3, {512, 512, 512}}};

/* The sweep: cubes 256 ... 8192 (x2), a wide short one (N = 1024), and a
 * transformer layer's linear layers, y = x W^T with W stored N x K
 * row-major (this TN layout): M tokens 128, 512, 1000 (edge tiles) and
 * 4096 by N x K of 4096 x 4096 (attention), 11008 x 4096 and 4096 x 11008
 * (Llama 2 7B's MLP up and down), 14336 x 4096 (Llama 3 8B's MLP up);
 * 4096 x 4096 x 4096 is a cube already. */
static const struct bf_size sweep_sizes[] = {
    {3, {256, 256, 256}},     {3, {512, 512, 512}},     {3, {1024, 1024, 1024}},
    {3, {2048, 2048, 2048}},  {3, {4096, 4096, 4096}},  {3, {8192, 8192, 8192}},
    {3, {8192, 1024, 8192}},  {3, {128, 4096, 4096}},   {3, {128, 11008, 4096}},
    {3, {128, 4096, 11008}},  {3, {128, 14336, 4096}},  {3, {512, 4096, 4096}},
    {3, {512, 11008, 4096}},  {3, {512, 4096, 11008}},  {3, {512, 14336, 4096}},
    {3, {1000, 4096, 4096}},  {3, {1000, 11008, 4096}}, {3, {1000, 4096, 11008}},
    {3, {1000, 14336, 4096}}, {3, {4096, 11008, 4096}}, {3, {4096, 4096, 11008}},
    {3, {4096, 14336, 4096}},
};

/* Above this many multiply-adds the expected C comes from cublasGemmEx (fp32
 * out), not from the CPU (1 x 16904 x 10304, 1.7 x 10^8, still from the
 * CPU: the sanitizers run it). */
#define REF_CPU_MACS (1ull << 28)
#define TOLERANCE    1e-3

static int out_bytes(int type)
{
    return type == TYPE_F16 ? 2 : 4;
}

static double device_bytes(const struct bf_size *s, int type)
{
    const double m = (double)s->dim[0], n = (double)s->dim[1], k = (double)s->dim[2];
    return 2.0 * (m + n) * k + (out_bytes(type) + 4.0) * m * n + 256.0;
}
static double test_bytes(int type, const struct bf_size *s)
{
    return device_bytes(s, type);
}
static double bench_bytes(int type, const struct bf_size *s)
{
    return device_bytes(s, type) + 4.0 * 1024 * GEMM_TILE_CEILING_THREADS; /* the sink */
}

/* What gemm_tile_f32 and gemm_tile_f16 refuse at a size: the launchers' own
 * rule (gemm_tile_refusal), for the runner and for the launches the test
 * expects refused. */
static const char *gemm_tile_refuses(int variant, int type, const struct bf_size *s)
{
    (void)type;
    return gemm_tile_refusal((enum gemm_tile_variant)variant, s->dim[0], s->dim[1], s->dim[2]);
}

static int gemm_tile_model(int variant, int type, const struct bf_size *size, uint64_t seed,
                           const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    (void)seed; /* the addresses do not depend on the data */
    return gemm_tile_model_launch((enum gemm_tile_variant)variant, size->dim[0], size->dim[1],
                                  size->dim[2], out_bytes(type), rules, sites);
}

/* ---- one case on the device ---- */

struct data {
    int64_t m, n, k;
    int type, refused;
    size_t c_bytes;
    uint16_t *d_a, *d_b;
    void *d_c; /* C: one element into d_c_alloc where M is odd */
    void *d_c_alloc;
    float *d_want; /* cublasGemmEx's fp32 C, for the large cases */
    double *want;  /* host: the expected C (NULL when refused) */
    cublasHandle_t cublas;
};

static void cublas_ok(cublasStatus_t st, const char *call)
{
    if (st != CUBLAS_STATUS_SUCCESS)
        fprintf(stderr, "bankfree: %s: %s\n", call, cublasGetStatusString(st));
    BF_CHECK_STATUS(st == CUBLAS_STATUS_SUCCESS, call, "cuBLAS failed");
}

/* C (row-major m x n) = A (row-major m x k) * B (column-major k x n) is, in
 * cuBLAS's column-major terms, C^T (n x m, ld n) = B^T * A^T with B stored k
 * x n (ld k, transposed: CUBLAS_OP_T) and A^T stored k x m (ld k,
 * CUBLAS_OP_N): the "TN" GEMM. fp32 compute; C in fp32 or fp16. */
static cublasStatus_t cublas_gemm(const struct data *d, void *c, int out16, cudaStream_t stream)
{
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = cublasSetStream(d->cublas, stream);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    return cublasGemmEx(d->cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int)d->n, (int)d->m, (int)d->k, &one,
                        d->d_b, CUDA_R_16F, (int)d->k, d->d_a, CUDA_R_16F, (int)d->k, &zero, c,
                        out16 ? CUDA_R_16F : CUDA_R_32F, (int)d->n, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT);
}

static int cublas_fits(const struct data *d)
{
    return d->m <= 0x7fffffff && d->n <= 0x7fffffff && d->k <= 0x7fffffff;
}

/* Random A and B in (-1, 1) from the seed; the expected C from the CPU
 * (small) or from cublasGemmEx (large, or always when `by_cublas`). */
static void data_init(struct data *d, int variant, int type, const struct bf_size *s, uint64_t seed,
                      int by_cublas)
{
    memset(d, 0, sizeof *d);
    d->m = s->dim[0];
    d->n = s->dim[1];
    d->k = s->dim[2];
    d->type = type;
    d->refused = gemm_tile_refuses(variant, type, s) != NULL;
    const size_t na = (size_t)(d->m * d->k), nb = (size_t)(d->n * d->k), nc = (size_t)(d->m * d->n);
    d->c_bytes = nc * (size_t)out_bytes(type);
    uint16_t *a = malloc(na * 2), *b = malloc(nb * 2);
    BF_CHECK_STATUS(a != NULL && b != NULL, "malloc", "out of host memory");
    for (size_t i = 0; i < na; ++i)
        a[i] = gemm_tile_ref_random_half(seed, i);
    for (size_t i = 0; i < nb; ++i)
        b[i] = gemm_tile_ref_random_half(seed ^ 0x5851f42d4c957f2dull, i);
    BF_CHECK(cudaMalloc((void **)&d->d_a, na * 2));
    BF_CHECK(cudaMalloc((void **)&d->d_b, nb * 2));
    /* C need only be aligned to its elements: where M is odd the test puts it
     * one element into the allocation (so that neither the pairs nor TMA's
     * 16-byte rule hold), else at its start. */
    BF_CHECK(cudaMalloc(&d->d_c_alloc, d->c_bytes + 16));
    d->d_c = (char *)d->d_c_alloc + (d->m % 2 ? out_bytes(type) : 0);
    BF_CHECK(cudaMemcpy(d->d_a, a, na * 2, cudaMemcpyHostToDevice));
    BF_CHECK(cudaMemcpy(d->d_b, b, nb * 2, cudaMemcpyHostToDevice));
    const int large = (double)d->m * (double)d->n * (double)d->k > (double)REF_CPU_MACS;
    if ((large || by_cublas) && cublas_fits(d))
        cublas_ok(cublasCreate(&d->cublas), "cublasCreate");
    if (!d->refused) {
        d->want = malloc(nc * sizeof *d->want);
        BF_CHECK_STATUS(d->want != NULL, "malloc", "out of host memory");
        if ((large || by_cublas) && d->cublas != NULL) {
            float *got = malloc(nc * sizeof *got);
            BF_CHECK_STATUS(got != NULL, "malloc", "out of host memory");
            BF_CHECK(cudaMalloc((void **)&d->d_want, nc * sizeof(float)));
            /* initcheck does not see cuBLAS's kernels write: without this it
             * calls every byte copied back uninitialized. */
            BF_CHECK(cudaMemset(d->d_want, 0, nc * sizeof(float)));
            cublas_ok(cublas_gemm(d, d->d_want, 0, 0), "cublasGemmEx");
            BF_CHECK(cudaMemcpy(got, d->d_want, nc * sizeof(float), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < nc; ++i)
                d->want[i] = got[i];
            free(got);
        } else {
            gemm_tile_ref(d->want, a, b, d->m, d->n, d->k);
        }
    }
    free(a);
    free(b);
}

static void data_free(struct data *d)
{
    if (d->cublas != NULL)
        cublas_ok(cublasDestroy(d->cublas), "cublasDestroy");
    BF_CHECK(cudaFree(d->d_a));
    BF_CHECK(cudaFree(d->d_b));
    BF_CHECK(cudaFree(d->d_c_alloc));
    BF_CHECK(cudaFree(d->d_want));
    free(d->want);
}

static cudaError_t run(const struct data *d, enum gemm_tile_variant v, cudaStream_t stream)
{
    if (d->type == TYPE_F16)
        return gemm_tile_f16(v, (uint16_t *)d->d_c, d->d_a, d->d_b, d->m, d->n, d->k, stream);
    return gemm_tile_f32(v, (float *)d->d_c, d->d_a, d->d_b, d->m, d->n, d->k, stream);
}

/* C's allocation, poisoned whole (the bytes around C too). */
static cudaError_t poison_c(const struct data *d)
{
    return bf_poison(d->d_c_alloc, d->c_bytes + 16, 0);
}

/* C against the expected: relative L2 error under TOLERANCE (a poisoned,
 * unwritten element is NaN and fails), and the bytes of the allocation
 * around C still poison; refused, C must still be poison too. */
static int check(const struct data *d, char *why, size_t len)
{
    const size_t nc = (size_t)(d->m * d->n),
                 before = (size_t)((char *)d->d_c - (char *)d->d_c_alloc);
    void *got = malloc(d->c_bytes);
    BF_CHECK_STATUS(got != NULL, "malloc", "out of host memory");
    BF_CHECK(cudaMemcpy(got, d->d_c, d->c_bytes, cudaMemcpyDeviceToHost));
    uint8_t guard[16]; /* the allocation's bytes before C and after it */
    BF_CHECK(cudaMemcpy(guard, d->d_c_alloc, before, cudaMemcpyDeviceToHost));
    BF_CHECK(cudaMemcpy(guard + before, (char *)d->d_c + d->c_bytes, 16 - before,
                        cudaMemcpyDeviceToHost));
    size_t outside = 0;
    for (size_t i = 0; i < 16; ++i)
        outside += guard[i] != 0xff;
    int bad = outside != 0;
    if (bad)
        snprintf(why, len, "%zu bytes written outside C (C %zu bytes into its allocation)", outside,
                 before);
    else if (d->refused) {
        size_t touched = 0;
        for (size_t i = 0; i < d->c_bytes; ++i)
            touched += ((const uint8_t *)got)[i] != 0xff;
        bad = touched != 0;
        if (bad)
            snprintf(why, len, "refused k = %lld, yet %zu bytes of C changed", (long long)d->k,
                     touched);
    } else {
        const double err = d->type == TYPE_F16
                               ? gemm_tile_ref_rel_l2_f16((const uint16_t *)got, d->want, nc)
                               : gemm_tile_ref_rel_l2_f32((const float *)got, d->want, nc);
        bad = !(err < TOLERANCE);
        if (bad)
            snprintf(why, len, "relative L2 error %.3g (want < %g) against %s", err, TOLERANCE,
                     d->d_want != NULL ? "cublasGemmEx" : "the float64 reference");
    }
    free(got);
    return bad;
}

static int gemm_tile_test(int variant, int type, const struct bf_size *s, uint64_t seed, char *why,
                          size_t len)
{
    struct data d;
    data_init(&d, variant, type, s, seed, 0);
    BF_CHECK(poison_c(&d));
    cudaError_t err = BF_PROFILED(run(&d, (enum gemm_tile_variant)variant, 0));
    int bad = 0;
    if (d.refused) {
        bad = err != cudaErrorInvalidValue;
        if (bad)
            snprintf(why, len, "k = %lld: got %s, want cudaErrorInvalidValue", (long long)d.k,
                     cudaGetErrorName(err));
    } else {
        BF_CHECK(err);
    }
    BF_CHECK(cudaDeviceSynchronize());
    if (!bad)
        bad = check(&d, why, len);
    data_free(&d);
    return bad;
}

/* ---- benchmark ---- */

struct bench {
    struct data *d;
    float *sink;
    int blocks, sms, iterations; /* the ceilings' launches */
};

static cudaError_t run_mma_sync_ceiling(void *arg, cudaStream_t stream)
{
    const struct bench *j = arg;
    return gemm_tile_ceiling(j->sink, j->blocks, j->iterations, stream);
}

#ifdef BANKFREE_SM90A
static cudaError_t run_wgmma_ceiling(void *arg, cudaStream_t stream)
{
    const struct bench *j = arg;
    return gemm_tile_wgmma_ceiling(j->sink, j->sms, j->iterations, stream);
}
#endif

static cudaError_t run_cublas(void *arg, cudaStream_t stream)
{
    const struct data *d = ((const struct bench *)arg)->d;
    cublasStatus_t st = cublas_gemm(d, d->d_c, d->type == TYPE_F16, stream);
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bankfree: cublasGemmEx: %s\n", cublasGetStatusString(st));
        return cudaErrorUnknown;
    }
    return cudaGetLastError();
}

static cudaError_t run_variant(void *arg, int variant, cudaStream_t stream)
{
    return run(((const struct bench *)arg)->d, (enum gemm_tile_variant)variant, stream);
}

static cudaError_t poison_bench(void *arg)
{
    return poison_c(((const struct bench *)arg)->d);
}

static int check_bench(void *arg, char *why, size_t len)
{
    return check(((const struct bench *)arg)->d, why, len);
}
static int check_variant(void *arg, int variant, char *why, size_t len)
{
    (void)variant;
    return check_bench(arg, why, len);
}

static int gemm_tile_bench(unsigned mask, int type, const struct bf_size *s,
                           const struct bf_bench_ctx *ctx, struct bf_table *t)
{
    struct data d;
    /* the first variant timed: the runner passes none the API refuses */
    data_init(&d, mask ? __builtin_ctz(mask) : 0, type, s, ctx->seed, 1);
    /* The mma.sync ceiling: 8 blocks an SM of 8 warps, each 4096 x 8 mma
     * (about 2 ms on an H100); the wgmma ceiling, where it runs: one block an
     * SM of 2 warpgroups, each 4096 x 4 wgmma (about 3 ms). */
    struct bench j = {&d, NULL, 8 * ctx->dev->sms, ctx->dev->sms, 4096};
    BF_CHECK(
        cudaMalloc((void **)&j.sink, (size_t)j.blocks * GEMM_TILE_CEILING_THREADS * sizeof(float)));
    const double flops = 2.0 * (double)d.m * (double)d.n * (double)d.k;
    struct bf_bench b;
    bf_bench_begin(&b, &gemm_tile_family, mask, type, s, ctx, t);
    if (gemm_tile_supported(GEMM_TILE_SWIZZLED, ctx->dev->id) == cudaSuccess) /* sm_80 on */
        bf_bench_ceiling(&b, "mma.sync m16n8k16, registers only (ceiling)", PATH_MMA_SYNC,
                         gemm_tile_ceiling_flops(j.blocks, j.iterations),
                         (struct bf_job){run_mma_sync_ceiling, &j, NULL, NULL});
#ifdef BANKFREE_SM90A
    if (gemm_tile_supported(GEMM_TILE_WGMMA_SW128, ctx->dev->id) == cudaSuccess)
        bf_bench_ceiling(&b, "wgmma m64n256k16, resident shared tile (ceiling)", PATH_WGMMA,
                         gemm_tile_wgmma_ceiling_flops(j.sms, j.iterations),
                         (struct bf_job){run_wgmma_ceiling, &j, NULL, NULL});
#endif
    if (d.cublas != NULL) /* cuBLAS runs wgmma on Hopper */
        bf_bench_vendor(&b, "cublasGemmEx", PATH_WGMMA, flops,
                        (struct bf_job){run_cublas, &j, poison_bench, check_bench});
    bf_bench_variants(&b, flops,
                      (struct bf_variant_job){run_variant, &j, poison_bench, check_variant});
    /* What decides the L2 flush is the bytes a run touches, not its FLOPs. */
    const double touched = 2.0 * (double)(d.m + d.n) * (double)d.k + (double)d.c_bytes;
    int failed = bf_bench_end(&b, touched, 0);
    BF_CHECK(cudaFree(j.sink));
    data_free(&d);
    return failed;
}

const struct bf_family gemm_tile_family = {
    .name = "gemm_tile",
    .summary = "C = A*B, fp16 A (row-major) and B (column-major), fp32 accumulate, any M x N",
    .variants = variants,
    .nvariants = GEMM_TILE_VARIANTS,
    .paths = paths,
    BF_ARRAY(types, types),
    .ndims = 3,
    .min_dim = 1,
    .size_form = "MxNxK",
    .rate_unit = "GFLOP/s",
    BF_SIZES(BF_SIZES_TEST, test_sizes),
    BF_SIZES(BF_SIZES_QUICK, quick_sizes),
    BF_SIZES(BF_SIZES_BENCH, bench_sizes),
    BF_SIZES(BF_SIZES_HW, hw_sizes),
    BF_SIZES(BF_SIZES_SWEEP, sweep_sizes),
    .test_bytes = test_bytes,
    .bench_bytes = bench_bytes,
    .model = gemm_tile_model,
    .refuses = gemm_tile_refuses,
    .unavailable = gemm_tile_unavailable,
    .test = gemm_tile_test,
    .bench = gemm_tile_bench,
};
