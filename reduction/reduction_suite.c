/* The reduction family as the runner sees it: variants, types, sizes, the
 * model hook, the correctness test and the benchmark with its comparators
 * (common/ceilings.h: the read stream, the ceiling of a kernel that only
 * reads; cub::DeviceReduce::Sum, the vendor's sum). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"
#include "common/ceilings.h"
#include "common/check.h"
#include "common/data.h"
#include "common/registry.h"
#include "common/validate.h"
#include "reduction/reduction.h"
#include "reduction/reduction_layout.h"
#include "reduction/reduction_model.h"
#include "reduction/reduction_ref.h"

extern const struct bf_family reduction_family;

static const struct bf_variant variants[REDUCTION_VARIANTS] = {
    [REDUCTION_INTERLEAVED] = {"interleaved",
                               "tree, index = 2*s*tid: 2- to 32-way conflicts (Harris 2)"},
    [REDUCTION_SEQUENTIAL] = {"sequential", "tree, index = tid, partner tid + s: conflict-free "
                                            "(Harris 3)"},
    [REDUCTION_TUNED] =
        {"tuned", "16-byte loads, up to 16 elements a thread, shuffles: at the bandwidth limit"},
};

enum { TYPE_F32, TYPE_I32 };
static const char *const types[] = {[TYPE_F32] = "f32", [TYPE_I32] = "i32"};

/* Every edge: empty, one element, a warp and a block either side, one block
 * of the tuned kernel either side, each of its chunks (2048 from 8193, 4096
 * past 2^18, 8192 past 2^19: reduction_tuned_chunk), primes, past 2^24 (where
 * fp32 stops counting exactly) and past 2^31 elements (64-bit indexing; 8.6
 * GB). The input starts n % 4 elements past a 16-byte boundary, so these
 * sizes cover all four. */
static const struct bf_size test_sizes[] = {
    {1, {0}},          {1, {1}},        {1, {2}},        {1, {3}},         {1, {31}},
    {1, {32}},         {1, {33}},       {1, {1023}},     {1, {1024}},      {1, {1025}},
    {1, {8191}},       {1, {8192}},     {1, {8193}},     {1, {262147}},    {1, {1048573}},
    {1, {1048576}},    {1, {16777259}}, {1, {33554432}}, {1, {268435399}}, {1, {268435456}},
    {1, {2147483659}},
};

/* For the sanitizers, which run each kernel 10-100x slower. */
static const struct bf_size quick_sizes[] = {
    {1, {0}}, {1, {1}}, {1, {33}}, {1, {1025}}, {1, {8193}}, {1, {1048573}},
};

/* 1 GiB of 4-byte elements, and an odd size just under 400 MB. */
static const struct bf_size bench_sizes[] = {{1, {268435456}}, {1, {99999989}}};

/* For ncu: whole blocks over two passes and a prime, every tree block in one
 * wave (128 and 98 blocks of 1024 threads; an H100 holds 2 x 132), and 2^24,
 * 16384 tree blocks (2048 tuned blocks), many waves. */
static const struct bf_size hw_sizes[] = {{1, {131072}}, {1, {100003}}, {1, {16777216}}};

/* The sweep: 2^10 ... 2^32 elements (x4; 4 KiB to 16 GiB). */
static const struct bf_size sweep_sizes[] = {
    {1, {1ll << 10}}, {1, {1ll << 12}}, {1, {1ll << 14}}, {1, {1ll << 16}},
    {1, {1ll << 18}}, {1, {1ll << 20}}, {1, {1ll << 22}}, {1, {1ll << 24}},
    {1, {1ll << 26}}, {1, {1ll << 28}}, {1, {1ll << 30}}, {1, {1ll << 32}},
};

/* The input (with room to start it off a 16-byte boundary), the result and
 * the workspace of the partial sums, as data_init allocates them. */
static double test_bytes(int type, const struct bf_size *s)
{
    (void)type; /* f32 and i32 alike */
    size_t work = 0;
    for (int v = 0; v < REDUCTION_VARIANTS; ++v) {
        size_t bytes = reduction_workspace_bytes((enum reduction_variant)v, s->dim[0]);
        work = bytes > work ? bytes : work;
    }
    return 4.0 * (double)(s->dim[0] + 4) + 4.0 + (double)work;
}

/* The read stream's partial sums and CUB's temporary storage too. */
static double bench_bytes(int type, const struct bf_size *s)
{
    return test_bytes(type, s) + 4.0 * (double)bf_read_ceiling_blocks(4 * (size_t)s->dim[0]) +
           (16 << 20);
}

/* The input on the device, the result and workspaces, and the CPU's sums. */
struct data {
    int type;
    int64_t n;
    void *d_base, *d_sum, *work, *cub_work;
    const void *d_in; /* d_base + offset elements */
    size_t work_bytes, cub_bytes;
    struct reduction_ref ref;
};

/* Fresh random input of n elements starting `offset` elements into the
 * allocation; the reference sums it a chunk at a time, so no host copy of the
 * whole input is needed. */
static void data_init(struct data *d, int type, int64_t n, int offset, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->type = type;
    d->n = n;
    size_t elements = (size_t)n + (size_t)offset;
    BF_CHECK(cudaMalloc(&d->d_base, (elements ? elements : 1) * 4));
    if (type == TYPE_F32)
        BF_CHECK(bf_fill_random_f32(d->d_base, elements, seed, 0));
    else
        BF_CHECK(bf_fill_random_i32(d->d_base, elements, seed, 0));
    d->d_in = (const char *)d->d_base + 4 * (size_t)offset;
    BF_CHECK(cudaMalloc(&d->d_sum, 4));
    for (int v = 0; v < REDUCTION_VARIANTS; ++v) {
        size_t bytes = reduction_workspace_bytes((enum reduction_variant)v, n);
        d->work_bytes = bytes > d->work_bytes ? bytes : d->work_bytes;
    }
    if (d->work_bytes)
        BF_CHECK(cudaMalloc(&d->work, d->work_bytes));

    const size_t chunk = (size_t)1 << 24;
    void *host = malloc(chunk * 4);
    BF_CHECK_STATUS(host != NULL, "malloc", "out of host memory");
    for (size_t i = 0; i < (size_t)n; i += chunk) {
        size_t m = (size_t)n - i < chunk ? (size_t)n - i : chunk;
        BF_CHECK(cudaMemcpy(host, (const char *)d->d_in + 4 * i, m * 4, cudaMemcpyDeviceToHost));
        if (type == TYPE_F32)
            reduction_ref_add_f32(&d->ref, host, m);
        else
            reduction_ref_add_i32(&d->ref, host, m);
    }
    free(host);
}

static void data_free(struct data *d)
{
    BF_CHECK(cudaFree(d->d_base));
    BF_CHECK(cudaFree(d->d_sum));
    BF_CHECK(cudaFree(d->work));
    BF_CHECK(cudaFree(d->cub_work));
}

/* The result on the device against the reference: int32 exactly, fp32 within
 * the bound of a sum of the given depth. 0 if right. */
static int check_sum(const struct data *d, int64_t depth, char *why, size_t len)
{
    if (d->type == TYPE_I32) {
        int32_t got, want = reduction_ref_i32(&d->ref);
        BF_CHECK(cudaMemcpy(&got, d->d_sum, 4, cudaMemcpyDeviceToHost));
        if (got == want)
            return 0;
        snprintf(why, len, "sum %d, want %d (mod 2^32)", got, want);
        return 1;
    }
    float got;
    BF_CHECK(cudaMemcpy(&got, d->d_sum, 4, cudaMemcpyDeviceToHost));
    double err = fabs((double)got - d->ref.sum), bound = reduction_ref_bound_f32(&d->ref, depth);
    if (isfinite(got) && err <= bound) /* NaN fails here */
        return 0;
    snprintf(why, len,
             "sum %.9g, want %.9g: error %.3g over the bound %.3g (depth %lld, sum |x| %.6g)",
             (double)got, d->ref.sum, err, bound, (long long)depth, d->ref.abs_sum);
    return 1;
}

/* The sum into `out` (one word on the device), with the data's workspace. */
static cudaError_t sum_into(const struct data *d, enum reduction_variant v, void *out,
                            cudaStream_t stream)
{
    if (d->type == TYPE_F32)
        return reduction_sum_f32(v, out, d->d_in, d->n, d->work, d->work_bytes, stream);
    return reduction_sum_i32(v, out, d->d_in, d->n, d->work, d->work_bytes, stream);
}

static cudaError_t run_sum(const struct data *d, enum reduction_variant v, cudaStream_t stream)
{
    return sum_into(d, v, d->d_sum, stream);
}

/* The result and every partial sum poisoned: nothing may rely on them. */
static cudaError_t poison(const struct data *d)
{
    cudaError_t err = bf_poison(d->d_sum, 4, 0);
    if (err == cudaSuccess && d->work != NULL)
        err = bf_poison(d->work, d->work_bytes, 0);
    return err;
}

/* The same input summed again gives the same bits (reduction.h), as *d_sum
 * has them: two sums back to back on one stream, each into a word of its own
 * (the second's first pass overwrites the partial sums the first's second
 * pass reads), then the sum captured from a stream into a CUDA graph (where
 * the second pass is a programmatic dependent launch, a programmatic edge)
 * and the graph launched twice. 0 if all agree. */
static int check_repeats(const struct data *d, enum reduction_variant v, char *why, size_t len)
{
    static const char *const runs[] = {"back to back, first", "back to back, second",
                                       "graph, first launch", "graph, second launch"};
    uint32_t want, got[4], *out;
    cudaStream_t stream;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    BF_CHECK(cudaMemcpy(&want, d->d_sum, 4, cudaMemcpyDeviceToHost));
    BF_CHECK(cudaMalloc((void **)&out, 3 * 4));
    BF_CHECK(bf_poison(out, 3 * 4, 0));
    BF_CHECK(sum_into(d, v, out, 0));
    BF_CHECK(sum_into(d, v, out + 1, 0));
    BF_CHECK(cudaMemcpy(got, out, 2 * 4, cudaMemcpyDeviceToHost));

    BF_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    BF_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    BF_CHECK(sum_into(d, v, out + 2, stream));
    BF_CHECK(cudaStreamEndCapture(stream, &graph));
    BF_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
        BF_CHECK(bf_poison(out + 2, 4, stream));
        BF_CHECK(cudaGraphLaunch(exec, stream));
        BF_CHECK(cudaStreamSynchronize(stream));
        BF_CHECK(cudaMemcpy(&got[2 + launch], out + 2, 4, cudaMemcpyDeviceToHost));
    }
    BF_CHECK(cudaGraphExecDestroy(exec));
    BF_CHECK(cudaGraphDestroy(graph));
    BF_CHECK(cudaStreamDestroy(stream));
    BF_CHECK(cudaFree(out));

    for (int i = 0; i < 4; ++i)
        if (got[i] != want) {
            snprintf(why, len, "the same input again (%s): bits 0x%08x, first run 0x%08x", runs[i],
                     (unsigned)got[i], (unsigned)want);
            return 1;
        }
    return 0;
}

static int reduction_test(int variant, int type, const struct bf_size *s, uint64_t seed, char *why,
                          size_t len)
{
    struct data d;
    const int64_t n = s->dim[0];
    data_init(&d, type, n, (int)(n % 4), seed);
    BF_CHECK(poison(&d));
    BF_CHECK(BF_PROFILED(run_sum(&d, (enum reduction_variant)variant, 0)));
    BF_CHECK(cudaDeviceSynchronize());
    int bad = check_sum(&d, reduction_depth((enum reduction_variant)variant, n), why, len);
    if (!bad)
        bad = check_repeats(&d, (enum reduction_variant)variant, why, len);
    data_free(&d);
    return bad;
}

/* ---- benchmark ---- */

struct bench {
    struct data d;
    uint32_t *partial; /* the read stream's partial sums */
};

static cudaError_t run_variant(void *arg, int variant, cudaStream_t stream)
{
    return run_sum(&((const struct bench *)arg)->d, (enum reduction_variant)variant, stream);
}

static cudaError_t run_cub(void *arg, cudaStream_t stream)
{
    const struct data *d = &((const struct bench *)arg)->d;
    size_t bytes = d->cub_bytes;
    if (d->type == TYPE_F32)
        return bf_cub_sum_f32(d->d_sum, d->d_in, d->n, d->cub_work, &bytes, stream);
    return bf_cub_sum_i32(d->d_sum, d->d_in, d->n, d->cub_work, &bytes, stream);
}

static cudaError_t run_read(void *arg, cudaStream_t stream)
{
    const struct bench *j = arg;
    return bf_read_ceiling(j->partial, j->d.d_in, 4 * (size_t)j->d.n, stream);
}

static cudaError_t poison_sum(void *arg)
{
    return poison(&((const struct bench *)arg)->d);
}

/* A variant's sum, within the bound of its own tree's depth. */
static int check_variant(void *arg, int variant, char *why, size_t len)
{
    const struct data *d = &((const struct bench *)arg)->d;
    return check_sum(d, reduction_depth((enum reduction_variant)variant, d->n), why, len);
}

/* CUB adds in its own order; its chains are far shorter than this depth on any
 * grid it picks, and a wrong sum is still off by orders of magnitude more. */
static int check_cub(void *arg, char *why, size_t len)
{
    const struct data *d = &((const struct bench *)arg)->d;
    return check_sum(d, d->n / 4096 + 4096, why, len);
}

static int reduction_bench(unsigned mask, int type, const struct bf_size *s,
                           const struct bf_bench_ctx *ctx, struct bf_table *t)
{
    struct bench j;
    const int64_t n = s->dim[0];
    data_init(&j.d, type, n, 0, ctx->seed);
    BF_CHECK(cudaMalloc((void **)&j.partial, 4 * (size_t)bf_read_ceiling_blocks(4 * (size_t)n)));
    if (type == TYPE_F32)
        BF_CHECK(bf_cub_sum_f32(j.d.d_sum, j.d.d_in, n, NULL, &j.d.cub_bytes, 0));
    else
        BF_CHECK(bf_cub_sum_i32(j.d.d_sum, j.d.d_in, n, NULL, &j.d.cub_bytes, 0));
    BF_CHECK(cudaMalloc(&j.d.cub_work, j.d.cub_bytes ? j.d.cub_bytes : 1));

    /* The variants read each value once, as the read stream does (a copy,
     * which also writes, is no ceiling for them: at small sizes it moves
     * twice the bytes in the same launch-bound time). */
    const double bytes = 4.0 * (double)n;
    struct bf_bench b;
    bf_bench_begin(&b, &reduction_family, mask, type, s, ctx, t);
    bf_bench_ceiling(&b, "read stream (ceiling)", 0, bytes,
                     (struct bf_job){run_read, &j, NULL, NULL});
    bf_bench_vendor(&b, "cub::DeviceReduce::Sum", 0, bytes,
                    (struct bf_job){run_cub, &j, poison_sum, check_cub});
    bf_bench_variants(&b, bytes,
                      (struct bf_variant_job){run_variant, &j, poison_sum, check_variant});
    int failed = bf_bench_end(&b, bytes, 0);

    BF_CHECK(cudaFree(j.partial));
    data_free(&j.d);
    return failed;
}

const struct bf_family reduction_family = {
    .name = "reduction",
    .summary = "sum of fp32 or int32, any length",
    .variants = variants,
    .nvariants = REDUCTION_VARIANTS,
    BF_ARRAY(types, types),
    .ndims = 1,
    .min_dim = 0,
    .model_types_alike = 1,
    .size_form = "N",
    BF_SIZES(BF_SIZES_TEST, test_sizes),
    BF_SIZES(BF_SIZES_QUICK, quick_sizes),
    BF_SIZES(BF_SIZES_BENCH, bench_sizes),
    BF_SIZES(BF_SIZES_HW, hw_sizes),
    BF_SIZES(BF_SIZES_SWEEP, sweep_sizes),
    .test_bytes = test_bytes,
    .bench_bytes = bench_bytes,
    .model = reduction_model,
    .test = reduction_test,
    .bench = reduction_bench,
};
