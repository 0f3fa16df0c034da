/* fp32 transpose: the naive kernel, the shared tile that conflicts, and its two
 * fixes. The three tiled kernels share one body; they differ only in the
 * layout that transpose_tile_offset (transpose_layout.h) gives the tile. */
#include "transpose/transpose.h"
#include "transpose/transpose_layout.h"

/* A block walks down its column of tiles: gridDim.y is capped at 65535, so a
 * matrix with more tile rows than that gives each block several. */
/* 8 blocks of 256 threads fill an SM: ask for registers to match. */
#define TRANSPOSE_THREADS (TRANSPOSE_TILE * TRANSPOSE_BLOCK_ROWS)
#define TRANSPOSE_BOUNDS  __launch_bounds__(TRANSPOSE_THREADS, 2048 / TRANSPOSE_THREADS)

static __host__ __device__ __forceinline__ int64_t tile_rows(int64_t rows)
{
    return (rows + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE;
}

/* No shared memory: a warp reads 32 consecutive floats of a row and writes
 * them 32 output rows apart, so each write touches its own 32-byte sector. */
__global__ void TRANSPOSE_BOUNDS transpose_naive(float *__restrict__ out, const float *__restrict__ in,
                                int64_t rows, int64_t cols)
{
    for (int64_t tile_row = blockIdx.y; tile_row < tile_rows(rows); tile_row += gridDim.y) {
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            int64_t r = tile_row * TRANSPOSE_TILE + threadIdx.y + k * TRANSPOSE_BLOCK_ROWS;
            int64_t c = (int64_t)blockIdx.x * TRANSPOSE_TILE + threadIdx.x;
            if (r < rows && c < cols)
                out[c * rows + r] = in[r * cols + c];
        }
    }
}

/* Both global accesses coalesced: rows of the tile are read along the input,
 * columns of the tile are written along the output. */
static __device__ __forceinline__ void transpose_tiled(enum transpose_layout layout, float *tile,
                                                       float *__restrict__ out,
                                                       const float *__restrict__ in, int64_t rows,
                                                       int64_t cols)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t tile_col = blockIdx.x;
    float v[TRANSPOSE_STEPS]; /* all four loads in flight before the first store */
    for (int64_t tile_row = blockIdx.y; tile_row < tile_rows(rows); tile_row += gridDim.y) {
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            struct transpose_move m =
                transpose_load_move(layout, rows, cols, tile_row, tile_col, tx, ty, k);
            if (m.active)
                v[k] = in[m.global];
        }
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            struct transpose_move m =
                transpose_load_move(layout, rows, cols, tile_row, tile_col, tx, ty, k);
            if (m.active)
                tile[m.smem] = v[k];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            struct transpose_move m =
                transpose_store_move(layout, rows, cols, tile_row, tile_col, tx, ty, k);
            if (m.active)
                v[k] = tile[m.smem];
        }
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            struct transpose_move m =
                transpose_store_move(layout, rows, cols, tile_row, tile_col, tx, ty, k);
            if (m.active)
                out[m.global] = v[k];
        }
        if (tile_row + gridDim.y < tile_rows(rows))
            __syncthreads(); /* the next tile overwrites this one */
    }
}

/* tile[32][32] read down a column: 32 lanes, 32 words, all in one bank. */
__global__ void TRANSPOSE_BOUNDS transpose_conflicting(float *__restrict__ out, const float *__restrict__ in,
                                      int64_t rows, int64_t cols)
{
    __shared__ __align__(128) float tile[TRANSPOSE_TILE * TRANSPOSE_TILE];
    transpose_tiled(TRANSPOSE_ROW_MAJOR, tile, out, in, rows, cols);
}

/* tile[32][33]: one spare word a row shifts each row by one bank. */
__global__ void TRANSPOSE_BOUNDS transpose_padded(float *__restrict__ out, const float *__restrict__ in,
                                 int64_t rows, int64_t cols)
{
    __shared__ __align__(128) float tile[TRANSPOSE_TILE * (TRANSPOSE_TILE + 1)];
    transpose_tiled(TRANSPOSE_PADDED, tile, out, in, rows, cols);
}

/* tile[32][32], column c of row r kept at c ^ r: every row and every column
 * is a permutation of the 32 banks, and no word is wasted. */
__global__ void TRANSPOSE_BOUNDS transpose_swizzled(float *__restrict__ out, const float *__restrict__ in,
                                   int64_t rows, int64_t cols)
{
    __shared__ __align__(128) float tile[TRANSPOSE_TILE * TRANSPOSE_TILE];
    transpose_tiled(TRANSPOSE_SWIZZLED, tile, out, in, rows, cols);
}

extern "C" cudaError_t transpose_f32(enum transpose_variant variant, float *out, const float *in,
                                     int64_t rows, int64_t cols, cudaStream_t stream)
{
    if (out == NULL || in == NULL || rows < 1 || cols < 1 || rows > INT64_MAX / cols)
        return cudaErrorInvalidValue;
    int64_t tiles_r = tile_rows(rows), tiles_c = (cols + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE;
    if (tiles_c > INT32_MAX)
        return cudaErrorInvalidValue; /* gridDim.x limit */
    dim3 grid((unsigned)tiles_c, (unsigned)(tiles_r < 65535 ? tiles_r : 65535));
    dim3 block(TRANSPOSE_TILE, TRANSPOSE_BLOCK_ROWS);
    switch (variant) {
    case TRANSPOSE_NAIVE:
        transpose_naive<<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_CONFLICTING:
        transpose_conflicting<<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_PADDED_TILE:
        transpose_padded<<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_SWIZZLED_TILE:
        transpose_swizzled<<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
