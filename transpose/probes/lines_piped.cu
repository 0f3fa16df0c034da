/* Bytes and halves at odd shapes: the packed lines kernel (the library's;
 * when this probe ran, a grid of one tile a block, four blocks an SM,
 * each copying its tile in, then storing it; halves stack two tiles a
 * block on large grids since: transpose_lines_stack) against the same tiles on a persistent grid,
 * two tiles a block in shared memory, the next one's copies in flight while it stores this one
 * (transpose_packed_lines_piped), and on a persistent grid of four blocks
 * an SM, one tile a block at a time (transpose_packed_lines_looped).
 * Contenders' reps interleaved, timed as
 * `bankfree bench` times (L2 flushed by a read where the data is under 4x
 * L2, else cold; medians of 60), as a fraction of the bench's copy kernel;
 * each output compared in full with the library's. Both slower but for
 * the smallest bytes (docs/notes/transpose/odd-shapes.md). On a GPU machine:
 *   cmake --build build --target transpose_probe_lines_piped &&
 *   build/transpose/transpose_probe_lines_piped */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ceilings.h"
#include "transpose/probes/check.h"
#include "transpose/probes/contenders.h"
#include "transpose/transpose.h"
/* The library's kernels; its launcher under another name (the probe links the library). */
#define transpose_packed_launch probe_packed_launch
#include "transpose/transpose_packed.cu"
#undef transpose_packed_launch

/* The lines kernel on a grid of at most Blocks blocks an SM, each taking
 * tiles t = blockIdx.x, + gridDim.x, ... (tile row t mod tile_rows: the
 * library grid's order), two tiles in shared memory: the next tile's copies
 * are in flight while the block stores this one (copies_commit,
 * copies_wait_but_last: the library's). */

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
            lines_copy<E, true, false>(to, in, rows, cols, tile_row, tile_col);
        else
            lines_copy<E, false, false>(to, in, rows, cols, tile_row, tile_col);
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

/* The lines kernel on a persistent grid of four blocks an SM, one tile a
 * block at a time (the library's tile and phases): no block ends and none
 * starts between tiles, the last tile's stores still draining while the
 * block copies the next. */
template <int E>
__global__ void __launch_bounds__(TRANSPOSE_CELLS_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_CELLS_THREADS, 4))
    transpose_packed_lines_looped(void *__restrict__ out_, const void *__restrict__ in_,
                                  int64_t rows, int64_t cols, int64_t tile_rows, int64_t tiles)
{
    __shared__ __align__(
        128) unsigned char tile[TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, E))];
    unsigned char *__restrict__ out = (unsigned char *)out_;
    const unsigned char *__restrict__ in = (const unsigned char *)in_;
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int64_t tile_row = t % tile_rows, tile_col = t / tile_rows;
        if (transpose_lines_edge(E, rows, cols, tile_row, tile_col))
            lines_tile<E, true>(out, in, rows, cols, tile_row, tile_col, tile);
        else
            lines_tile<E, false>(out, in, rows, cols, tile_row, tile_col, tile);
        __syncthreads(); /* before the next copies overwrite it */
    }
}

template <int E>
static void launch_looped(void *out, const void *in, int64_t rows, int64_t cols, int sms)
{
    const int64_t tile_rows = transpose_lines_tile_rows(E, rows);
    const int64_t tiles = tile_rows * transpose_cells_tile_cols(E, cols);
    const int64_t grid = tiles < 4 * (int64_t)sms ? tiles : 4 * (int64_t)sms;
    transpose_packed_lines_looped<E>
        <<<(unsigned)grid, TRANSPOSE_CELLS_THREADS>>>(out, in, rows, cols, tile_rows, tiles);
    CHECK(cudaGetLastError());
}

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
 * (halves; bytes' two tiles take 96 KiB: 2 only), 5 looped. False: not run. */
static int gpu_sms; /* the GPU's SMs */
static bool launch(int k, void *out, const void *in, int64_t rows, int64_t cols, int e)
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
            launch_piped<1, 2>(out, in, rows, cols, gpu_sms);
        else
            launch_piped<2, 2>(out, in, rows, cols, gpu_sms);
        return true;
    case 3:
        if (e == 1)
            return false;
        launch_piped<2, 3>(out, in, rows, cols, gpu_sms);
        return true;
    case 4:
        if (e == 1)
            return false;
        launch_piped<2, 4>(out, in, rows, cols, gpu_sms);
        return true;
    default:
        if (e == 1)
            launch_looped<1>(out, in, rows, cols, gpu_sms);
        else
            launch_looped<2>(out, in, rows, cols, gpu_sms);
        return true;
    }
}

int main(void)
{
    static const struct probe_case cases[] = {
        {1, 7919, 8209}, {1, 16383, 16385}, {1, 8193, 8193}, {1, 2047, 2049}, {1, 4099, 300},
        {2, 7919, 8209}, {2, 16383, 16385}, {2, 8193, 8193}, {2, 2047, 2049}, {2, 300, 4099},
    };
    static const char *const names[] = {"copy kernel", "library", "piped 2",
                                        "piped 3",     "piped 4", "looped 4"};
    CHECK(cudaDeviceGetAttribute(&gpu_sms, cudaDevAttrMultiProcessorCount, 0));
    probe_contenders(cases, sizeof cases / sizeof *cases, -1, names, 6, launch);
    return 0;
}
