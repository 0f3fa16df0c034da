/* fp32 transpose: the naive kernel, the shared tile that conflicts, and its two
 * fixes. The three tiled kernels share one body; they differ only in where
 * transpose_tile_offset (transpose_layout.h) puts an element of the tile. */
#include "transpose/transpose.h"
#include "transpose/transpose_layout.h"

#define TRANSPOSE_THREADS (32 * TRANSPOSE_BLOCK_ROWS)

/* Four blocks an SM, all 64 warps: 30 registers, no spills. Free, the
 * compiler takes 40 and three blocks fit, 2-4% slower on H100 at 2048^2. */
#ifndef TRANSPOSE_MIN_BLOCKS
#define TRANSPOSE_MIN_BLOCKS 4
#endif
#define TRANSPOSE_BOUNDS __launch_bounds__(TRANSPOSE_THREADS, TRANSPOSE_MIN_BLOCKS)

static __host__ __device__ __forceinline__ int64_t tile_cols(int64_t cols)
{
    return (cols + TRANSPOSE_TILE_COLS - 1) / TRANSPOSE_TILE_COLS;
}

/* Grid: x walks tile rows, so blocks launched one after another write the
 * neighbouring segments of the same output rows; y walks tile columns, and is
 * capped at 65535, so a block may loop over several. */

/* No shared memory: a warp reads 32 consecutive floats of an input row and
 * writes each of them to a different output row. Its elements are those the
 * tiled kernels' load phase reads (transpose_load_move). */
__global__ void TRANSPOSE_BOUNDS transpose_naive(float *__restrict__ out,
                                                 const float *__restrict__ in, int64_t rows,
                                                 int64_t cols)
{
    for (int64_t tile_col = blockIdx.y; tile_col < tile_cols(cols); tile_col += gridDim.y) {
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            int64_t r = (int64_t)blockIdx.x * TRANSPOSE_TILE_ROWS + threadIdx.y +
                        k / TRANSPOSE_ROW_LOADS * TRANSPOSE_BLOCK_ROWS;
            int64_t c = tile_col * TRANSPOSE_TILE_COLS + k % TRANSPOSE_ROW_LOADS * 32 + threadIdx.x;
            if (r < rows && c < cols)
                out[c * rows + r] = in[r * cols + c];
        }
    }
}

/* Both global accesses coalesced: the tile is filled along input rows and
 * emptied along output rows. Each phase loads all its elements before it
 * stores any, so they are in flight together. Every thread writes its words
 * of the tile, even outside the matrix (the words exist; only global accesses
 * need guarding), so the tile writes are the same in every tile and compile
 * to plain stores. The tile reads are guarded like the global writes they
 * feed: a read whose value is never stored may not happen at all. */
static __device__ __forceinline__ void transpose_tiled(enum transpose_variant variant, float *tile,
                                                       float *__restrict__ out,
                                                       const float *__restrict__ in, int64_t rows,
                                                       int64_t cols)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t tile_row = blockIdx.x;
    for (int64_t tile_col = blockIdx.y; tile_col < tile_cols(cols); tile_col += gridDim.y) {
        const struct transpose_tile t = transpose_tile_at(rows, cols, tile_row, tile_col);
        float v[TRANSPOSE_STEPS] = {0};
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            struct transpose_move m = transpose_load_move(variant, &t, tx, ty, k);
            if (m.active)
                v[k] = in[m.global];
        }
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k)
            tile[transpose_load_move(variant, &t, tx, ty, k).smem] = v[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            struct transpose_move m = transpose_store_move(variant, &t, tx, ty, k);
            if (m.active)
                v[k] = tile[m.smem];
        }
#pragma unroll
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            struct transpose_move m = transpose_store_move(variant, &t, tx, ty, k);
            if (m.active)
                out[m.global] = v[k];
        }
        if (tile_col + gridDim.y < tile_cols(cols))
            __syncthreads(); /* the next tile overwrites this one */
    }
}

/* tile[64][64] read down a column: 32 lanes, 32 words, all in one bank. */
__global__ void TRANSPOSE_BOUNDS transpose_conflicting(float *__restrict__ out,
                                                       const float *__restrict__ in, int64_t rows,
                                                       int64_t cols)
{
    __shared__ __align__(128) float tile[TRANSPOSE_TILE_ROWS * TRANSPOSE_TILE_COLS];
    transpose_tiled(TRANSPOSE_CONFLICTING, tile, out, in, rows, cols);
}

/* tile[64][65]: one spare word a row shifts each row by one bank. */
__global__ void TRANSPOSE_BOUNDS transpose_padded(float *__restrict__ out,
                                                  const float *__restrict__ in, int64_t rows,
                                                  int64_t cols)
{
    __shared__ __align__(128) float tile[TRANSPOSE_TILE_ROWS * (TRANSPOSE_TILE_COLS + 1)];
    transpose_tiled(TRANSPOSE_PADDED, tile, out, in, rows, cols);
}

/* tile[64][64], column c of row r kept at c ^ (r % 32): any 32 consecutive
 * rows of a column, and any row, are a permutation of the 32 banks, and no
 * word is wasted. */
__global__ void TRANSPOSE_BOUNDS transpose_swizzled(float *__restrict__ out,
                                                    const float *__restrict__ in, int64_t rows,
                                                    int64_t cols)
{
    __shared__ __align__(128) float tile[TRANSPOSE_TILE_ROWS * TRANSPOSE_TILE_COLS];
    transpose_tiled(TRANSPOSE_SWIZZLED, tile, out, in, rows, cols);
}

extern "C" cudaError_t transpose_f32(enum transpose_variant variant, float *out, const float *in,
                                     int64_t rows, int64_t cols, cudaStream_t stream)
{
    if (out == NULL || in == NULL || transpose_refusal(rows, cols) != NULL)
        return cudaErrorInvalidValue;
    int64_t tiles_r = (rows + TRANSPOSE_TILE_ROWS - 1) / TRANSPOSE_TILE_ROWS;
    int64_t tiles_c = tile_cols(cols);
    dim3 grid((unsigned)tiles_r, (unsigned)(tiles_c < 65535 ? tiles_c : 65535));
    dim3 block(32, TRANSPOSE_BLOCK_ROWS);
    switch (variant) {
    case TRANSPOSE_NAIVE:
        transpose_naive<<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_CONFLICTING:
        transpose_conflicting<<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_PADDED:
        transpose_padded<<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_SWIZZLED:
        transpose_swizzled<<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
