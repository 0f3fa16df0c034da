/* Packed bytes and halves at 0.95 of copy on aligned shapes: the tile
 * copied in raw, 256 bytes of each input row, by cp.async. The probe that
 * became the library's cells kernel (transpose_packed_cells); kept for the
 * tile shapes docs/notes/transpose/ compares (-DTILE_ROWS, -DCHUNKS).
 *
 * The register-loaded packed kernel (4x4 byte or 2x2 half cells, each
 * loaded into registers, transposed with prmt and written to a padded tile
 * as one 16- or 8-byte access; transpose_packed, which packed still takes
 * where the cells kernel does not) stops at 0.93 / 0.92 of copy at 16384^2
 * on the H100, and every reshaping of it tried stopped there too: wider
 * tiles, every load issued first, a tile of output words
 * (docs/notes/transpose/). This kernel differs in two things at once, and
 * reaches 0.95-0.96 where both hold (docs/notes/transpose/ gives each
 * alone):
 *
 *   - a tile row is 256 bytes of an input row (16 chunks of 16 bytes), so
 *     half as many rows a byte, and DRAM pages opened, as the packed tile's 128;
 *   - the tile is filled by cp.async, 16 bytes a lane straight into shared
 *     memory: a block's whole tile (32 KiB) in flight at once, no register
 *     holding any of it, and the cells transposed on the way out.
 *
 * Chunk j of tile row t sits at chunk j ^ (t / K % 16) of its row (K = 4
 * rows a byte cell, 2 a half cell). A warp's lanes q read the K rows of
 * cell row q, chunk j, as 16-byte loads: the 8 lanes of each quarter-warp
 * have 8 different q % 8, so 8 different 16-byte groups of banks, a
 * wavefront each quarter (the ideal). The copies write whole 128-byte
 * lines. Each lane then holds 4 cells of K x K, transposes them (prmt) and
 * writes 16 (bytes) or 8 (halves) output words, lanes along the output row:
 * 128 bytes a warp's store.
 *
 * Aligned shapes only (rows a multiple of K, cols of the tile's 256 bytes,
 * both pointers on 16 bytes). Checks its output against the register-loaded
 * packed kernel byte for byte and times both beside cudaMemcpyAsync of the
 * same bytes, L2 flushed before every rep, reps interleaved, medians. On a
 * GPU machine, from the repository root:
 *   nvcc -O3 -arch=sm_90 -I. transpose/probes/cp_async_cells.cu common/l2_flush.cu \
 *        -o cells && ./cells
 * (-DWARPS, -DMIN_BLOCKS, -DTILE_ROWS, -DCHUNKS: the shapes
 * docs/notes/transpose/ compares; the defaults are the fastest measured). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transpose/probes/check.h"
#include "transpose/transpose_packed.cu"

#ifndef WARPS
#define WARPS 16
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 3
#endif
#ifndef TILE_ROWS
#define TILE_ROWS 128 /* input rows a tile */
#endif
#ifndef CHUNKS
#define CHUNKS 16 /* 16-byte chunks a tile row: 256 bytes */
#endif

enum { REPS = 60, FLUSH_BYTES = 256 << 20 };

template <int E>
__global__ void __launch_bounds__(32 * WARPS, MIN_BLOCKS)
    cp_async_cells(unsigned char *__restrict__ out, const unsigned char *__restrict__ in,
                   int64_t rows, int64_t cols)
{
    constexpr int K = 4 / E; /* rows (and columns) of a cell: one word a cell row */
    extern __shared__ uint4 tile[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int64_t r0 = (int64_t)blockIdx.x * TILE_ROWS,
                  c0 = (int64_t)blockIdx.y * (16 * CHUNKS / E);

    /* Rows below the matrix copy its last row again (never stored). */
#pragma unroll
    for (int n = 0; n < TILE_ROWS * CHUNKS / (32 * WARPS); ++n) {
        const int id = threadIdx.x + 32 * WARPS * n, t = id / CHUNKS, j = id % CHUNKS;
        const int64_t r = min(r0 + t, rows - 1);
        copy_chunk(&tile[t * CHUNKS + (j ^ (t / K % CHUNKS))], in + (r * cols + c0) * E + 16 * j,
                   true);
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_all;\n" ::: "memory");
    __syncthreads();

    /* Warp w takes chunks w, w + WARPS, ...; lane q the cell rows q, q + 32, ... */
    const int cell_rows = (int)min((int64_t)TILE_ROWS / K, (rows - r0) / K);
    for (int j = warp; j < CHUNKS; j += WARPS) {
#pragma unroll
        for (int h = 0; h < (TILE_ROWS / K + 31) / 32; ++h) {
            const int q = lane + 32 * h;
            if (q >= TILE_ROWS / K)
                break;
            uint32_t cell[4][K]; /* cell m: row i is word m of the chunk's row K q + i */
#pragma unroll
            for (int i = 0; i < K; ++i) {
                const uint4 v = tile[(K * q + i) * CHUNKS + (j ^ (q % CHUNKS))];
                cell[0][i] = v.x;
                cell[1][i] = v.y;
                cell[2][i] = v.z;
                cell[3][i] = v.w;
            }
            if (q >= cell_rows)
                continue;
#pragma unroll
            for (int m = 0; m < 4; ++m) {
                transpose_block(cell[m]); /* word e: column 16 / E j + K m + e */
#pragma unroll
                for (int e = 0; e < K; ++e) {
                    const int64_t oc = c0 + 16 / E * j + K * m + e;
                    *(uint32_t *)(out + (oc * rows + r0 + K * q) * E) = cell[m][e];
                }
            }
        }
    }
}

/* 0: cudaMemcpyAsync, 1: the register-loaded packed kernel (transpose_packed,
 * bytes on its aligned-words path, halves on its funnel one, as the
 * launcher picked them before the cells kernel), 2: this one. */
template <int E>
static void run(int kernel, unsigned char *out, const unsigned char *in, int64_t rows, int64_t cols)
{
    if (kernel == 0) {
        CHECK(cudaMemcpyAsync(out, in, (size_t)(rows * cols * E), cudaMemcpyDeviceToDevice, 0));
    } else if (kernel == 1) {
        const dim3 grid((unsigned)transpose_grid_rows(TRANSPOSE_PACKED, E, rows, 0),
                        (unsigned)((cols + transpose_tile_width(TRANSPOSE_PACKED, E) - 1) /
                                   transpose_tile_width(TRANSPOSE_PACKED, E)));
        transpose_packed<E, E == 1><<<grid, dim3(32, TRANSPOSE_BLOCK_ROWS)>>>(out, in, rows, cols);
        CHECK(cudaGetLastError());
    } else {
        const int bytes = TILE_ROWS * CHUNKS * 16;
        const dim3 grid((unsigned)((rows + TILE_ROWS - 1) / TILE_ROWS),
                        (unsigned)(cols / (16 * CHUNKS / E)));
        CHECK(cudaFuncSetAttribute(cp_async_cells<E>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   bytes));
        cp_async_cells<E><<<grid, 32 * WARPS, bytes>>>(out, in, rows, cols);
        CHECK(cudaGetLastError());
    }
}

template <int E>
static void measure(int64_t rows, int64_t cols, unsigned char *in, unsigned char *out,
                    unsigned char *want, unsigned char *flush, unsigned char *host,
                    unsigned char *got)
{
    const size_t n = (size_t)(rows * cols * E);
    if (rows % (4 / E) != 0 || cols % (16 * CHUNKS / E) != 0) {
        printf("%dB %lldx%lld: not an aligned shape for this probe\n", E, (long long)rows,
               (long long)cols);
        return;
    }
    run<E>(1, want, in, rows, cols);
    CHECK(cudaMemset(out, 0xa5, n));
    run<E>(2, out, in, rows, cols);
    CHECK(cudaMemcpy(host, want, n, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got, out, n, cudaMemcpyDeviceToHost));
    if (memcmp(host, got, n) != 0) {
        size_t x = 0;
        while (host[x] == got[x])
            ++x;
        printf("WRONG %dB %lldx%lld: first difference at byte %zu\n", E, (long long)rows,
               (long long)cols, x);
        return;
    }
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    static float ms[3][REPS];
    for (int rep = -5; rep < REPS; ++rep)
        for (int k = 0; k < 3; ++k) {
            flush_l2(flush, FLUSH_BYTES, rep);
            CHECK(cudaEventRecord(start, 0));
            run<E>(k, out, in, rows, cols);
            CHECK(cudaEventRecord(stop, 0));
            CHECK(cudaEventSynchronize(stop));
            if (rep >= 0)
                CHECK(cudaEventElapsedTime(&ms[k][rep], start, stop));
        }
    float median[3];
    for (int k = 0; k < 3; ++k) {
        qsort(ms[k], REPS, sizeof(float), by_value);
        median[k] = ms[k][REPS / 2];
    }
    printf("%dB %5lldx%-6lld copy %7.1f us  packed %7.1f (%.3f)  cells %7.1f (%.3f)\n", E,
           (long long)rows, (long long)cols, median[0] * 1e3, median[1] * 1e3,
           median[0] / median[1], median[2] * 1e3, median[0] / median[2]);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

int main(void)
{
    const int64_t shapes[][2] = {{16384, 16384}, {8192, 8192},   {16384, 8192},
                                 {8192, 32768},  {20000, 16384}, {1024, 1024}};
    const size_t most = (size_t)20000 * 16384 * 2;
    unsigned char *in, *out, *want, *flush;
    CHECK(cudaMalloc(&in, most));
    CHECK(cudaMalloc(&out, most));
    CHECK(cudaMalloc(&want, most));
    CHECK(cudaMalloc(&flush, FLUSH_BYTES));
    unsigned char *host = (unsigned char *)malloc(most), *got = (unsigned char *)malloc(most);
    if (host == NULL || got == NULL)
        return 1;
    for (size_t i = 0; i < most; ++i)
        host[i] = (unsigned char)((i * 2654435761u) >> 13);
    CHECK(cudaMemcpy(in, host, most, cudaMemcpyHostToDevice));
    printf("cp_async_cells: %d warps, %d blocks an SM, %d rows x %d bytes a tile; of copy = "
           "copy's time / the kernel's\n",
           WARPS, MIN_BLOCKS, TILE_ROWS, 16 * CHUNKS);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s)
        measure<1>(shapes[s][0], shapes[s][1], in, out, want, flush, host, got);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s)
        measure<2>(shapes[s][0], shapes[s][1], in, out, want, flush, host, got);
    return 0;
}
