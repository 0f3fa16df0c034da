/* The histogram family as the runner sees it: variants, inputs, sizes, the
 * model hook, the correctness test and the benchmark with its comparators
 * (the read ceiling: the faster of common/'s read stream and
 * cub::DeviceReduce::Sum over the same bytes; cub::DeviceHistogram::HistogramEven,
 * the vendor's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"
#include "common/ceilings.h"
#include "common/check.h"
#include "common/registry.h"
#include "common/validate.h"
#include "histogram/histogram.h"
#include "histogram/histogram_cub.h"
#include "histogram/histogram_model.h"
#include "histogram/histogram_ref.h"
#include "histogram/histogram_suite.h"

extern const struct bf_family histogram_family;

static const struct bf_variant variants[HISTOGRAM_VARIANTS] = {
    [HISTOGRAM_GLOBAL] = {"global", "atomicAdd on the output in global memory, no shared memory"},
    [HISTOGRAM_SHARED] = {"shared", "one shared copy a block: lanes collide, up to 32-way"},
    [HISTOGRAM_REPLICATED] = {"replicated", "a copy per lane (256 bins: conflict-free) or per 4 "
                                            "lanes, bins swizzled (4096: at most 4-way; 8 lanes "
                                            "and 8-way where blocks count at most 256 KiB or "
                                            "the GPU grants a block under 128 KiB)"},
};

/* Types: the sample width (u8: 256 bins; u16: 4096) and the input. */
static const char *const types[] = {
    "u8-uniform",  "u8-same",  "u8-skewed",  "u8-onebank",
    "u16-uniform", "u16-same", "u16-skewed", "u16-onebank",
};
static int type_bins(int type)
{
    return type < HISTOGRAM_INPUTS ? HISTOGRAM_U8_BINS : HISTOGRAM_U16_BINS;
}
static enum histogram_input type_input(int type)
{
    return (enum histogram_input)(type % HISTOGRAM_INPUTS);
}
static int sample_bytes(int type)
{
    return type_bins(type) == HISTOGRAM_U8_BINS ? 1 : 2;
}

/* A size is the input's length in bytes (16-bit samples: half as many, any
 * odd byte dropped). The input starts size % 16 bytes past a 16-byte
 * boundary, so the sizes cover every alignment, odd ones for 16-bit samples. */
static uint64_t start_offset(const struct bf_size *s)
{
    return (uint64_t)(s->dim[0] % 16);
}

/* Every edge: empty, one sample, less than a vector, a vector either side,
 * primes, many blocks, and past 2^32 bytes (1 GiB is the bench's, checked there): 2^32 + 5 equal
 * bytes put 2^32 + 5 counts in one bin, which reads 5 (the counts wrap modulo 2^32). 16-bit
 * samples on 132 SMs: up to 34603008 bytes (33 MiB) the 4-copy replicated kernel, from 16 bytes
 * more (aligned) and 2^32 + 5 (odd) the 8-copy one (histogram_copies; on a GPU that grants a block
 * under 128 KiB, the 4-copy one at every size). */
static const struct bf_size test_sizes[] = {
    {1, {0}},        {1, {1}},          {1, {2}},       {1, {3}},        {1, {15}},
    {1, {16}},       {1, {17}},         {1, {31}},      {1, {33}},       {1, {1021}},
    {1, {4099}},     {1, {65537}},      {1, {1000003}}, {1, {16777259}}, {1, {34603008}},
    {1, {34603024}}, {1, {4294967301}},
};
static const struct bf_size quick_sizes[] = {
    {1, {0}}, {1, {1}}, {1, {3}}, {1, {17}}, {1, {1021}}, {1, {65537}},
};
/* 1 GiB, memory-bound; 32 MiB, resident in L2 between repetitions (warm). */
static const struct bf_size bench_sizes[] = {{1, {1073741824}}, {1, {33554432}}};
/* For ncu: a few blocks, tens of blocks, one full wave, and the bench's
 * sizes, where each block counts many tiles (the grid follows the GPU's SMs). */
static const struct bf_size hw_sizes[] = {
    {1, {65537}}, {1, {1000003}}, {1, {16777259}}, {1, {33554432}}, {1, {1073741824}}};

/* The sweep: 2^12 ... 2^30 bytes (x4). */
static const struct bf_size sweep_sizes[] = {
    {1, {1ll << 12}}, {1, {1ll << 14}}, {1, {1ll << 16}}, {1, {1ll << 18}}, {1, {1ll << 20}},
    {1, {1ll << 22}}, {1, {1ll << 24}}, {1, {1ll << 26}}, {1, {1ll << 28}}, {1, {1ll << 30}},
};

static double test_bytes(int type, const struct bf_size *s)
{
    (void)type; /* every input is the same bytes, u8 or u16 */
    return (double)s->dim[0] + 32.0 + 4.0 * HISTOGRAM_U16_BINS;
}

/* CUB's temporary storage and the ceilings' partial sums: a few MB. */
static double bench_bytes(int type, const struct bf_size *s)
{
    return test_bytes(type, s) + (64 << 20);
}

static int histogram_model(int variant, int type, const struct bf_size *size, uint64_t seed,
                           const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    return histogram_model_launch((enum histogram_variant)variant, type_bins(type),
                                  type_input(type), seed, size->dim[0] / sample_bytes(type),
                                  start_offset(size), rules, sites);
}

/* The input on the device, the output, and the CPU's counts of it. */
struct data {
    int type, bins;
    int64_t n; /* samples */
    void *d_base, *d_in;
    uint32_t *d_hist;
    uint32_t want[HISTOGRAM_U16_BINS];
};

static void data_init(struct data *d, int type, const struct bf_size *s, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->type = type;
    d->bins = type_bins(type);
    d->n = s->dim[0] / sample_bytes(type);
    const size_t bytes = (size_t)d->n * (size_t)sample_bytes(type);
    BF_CHECK(cudaMalloc(&d->d_base, bytes + 16));
    d->d_in = (char *)d->d_base + start_offset(s);
    BF_CHECK(histogram_fill(d->d_in, d->n, d->bins, type_input(type), seed, 0));
    BF_CHECK(cudaMalloc((void **)&d->d_hist, 4u * HISTOGRAM_U16_BINS));

    /* The reference counts what the device holds, a chunk at a time. */
    const size_t chunk = (size_t)1 << 26;
    uint8_t *host = malloc(chunk);
    BF_CHECK_STATUS(host != NULL, "malloc", "out of host memory");
    for (size_t i = 0; i < bytes; i += chunk) {
        size_t m = bytes - i < chunk ? bytes - i : chunk;
        BF_CHECK(cudaMemcpy(host, (const char *)d->d_in + i, m, cudaMemcpyDeviceToHost));
        if (d->bins == HISTOGRAM_U8_BINS)
            histogram_ref_add_u8(d->want, host, m);
        else
            histogram_ref_add_u16(d->want, host, m / 2);
    }
    free(host);
}

static void data_free(struct data *d)
{
    BF_CHECK(cudaFree(d->d_base));
    BF_CHECK(cudaFree(d->d_hist));
}

static cudaError_t run(const struct data *d, enum histogram_variant v, cudaStream_t stream)
{
    if (d->bins == HISTOGRAM_U8_BINS)
        return histogram_u8(v, d->d_hist, d->d_in, d->n, stream);
    return histogram_u16(v, d->d_hist, d->d_in, d->n, stream);
}

/* Every bin against the reference. 0 if right. */
static int check(const struct data *d, char *why, size_t len)
{
    uint32_t got[HISTOGRAM_U16_BINS];
    BF_CHECK(cudaMemcpy(got, d->d_hist, 4u * (size_t)d->bins, cudaMemcpyDeviceToHost));
    size_t first, bad = bf_compare_exact(got, d->want, (size_t)d->bins, 4, &first);
    if (bad == 0)
        return 0;
    snprintf(why, len, "%zu of %d bins wrong; first bin %zu = %u, want %u", bad, d->bins, first,
             got[first], d->want[first]);
    return 1;
}

static int histogram_test(int variant, int type, const struct bf_size *s, uint64_t seed, char *why,
                          size_t len)
{
    struct data *d = malloc(sizeof *d);
    BF_CHECK_STATUS(d != NULL, "malloc", "out of host memory");
    data_init(d, type, s, seed);
    BF_CHECK(bf_poison(d->d_hist, 4u * HISTOGRAM_U16_BINS, 0));
    BF_CHECK(BF_PROFILED(run(d, (enum histogram_variant)variant, 0)));
    BF_CHECK(cudaDeviceSynchronize());
    int bad = check(d, why, len);
    data_free(d);
    free(d);
    return bad;
}

/* ---- benchmark ---- */

struct bench {
    struct data d;
    void *cub_tmp, *sum_tmp;
    size_t cub_bytes, sum_bytes;
    int32_t *d_sum;
    uint32_t *partial; /* the read ceiling's */
};

/* The read ceilings read the input's bytes as 4-byte words, to the last
 * whole word, from the aligned start of its buffer (the input itself may
 * start at any byte). */
static size_t read_bytes(const struct bench *b)
{
    return (size_t)(b->d.n * sample_bytes(b->d.type)) / 4 * 4;
}

static cudaError_t run_read(void *arg, cudaStream_t stream)
{
    const struct bench *b = arg;
    return bf_read_ceiling(b->partial, b->d.d_base, read_bytes(b), stream);
}

static cudaError_t run_cub_sum(void *arg, cudaStream_t stream)
{
    const struct bench *b = arg;
    size_t bytes = b->sum_bytes;
    return bf_cub_sum_i32(b->d_sum, b->d.d_base, (int64_t)(read_bytes(b) / 4), b->sum_tmp, &bytes,
                          stream);
}

static cudaError_t run_cub(void *arg, cudaStream_t stream)
{
    const struct bench *b = arg;
    size_t bytes = b->cub_bytes;
    return histogram_cub(b->d.bins, b->d.d_hist, b->d.d_in, b->d.n, b->cub_tmp, &bytes, stream);
}

static cudaError_t run_variant(void *arg, int variant, cudaStream_t stream)
{
    return run(&((const struct bench *)arg)->d, (enum histogram_variant)variant, stream);
}

static cudaError_t poison_hist(void *arg)
{
    return bf_poison(((const struct bench *)arg)->d.d_hist, 4u * HISTOGRAM_U16_BINS, 0);
}

static int check_hist(void *arg, char *why, size_t len)
{
    return check(&((const struct bench *)arg)->d, why, len);
}
static int check_variant(void *arg, int variant, char *why, size_t len)
{
    (void)variant;
    return check_hist(arg, why, len);
}

static int histogram_bench(unsigned mask, int type, const struct bf_size *s,
                           const struct bf_bench_ctx *ctx, struct bf_table *t)
{
    struct bench *j = calloc(1, sizeof *j);
    BF_CHECK_STATUS(j != NULL, "malloc", "out of host memory");
    data_init(&j->d, type, s, ctx->seed);
    BF_CHECK(cudaMalloc((void **)&j->d_sum, 4));
    BF_CHECK(histogram_cub(j->d.bins, j->d.d_hist, j->d.d_in, j->d.n, NULL, &j->cub_bytes, 0));
    BF_CHECK(cudaMalloc(&j->cub_tmp, j->cub_bytes ? j->cub_bytes : 1));
    BF_CHECK(bf_cub_sum_i32(j->d_sum, j->d.d_base, (int64_t)(read_bytes(j) / 4), NULL,
                            &j->sum_bytes, 0));
    BF_CHECK(cudaMalloc(&j->sum_tmp, j->sum_bytes ? j->sum_bytes : 1));
    BF_CHECK(cudaMalloc((void **)&j->partial, 4 * (size_t)bf_read_ceiling_blocks(read_bytes(j))));

    const double bytes = (double)j->d.n * sample_bytes(type);
    struct bf_bench b;
    bf_bench_begin(&b, &histogram_family, mask, type, s, ctx, t);
    /* sums: timed, not checked here */
    bf_bench_ceiling(&b, "read stream (ceiling)", 0, bytes,
                     (struct bf_job){run_read, j, NULL, NULL});
    bf_bench_ceiling(&b, "cub::DeviceReduce::Sum (read ceiling)", 0, bytes,
                     (struct bf_job){run_cub_sum, j, NULL, NULL});
    /* CUB reads uint16_t samples as such: at an odd address (the hw sizes'
     * offsets) that faults, so it sits those out. */
    if ((uintptr_t)j->d.d_in % (uintptr_t)sample_bytes(type) == 0)
        bf_bench_vendor(&b, "cub::DeviceHistogram::HistogramEven", 0, bytes,
                        (struct bf_job){run_cub, j, poison_hist, check_hist});
    bf_bench_variants(&b, bytes,
                      (struct bf_variant_job){run_variant, j, poison_hist, check_variant});
    /* Data that fits in L2 stays there between repetitions: the update rate
     * of shared memory is then the limit, not DRAM. */
    int failed = bf_bench_end(&b, bytes, bytes <= (double)ctx->dev->l2_bytes);

    BF_CHECK(cudaFree(j->d_sum));
    BF_CHECK(cudaFree(j->cub_tmp));
    BF_CHECK(cudaFree(j->sum_tmp));
    BF_CHECK(cudaFree(j->partial));
    data_free(&j->d);
    free(j);
    return failed;
}

const struct bf_family histogram_family = {
    .name = "histogram",
    .summary = "256 bins of bytes, 4096 bins of 16-bit samples >> 4, any length",
    .variants = variants,
    .nvariants = HISTOGRAM_VARIANTS,
    .conflicting = HISTOGRAM_SHARED,
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
    /* u8-uniform, u8-onebank, u16-uniform, u16-onebank: CUB's best and worst inputs */
    .sweep_types = 1u << HISTOGRAM_UNIFORM | 1u << HISTOGRAM_ONEBANK |
                   1u << (HISTOGRAM_INPUTS + HISTOGRAM_UNIFORM) |
                   1u << (HISTOGRAM_INPUTS + HISTOGRAM_ONEBANK),
    .test_bytes = test_bytes,
    .bench_bytes = bench_bytes,
    .model = histogram_model,
    .test = histogram_test,
    .bench = histogram_bench,
};
