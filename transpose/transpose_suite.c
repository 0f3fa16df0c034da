/* The transpose family as the runner sees it: variants, sizes, the model hook,
 * the correctness test and the benchmark with its comparators (device-to-device
 * copy, the bandwidth ceiling; cublasSgeam, the vendor's transpose). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "common/bench.h"
#include "common/ceilings.h"
#include "common/check.h"
#include "common/data.h"
#include "common/registry.h"
#include "common/validate.h"
#include "transpose/transpose.h"
#include "transpose/transpose_model.h"
#include "transpose/transpose_ref.h"

extern const struct bf_family transpose_family;

static const struct bf_variant variants[TRANSPOSE_VARIANTS] = {
    [TRANSPOSE_NAIVE] = {"naive", "no shared memory: reads coalesced, writes 32 rows apart"},
    [TRANSPOSE_CONFLICTING] = {"conflicting", "tile[64][64] read by column: 32-way conflict"},
    [TRANSPOSE_PADDED] = {"padded", "tile[64][65]: one spare word a row, conflict-free"},
    [TRANSPOSE_SWIZZLED] = {"swizzled", "tile[64][64], column ^ (row % 32): conflict-free"},
};

/* Edges of every kind: 1, tile - 1, tile + 1, primes, long thin shapes, and
 * more tile columns than gridDim.y takes (65535), so blocks walk several tiles. */
static const struct bf_size test_sizes[] = {
    {2, {1, 1}},       {2, {1, 31}},      {2, {31, 1}},      {2, {1, 4099}},    {2, {4099, 1}},
    {2, {31, 33}},     {2, {32, 32}},     {2, {33, 31}},     {2, {63, 65}},     {2, {64, 96}},
    {2, {65, 63}},     {2, {33, 4097}},   {2, {4097, 33}},   {2, {257, 509}},   {2, {1021, 1031}},
    {2, {4096, 4095}}, {2, {2097185, 3}}, {2, {3, 2097185}}, {2, {1, 4194319}}, {2, {4194319, 1}},
    {2, {7919, 8209}}, {2, {8192, 8192}},
};

/* For the sanitizers, which run each kernel 10-100x slower; still edges, and
 * still a grid that makes blocks loop over tiles. */
static const struct bf_size quick_sizes[] = {
    {2, {1, 1}}, {2, {31, 33}}, {2, {129, 4097}}, {2, {257, 509}}, {2, {1, 2097185}},
};

static const struct bf_size bench_sizes[] = {{2, {8192, 8192}}, {2, {7919, 8209}}};

/* For ncu: whole tiles and edge tiles, each in one wave of blocks (256 blocks;
 * an H100 holds 3 x 132), and 16384 blocks, many waves. */
static const struct bf_size hw_sizes[] = {{2, {1024, 1024}}, {2, {1000, 999}}, {2, {8192, 8192}}};

/* The sweep: squares 64 ... 16384 (x2; 32 KiB to 2 GiB moved) and odd shapes:
 * edge tiles on both sides, a prime pair, and a short wide matrix. */
static const struct bf_size sweep_sizes[] = {
    {2, {64, 64}},       {2, {128, 128}},   {2, {256, 256}},   {2, {512, 512}},
    {2, {1024, 1024}},   {2, {2048, 2048}}, {2, {4096, 4096}}, {2, {8192, 8192}},
    {2, {16384, 16384}}, {2, {1000, 999}},  {2, {2047, 2049}}, {2, {7919, 8209}},
    {2, {64, 1048573}},
};

/* Input and output; the comparators (a copy, cublasSgeam) write the same output. */
static double device_bytes(const struct bf_size *s)
{
    return 2.0 * (double)s->dim[0] * (double)s->dim[1] * sizeof(float);
}

/* Input and output on the device, and host copies for checking. */
struct buffers {
    int64_t rows, cols;
    size_t n, bytes;
    float *d_in, *d_out;
    float *in, *out, *ref;
};

static void buffers_init(struct buffers *b, const struct bf_size *s, uint64_t seed)
{
    b->rows = s->dim[0];
    b->cols = s->dim[1];
    b->n = (size_t)(b->rows * b->cols);
    b->bytes = b->n * sizeof(float);
    BF_CHECK(cudaMalloc((void **)&b->d_in, b->bytes));
    BF_CHECK(cudaMalloc((void **)&b->d_out, b->bytes));
    b->in = malloc(b->bytes);
    b->out = malloc(b->bytes);
    b->ref = malloc(b->bytes);
    BF_CHECK_STATUS(b->in && b->out && b->ref, "malloc", "out of host memory");
    BF_CHECK(bf_fill_random_f32(b->d_in, b->n, seed, 0));
    BF_CHECK(cudaMemcpy(b->in, b->d_in, b->bytes, cudaMemcpyDeviceToHost));
    transpose_ref_f32(b->ref, b->in, b->rows, b->cols);
}

static void buffers_free(struct buffers *b)
{
    BF_CHECK(cudaFree(b->d_in));
    BF_CHECK(cudaFree(b->d_out));
    free(b->in);
    free(b->out);
    free(b->ref);
}

/* Compares the device output with `want` (cols x rows); 0 if every element matches. */
static int check_output(const struct buffers *b, const float *want, char *why, size_t len)
{
    size_t first;
    BF_CHECK(cudaMemcpy(b->out, b->d_out, b->bytes, cudaMemcpyDeviceToHost));
    size_t bad = bf_compare_exact(b->out, want, b->n, sizeof(float), &first);
    if (bad == 0)
        return 0;
    snprintf(why, len, "%zu of %zu elements wrong; first out[%lld][%lld] = %.9g, want %.9g", bad,
             b->n, (long long)(first / (size_t)b->rows), (long long)(first % (size_t)b->rows),
             (double)b->out[first], (double)want[first]);
    return 1;
}

static int transpose_test(int variant, int type, const struct bf_size *s, uint64_t seed, char *why,
                          size_t len)
{
    (void)type; /* f32 only */
    struct buffers b;
    buffers_init(&b, s, seed);
    BF_CHECK(bf_poison(b.d_out, b.bytes, 0));
    BF_CHECK(BF_PROFILED(
        transpose_f32((enum transpose_variant)variant, b.d_out, b.d_in, b.rows, b.cols, 0)));
    BF_CHECK(cudaDeviceSynchronize());
    int bad = check_output(&b, b.ref, why, len);
    buffers_free(&b);
    return bad;
}

/* ---- benchmark ---- */

struct bench {
    struct buffers b;
    cublasHandle_t cublas;
};

static cudaError_t run_variant(void *arg, int variant, cudaStream_t stream)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return transpose_f32((enum transpose_variant)variant, b->d_out, b->d_in, b->rows, b->cols,
                         stream);
}

static cudaError_t run_copy(void *arg, cudaStream_t stream)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return bf_copy_ceiling(b->d_out, b->d_in, b->bytes, stream);
}

static cudaError_t run_copy_kernel(void *arg, cudaStream_t stream)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return bf_copy_kernel_ceiling(b->d_out, b->d_in, b->bytes, stream);
}

/* Row-major in (rows x cols) is column-major A (cols x rows, lda = cols);
 * row-major out (cols x rows) is column-major C (rows x cols, ldc = rows);
 * C = 1 * A^T + 0 * C, in place on C as cuBLAS allows. */
static cudaError_t run_cublas(void *arg, cudaStream_t stream)
{
    const struct bench *j = arg;
    const float one = 1.0f, zero = 0.0f;
    int m = (int)j->b.rows, n = (int)j->b.cols;
    cublasStatus_t st = cublasSetStream(j->cublas, stream);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasSgeam(j->cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, j->b.d_in, n, &zero,
                         j->b.d_out, m, j->b.d_out, m);
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bankfree: cublasSgeam: %s\n", cublasGetStatusString(st));
        return cudaErrorUnknown;
    }
    return cudaGetLastError();
}

static cudaError_t poison_output(void *arg)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return bf_poison(b->d_out, b->bytes, 0);
}

static int check_transposed(void *arg, char *why, size_t len)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return check_output(b, b->ref, why, len);
}
static int check_variant(void *arg, int variant, char *why, size_t len)
{
    (void)variant;
    return check_transposed(arg, why, len);
}

static int check_copied(void *arg, char *why, size_t len)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return check_output(b, b->in, why, len);
}

static int transpose_bench(unsigned mask, int type, const struct bf_size *s,
                           const struct bf_bench_ctx *ctx, struct bf_table *t)
{
    struct bench j;
    buffers_init(&j.b, s, ctx->seed);
    BF_CHECK_STATUS(cublasCreate(&j.cublas) == CUBLAS_STATUS_SUCCESS, "cublasCreate",
                    "cuBLAS could not start");
    const double moved = 2.0 * (double)j.b.bytes; /* read once, written once */
    struct bf_bench b;
    bf_bench_begin(&b, &transpose_family, mask, type, s, ctx, t);
    bf_bench_ceiling(&b, "copy (ceiling)", 0, moved,
                     (struct bf_job){run_copy, &j, poison_output, check_copied});
    bf_bench_ceiling(&b, "copy kernel (ceiling)", 0, moved,
                     (struct bf_job){run_copy_kernel, &j, poison_output, check_copied});
    if (j.b.rows <= 0x7fffffff && j.b.cols <= 0x7fffffff) /* cuBLAS takes int */
        bf_bench_vendor(&b, "cublasSgeam", 0, moved,
                        (struct bf_job){run_cublas, &j, poison_output, check_transposed});
    bf_bench_variants(&b, moved,
                      (struct bf_variant_job){run_variant, &j, poison_output, check_variant});
    int failed = bf_bench_end(&b, moved, 0);

    BF_CHECK_STATUS(cublasDestroy(j.cublas) == CUBLAS_STATUS_SUCCESS, "cublasDestroy",
                    "cuBLAS could not stop");
    buffers_free(&j.b);
    return failed;
}

/* What transpose_f32 refuses at a size: the launcher's own rule
 * (transpose_refusal), for the runner. */
static const char *refuses(int variant, int type, const struct bf_size *s)
{
    (void)variant;
    (void)type;
    return transpose_refusal(s->dim[0], s->dim[1]);
}

static int model(int variant, int type, const struct bf_size *size, uint64_t seed,
                 const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    (void)type; /* f32 only */
    (void)seed; /* the addresses do not depend on the data */
    return transpose_model(variant, size, rules, sites);
}

static const char *const types[] = {"f32"};

const struct bf_family transpose_family = {
    .name = "transpose",
    .summary = "fp32 out = in^T, any rows x cols",
    .variants = variants,
    .nvariants = TRANSPOSE_VARIANTS,
    .conflicting = TRANSPOSE_CONFLICTING,
    BF_ARRAY(types, types),
    .ndims = 2,
    .min_dim = 1,
    .size_form = "ROWSxCOLS",
    BF_SIZES(BF_SIZES_TEST, test_sizes),
    BF_SIZES(BF_SIZES_QUICK, quick_sizes),
    BF_SIZES(BF_SIZES_BENCH, bench_sizes),
    BF_SIZES(BF_SIZES_HW, hw_sizes),
    BF_SIZES(BF_SIZES_SWEEP, sweep_sizes),
    .test_bytes = device_bytes,
    .bench_bytes = device_bytes,
    .model = model,
    .refuses = refuses,
    .test = transpose_test,
    .bench = transpose_bench,
};
