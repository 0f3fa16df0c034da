/* Bytes and halves at odd shapes: the packed lines kernel (a grid of one
 * tile a block, four blocks an SM, each copying its tile in, then storing
 * it) against the same tiles on a persistent grid, two tiles a block in
 * shared memory, the next one's copies in flight while it stores this one
 * (transpose_packed_lines_piped). Contenders' reps interleaved, timed as
 * `bankfree bench` times (L2 flushed by a read where the data is under 4x
 * L2, else cold; medians of 60), as a fraction of the bench's copy kernel;
 * each piped output compared in full with the library's. Slower but for
 * the smallest bytes (docs/notes/transpose/odd-shapes.md). On a GPU machine:
 *   cmake --build build --target transpose_probe_lines_piped &&
 *   build/transpose/transpose_probe_lines_piped */
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

/* The lines kernel on a grid of at most Blocks blocks an SM, each taking
 * tiles t = blockIdx.x, + gridDim.x, ... (tile row t mod tile_rows: the
 * library grid's order), two tiles in shared memory: the next tile's copies
 * are in flight while the block stores this one. */
static __device__ __forceinline__ void copies_commit()
{
#if BF_SM80
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
static __device__ __forceinline__ void copies_wait_but_last()
{
#if BF_SM80
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#endif
}

template <int E, int Blocks>
__global__ void __launch_bounds__(TRANSPOSE_CELLS_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_CELLS_THREADS, Blocks))
    transpose_packed_lines_piped(void *__restrict__ out_, const void *__restrict__ in_,
                                 int64_t rows, int64_t cols, int64_t tile_rows, int64_t tiles)
{
    constexpr int bytes = TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, E));
    extern __shared__ __align__(128) unsigned char both[];
    unsigned char *__restrict__ out = (unsigned char *)out_;
    const unsigned char *__restrict__ in = (const unsigned char *)in_;
    int64_t t = blockIdx.x;
    const auto copy = [&](int64_t tile, unsigned char *to) {
        const int64_t tile_row = tile % tile_rows, tile_col = tile / tile_rows;
        if (transpose_lines_edge(E, rows, cols, tile_row, tile_col))
            lines_copy<E, true>(to, in, rows, cols, tile_row, tile_col);
        else
            lines_copy<E, false>(to, in, rows, cols, tile_row, tile_col);
    };
    copy(t, both);
    copies_commit();
    for (int b = 0; t < tiles; t += gridDim.x, b ^= 1) {
        if (t + gridDim.x < tiles)
            copy(t + gridDim.x, both + (b ^ 1) * bytes);
        copies_commit();
        copies_wait_but_last();
        __syncthreads();
        const int64_t tile_row = t % tile_rows, tile_col = t / tile_rows;
        const unsigned char *tile = both + b * bytes;
        if (transpose_lines_edge(E, rows, cols, tile_row, tile_col))
            lines_store<E, true>(out, in, rows, cols, tile_row, tile_col, tile);
        else
            lines_store<E, false>(out, in, rows, cols, tile_row, tile_col, tile);
        __syncthreads(); /* before the next copies overwrite it */
    }
}

enum { REPS = 60, CONTENDERS = 5 };

template <int E, int Blocks>
static void launch_piped(void *out, const void *in, int64_t rows, int64_t cols, int sms)
{
    const int bytes = 2 * TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, E));
    static bool set = false;
    if (!set) {
        CHECK(cudaFuncSetAttribute(transpose_packed_lines_piped<E, Blocks>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        set = true;
    }
    const int64_t tile_rows = transpose_lines_tile_rows(E, rows);
    const int64_t tiles = tile_rows * transpose_cells_tile_cols(E, cols);
    const int64_t grid = tiles < (int64_t)Blocks * sms ? tiles : (int64_t)Blocks * sms;
    transpose_packed_lines_piped<E, Blocks>
        <<<(unsigned)grid, TRANSPOSE_CELLS_THREADS, bytes>>>(out, in, rows, cols, tile_rows, tiles);
    CHECK(cudaGetLastError());
}

/* 0 copy kernel, 1 library, 2 piped at 2 blocks an SM, 3 at 3, 4 at 4
 * (halves; bytes' two tiles take 96 KiB: 2 only). False: not run. */
static bool launch(int k, void *out, const void *in, int64_t rows, int64_t cols, int e, int sms)
{
    switch (k) {
    case 0:
        CHECK(bf_copy_kernel_ceiling(out, in, (size_t)(rows * cols * e), 0));
        return true;
    case 1:
        CHECK(transpose(TRANSPOSE_PACKED, e, out, in, rows, cols, 0));
        return true;
    case 2:
        if (e == 1)
            launch_piped<1, 2>(out, in, rows, cols, sms);
        else
            launch_piped<2, 2>(out, in, rows, cols, sms);
        return true;
    case 3:
        if (e == 1)
            return false;
        launch_piped<2, 3>(out, in, rows, cols, sms);
        return true;
    default:
        if (e == 1)
            return false;
        launch_piped<2, 4>(out, in, rows, cols, sms);
        return true;
    }
}

int main(void)
{
    static const struct {
        int e;
        int64_t rows, cols;
    } cases[] = {
        {1, 7919, 8209}, {1, 16383, 16385}, {1, 8193, 8193}, {1, 2047, 2049}, {1, 4099, 300},
        {2, 7919, 8209}, {2, 16383, 16385}, {2, 8193, 8193}, {2, 2047, 2049}, {2, 300, 4099},
    };
    const size_t count = sizeof cases / sizeof *cases;
    size_t most = 0;
    for (size_t c = 0; c < count; ++c)
        if ((size_t)(cases[c].rows * cases[c].cols * cases[c].e) > most)
            most = (size_t)(cases[c].rows * cases[c].cols * cases[c].e);
    int l2 = 0, sms = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned char *host = (unsigned char *)malloc(most), *mine = (unsigned char *)malloc(most);
    if (host == NULL || mine == NULL)
        return 1;
    uint32_t x = 12345u;
    for (size_t i = 0; i < most; ++i) {
        x = x * 1664525u + 1013904223u;
        host[i] = (unsigned char)(x >> 24);
    }
    void *in, *out, *ref, *flush;
    CHECK(cudaMalloc(&in, most));
    CHECK(cudaMalloc(&out, most));
    CHECK(cudaMalloc(&ref, most));
    CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
    CHECK(cudaMemset(flush, 1, 2 * (size_t)l2));
    CHECK(cudaMemcpy(in, host, most, cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    static const char *const names[CONTENDERS] = {"copy kernel", "library", "piped 2", "piped 3",
                                                  "piped 4"};
    printf("%2s %-11s %8s", "e", "shape", "l2");
    for (int k = 0; k < CONTENDERS; ++k)
        printf(" %11s us  of copy", names[k]);
    printf("  same bytes\n");
    for (size_t c = 0; c < count; ++c) {
        const int e = cases[c].e;
        const int64_t rows = cases[c].rows, cols = cases[c].cols;
        const size_t bytes = (size_t)(rows * cols * e);
        const bool flushed = 2 * bytes < 4 * (size_t)l2;
        static float ms[CONTENDERS][REPS];
        bool ran[CONTENDERS] = {false};
        for (int rep = -3; rep < REPS; ++rep)
            for (int k = 0; k < CONTENDERS; ++k) {
                if (flushed)
                    flush_l2(flush, 2 * (size_t)l2, rep);
                CHECK(cudaEventRecord(start, 0));
                ran[k] = launch(k, out, in, rows, cols, e, sms);
                CHECK(cudaEventRecord(stop, 0));
                CHECK(cudaEventSynchronize(stop));
                if (rep >= 0)
                    CHECK(cudaEventElapsedTime(&ms[k][rep], start, stop));
            }
        /* Every piped form against the library, outputs poisoned first. */
        int same = 1;
        CHECK(cudaMemset(ref, 0xa5, bytes));
        launch(1, ref, in, rows, cols, e, sms);
        CHECK(cudaMemcpy(host, ref, bytes, cudaMemcpyDeviceToHost));
        for (int k = 2; k < CONTENDERS; ++k) {
            CHECK(cudaMemset(out, 0x5a, bytes));
            if (!launch(k, out, in, rows, cols, e, sms))
                continue;
            CHECK(cudaMemcpy(mine, out, bytes, cudaMemcpyDeviceToHost));
            same &= memcmp(host, mine, bytes) == 0;
        }
        printf("%2d %5lldx%-5lld %8s", e, (long long)rows, (long long)cols,
               flushed ? "flushed" : "cold");
        for (int k = 0; k < CONTENDERS; ++k) {
            if (!ran[k]) {
                printf(" %14s  %8s", "-", "-");
                continue;
            }
            qsort(ms[k], REPS, sizeof(float), by_value);
            printf(" %14.1f  %8.3f", ms[k][REPS / 2] * 1e3, ms[0][REPS / 2] / ms[k][REPS / 2]);
        }
        printf("  %s\n", same ? "yes" : "NO");
    }
    return 0;
}
