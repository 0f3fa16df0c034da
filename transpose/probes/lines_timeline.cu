/* Where the packed lines kernel's time goes at odd shapes: the library's
 * lines kernel with each block stamping the global timer (ns) at entry,
 * when its whole tile is in (past the barrier) and when its stores are
 * issued (past a second barrier), and the SM it ran on. Run as the bench
 * runs it (L2 flushed by a read under 4x L2, else cold); of the last of a
 * few reps it prints the span, the blocks' copy and store phases by wave
 * (blocks ranked by entry, 4 an SM a wave) and, over the span, how many
 * blocks were copying and how many storing, which tiles stored longest
 * and which ended last. On a GPU machine:
 *   cmake --build build --target transpose_probe_lines_timeline &&
 *   build/transpose/transpose_probe_lines_timeline [--resident] [e rows cols ...] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ceilings.h"
#include "transpose/probes/check.h"
#include "transpose/transpose.h"
/* The library's kernels; its launcher under another name (the probe links the library). */
#define transpose_packed_launch probe_packed_launch
#include "transpose/transpose_packed.cu"
#undef transpose_packed_launch

static __device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* stamps[block]: entry, tile in, stores issued, SM */
template <int E>
__global__ void __launch_bounds__(TRANSPOSE_CELLS_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_CELLS_THREADS, 4))
    lines_timed(void *__restrict__ out_, const void *__restrict__ in_, int64_t rows, int64_t cols,
                unsigned long long (*stamps)[4])
{
    __shared__ __align__(
        128) unsigned char tile[TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, E))];
    unsigned char *out = (unsigned char *)out_;
    const unsigned char *in = (const unsigned char *)in_;
    const int64_t tile_row = blockIdx.x, tile_col = blockIdx.y;
    const size_t b = blockIdx.x + (size_t)blockIdx.y * gridDim.x;
    unsigned long long t0 = now_ns(), t1, t2;
    if (transpose_lines_edge(E, rows, cols, tile_row, tile_col)) {
        lines_copy<E, true>(tile, in, rows, cols, tile_row, tile_col);
        copies_wait();
        __syncthreads();
        t1 = now_ns();
        lines_store<E, true>(out, in, rows, cols, tile_row, tile_col, tile);
    } else {
        lines_copy<E, false>(tile, in, rows, cols, tile_row, tile_col);
        copies_wait();
        __syncthreads();
        t1 = now_ns();
        lines_store<E, false>(out, in, rows, cols, tile_row, tile_col, tile);
    }
    __syncthreads();
    t2 = now_ns();
    if (threadIdx.x == 0) {
        unsigned sm;
        asm("mov.u32 %0, %%smid;" : "=r"(sm));
        stamps[b][0] = t0;
        stamps[b][1] = t1;
        stamps[b][2] = t2;
        stamps[b][3] = sm;
    }
}

static int by_u64(const void *a, const void *b)
{
    const unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

static double median_of(unsigned long long *v, size_t n)
{
    qsort(v, n, sizeof *v, by_u64);
    return n ? (double)v[n / 2] : 0.0;
}

static void run(int e, int64_t rows, int64_t cols, int sms, int l2)
{
    const size_t bytes = (size_t)(rows * cols * e);
    const dim3 grid((unsigned)transpose_lines_tile_rows(e, rows),
                    (unsigned)transpose_cells_tile_cols(e, cols));
    const size_t blocks = (size_t)grid.x * grid.y;
    void *in, *out, *flush;
    unsigned long long(*stamps)[4];
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
    CHECK(cudaMalloc(&stamps, blocks * sizeof *stamps));
    CHECK(cudaMemset(in, 0x5a, bytes));
    CHECK(cudaMemset(flush, 1, 2 * (size_t)l2));
    const bool flushed = 2 * bytes < 4 * (size_t)l2;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    float ms = 0, copy_ms = 0;
    for (int rep = 0; rep < 5; ++rep) {
        if (flushed)
            flush_l2(flush, 2 * (size_t)l2, rep);
        CHECK(cudaEventRecord(start, 0));
        CHECK(bf_copy_kernel_ceiling(out, in, bytes, 0));
        CHECK(cudaEventRecord(stop, 0));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&copy_ms, start, stop));
        if (flushed)
            flush_l2(flush, 2 * (size_t)l2, rep);
        CHECK(cudaEventRecord(start, 0));
        if (e == 1)
            lines_timed<1><<<grid, TRANSPOSE_CELLS_THREADS>>>(out, in, rows, cols, stamps);
        else
            lines_timed<2><<<grid, TRANSPOSE_CELLS_THREADS>>>(out, in, rows, cols, stamps);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop, 0));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms, start, stop));
    }
    unsigned long long(*s)[4] = (unsigned long long(*)[4])malloc(blocks * sizeof *s);
    unsigned long long *v = (unsigned long long *)malloc(blocks * sizeof *v);
    CHECK(cudaMemcpy(s, stamps, blocks * sizeof *s, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull, t_end = 0;
    for (size_t b = 0; b < blocks; ++b) {
        t0 = s[b][0] < t0 ? s[b][0] : t0;
        t_end = s[b][2] > t_end ? s[b][2] : t_end;
    }
    printf("\ne %d, %lld x %lld (%s): %zu blocks, %.2f waves of 4 an SM; events %.1f us (copy "
           "kernel %.1f us, %.3f of it), stamps' span %.1f us\n",
           e, (long long)rows, (long long)cols, flushed ? "flushed" : "cold", blocks,
           (double)blocks / (4.0 * sms), 1e3 * ms, 1e3 * copy_ms, copy_ms / ms,
           (double)(t_end - t0) / 1e3);
    /* blocks ranked by entry; per wave the medians */
    size_t *order = (size_t *)malloc(blocks * sizeof *order);
    for (size_t b = 0; b < blocks; ++b)
        v[b] = (s[b][0] - t0) << 20 | b;
    qsort(v, blocks, sizeof *v, by_u64);
    for (size_t b = 0; b < blocks; ++b)
        order[b] = (size_t)(v[b] & ((1u << 20) - 1));
    const size_t wave = 4 * (size_t)sms;
    printf("%5s %10s %10s %10s %10s %10s\n", "wave", "entry us", "copy us", "store us", "copy max",
           "store max");
    for (size_t w0 = 0; w0 < blocks; w0 += wave) {
        const size_t n = blocks - w0 < wave ? blocks - w0 : wave;
        double entry, copy, store, copy_max = 0, store_max = 0;
        for (size_t i = 0; i < n; ++i)
            v[i] = s[order[w0 + i]][0] - t0;
        entry = median_of(v, n);
        for (size_t i = 0; i < n; ++i) {
            v[i] = s[order[w0 + i]][1] - s[order[w0 + i]][0];
            copy_max = (double)v[i] > copy_max ? (double)v[i] : copy_max;
        }
        copy = median_of(v, n);
        for (size_t i = 0; i < n; ++i) {
            v[i] = s[order[w0 + i]][2] - s[order[w0 + i]][1];
            store_max = (double)v[i] > store_max ? (double)v[i] : store_max;
        }
        store = median_of(v, n);
        printf("%5zu %10.2f %10.2f %10.2f %10.2f %10.2f\n", w0 / wave, entry / 1e3, copy / 1e3,
               store / 1e3, copy_max / 1e3, store_max / 1e3);
    }
    /* over the span: blocks copying, storing */
    enum { SLICES = 24 };
    printf("%8s %8s %8s %8s\n", "t us", "copying", "storing", "of 4/SM");
    for (int k = 0; k < SLICES; ++k) {
        const unsigned long long at = t0 + (t_end - t0) * (2 * k + 1) / (2 * SLICES);
        int copying = 0, storing = 0;
        for (size_t b = 0; b < blocks; ++b) {
            copying += s[b][0] <= at && at < s[b][1];
            storing += s[b][1] <= at && at < s[b][2];
        }
        printf("%8.2f %8d %8d %8.2f\n", (double)(at - t0) / 1e3, copying, storing,
               (double)(copying + storing) / wave);
    }
    /* the longest store phases: which tiles */
    for (size_t b = 0; b < blocks; ++b)
        v[b] = (s[b][2] - s[b][1]) << 20 | b;
    qsort(v, blocks, sizeof *v, by_u64);
    printf("the 12 longest store phases: tile row, column, SM, entry, store (us)\n");
    for (size_t i = blocks > 12 ? blocks - 12 : 0; i < blocks; ++i) {
        const size_t b = (size_t)(v[i] & ((1u << 20) - 1));
        printf("%6zu %4zu %4llu %8.2f %8.2f\n", b % grid.x, b / grid.x, s[b][3],
               (double)(s[b][0] - t0) / 1e3, (double)(s[b][2] - s[b][1]) / 1e3);
    }
    /* the last blocks to end: which tiles, and when */
    for (size_t b = 0; b < blocks; ++b)
        v[b] = (s[b][2] - t0) << 20 | b;
    qsort(v, blocks, sizeof *v, by_u64);
    printf("the last 24 blocks to end: tile row, column, SM, entry, tile in, end (us)\n");
    for (size_t i = blocks > 24 ? blocks - 24 : 0; i < blocks; ++i) {
        const size_t b = (size_t)(v[i] & ((1u << 20) - 1));
        printf("%6zu %4zu %4llu %8.2f %8.2f %8.2f\n", b % grid.x, b / grid.x, s[b][3],
               (double)(s[b][0] - t0) / 1e3, (double)(s[b][1] - t0) / 1e3,
               (double)(s[b][2] - t0) / 1e3);
    }
    free(order);
    free(v);
    free(s);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(flush));
    CHECK(cudaFree(stamps));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

/* --resident: the same kernel with dynamic shared memory that leaves
 * room for 4, 3 or 2 blocks an SM (fewer tiles in flight: shorter waits
 * for each), medians of 30 reps in turns, as a fraction of the copy
 * kernel's. */
static void resident(int e, int64_t rows, int64_t cols, int l2)
{
    const size_t bytes = (size_t)(rows * cols * e);
    const dim3 grid((unsigned)transpose_lines_tile_rows(e, rows),
                    (unsigned)transpose_cells_tile_cols(e, cols));
    const int tile = TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, e));
    const int extra[4] = {0, 0, 70 * 1024 - tile, 100 * 1024 - tile}; /* none; 4, 3, 2 an SM */
    void *in, *out, *flush;
    unsigned long long(*stamps)[4];
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
    CHECK(cudaMalloc(&stamps, (size_t)grid.x * grid.y * sizeof *stamps));
    CHECK(cudaMemset(in, 0x5a, bytes));
    CHECK(cudaFuncSetAttribute(lines_timed<1>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               100 * 1024));
    CHECK(cudaFuncSetAttribute(lines_timed<2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               100 * 1024));
    const bool flushed = 2 * bytes < 4 * (size_t)l2;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    enum { REPS = 30 };
    static float ms[4][REPS];
    for (int rep = -2; rep < REPS; ++rep)
        for (int k = 0; k < 4; ++k) {
            if (flushed)
                flush_l2(flush, 2 * (size_t)l2, rep);
            CHECK(cudaEventRecord(start, 0));
            if (k == 0)
                CHECK(bf_copy_kernel_ceiling(out, in, bytes, 0));
            else if (e == 1)
                lines_timed<1><<<grid, TRANSPOSE_CELLS_THREADS, (size_t)extra[k]>>>(out, in, rows,
                                                                                    cols, stamps);
            else
                lines_timed<2><<<grid, TRANSPOSE_CELLS_THREADS, (size_t)extra[k]>>>(out, in, rows,
                                                                                    cols, stamps);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(stop, 0));
            CHECK(cudaEventSynchronize(stop));
            if (rep >= 0)
                CHECK(cudaEventElapsedTime(&ms[k][rep], start, stop));
        }
    float med[4];
    for (int k = 0; k < 4; ++k) {
        qsort(ms[k], REPS, sizeof **ms, by_value);
        med[k] = ms[k][REPS / 2];
    }
    printf(
        "e %d, %lld x %lld: copy kernel %.1f us; 4 an SM %.3f, 3 an SM %.3f, 2 an SM %.3f of it\n",
        e, (long long)rows, (long long)cols, 1e3 * med[0], med[0] / med[1], med[0] / med[2],
        med[0] / med[3]);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(flush));
    CHECK(cudaFree(stamps));
}

int main(int argc, char **argv)
{
    int sms = 0, l2 = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    if (argc > 1 && strcmp(argv[1], "--resident") == 0) {
        for (int a = 2; a + 2 < argc; a += 3)
            resident(atoi(argv[a]), atoll(argv[a + 1]), atoll(argv[a + 2]), l2);
        return 0;
    }
    if (argc > 1) {
        for (int a = 1; a + 2 < argc; a += 3)
            run(atoi(argv[a]), atoll(argv[a + 1]), atoll(argv[a + 2]), sms, l2);
        return 0;
    }
    static const struct probe_case cases[] = {
        {1, 7919, 8209}, {1, 7553, 8209}, {1, 16383, 16385}, {2, 7919, 8209}, {2, 16383, 16385}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
        run(cases[c].e, cases[c].rows, cases[c].cols, sms, l2);
    return 0;
}
