/* Transpose of 1-, 2-, 4-, 8- and 16-byte elements: the naive kernel, the
 * shared tile that conflicts, and its two fixes. The conflicting, padded and
 * swizzled kernels share one body (transpose_tiled, transpose_layout.h);
 * they differ only in where transpose_tile_offset puts a cell of the tile.
 * Each kernel is a template on the element size: the move is bit for bit,
 * so an element is an unsigned word of its size. The packed variant (1- and
 * 2-byte elements) lives in transpose_packed.cu and
 * transpose_packed_layout.h; a copy without them refuses it. */
#include "transpose/transpose.h"
#include "transpose/transpose_layout.h"

#define TRANSPOSE_BOUNDS                                                                           \
    __launch_bounds__(TRANSPOSE_THREADS, BF_MIN_BLOCKS(TRANSPOSE_THREADS, TRANSPOSE_MIN_BLOCKS))

/* Grid: x walks tile rows, so blocks launched one after another write the
 * neighbouring segments of the same output rows; y walks tile columns, and is
 * capped at 65535, so a block may loop over several. */

/* No shared memory: a warp reads 32 consecutive elements of an input row and
 * writes each of them to a different output row. Its elements are those the
 * tiled kernels' load phase reads (transpose_load_move), less the rows above
 * that the sector-aligned tiles read too. */
template <int E>
__global__ void TRANSPOSE_BOUNDS transpose_naive(void *__restrict__ out_,
                                                 const void *__restrict__ in_, int64_t rows,
                                                 int64_t cols)
{
    typedef typename transpose_elem<E>::type T;
    constexpr enum transpose_variant V = TRANSPOSE_NAIVE;
    T *__restrict__ out = (T *)out_;
    const T *__restrict__ in = (const T *)in_;
    for (int64_t tile_col = blockIdx.y; tile_col < tile_cols<E, V>(cols); tile_col += gridDim.y) {
        const struct transpose_tile t =
            transpose_tile_at(V, E, rows, cols, 0, blockIdx.x, tile_col);
#pragma unroll
        for (int k = 0; k < transpose_steps(V, E); ++k) {
            struct transpose_move m = transpose_load_move(V, E, &t, threadIdx.x, threadIdx.y, k);
            int64_t r = (int64_t)blockIdx.x * transpose_tile_height(V, E) + m.row;
            int64_t c = tile_col * transpose_tile_width(V, E) + m.col;
            if (m.active)
                out[c * rows + r] = in[m.global];
        }
    }
}

/* How the tiled kernels' cells meet global memory: one element a cell. A
 * mover is made for each tile. (`in`, const and __restrict__, already loads
 * through the read-only cache, LDG.CONSTANT; __ldg here costs registers:
 * swizzled fp32 spills 8 bytes at 32.) */
template <int E> struct transpose_elements {
    typedef typename transpose_elem<E>::type Cell;
    Cell *__restrict__ out;
    const Cell *__restrict__ in;

    static constexpr bool all_lanes = false;
    static __device__ __forceinline__ bool takes(const struct transpose_tile &)
    {
        return true;
    }
    __device__ __forceinline__ transpose_elements(void *out, const void *in,
                                                  const struct transpose_tile &)
        : out((Cell *)out), in((const Cell *)in)
    {
    }
    __device__ __forceinline__ Cell load(const struct transpose_move &m) const
    {
        return in[m.global];
    }
    __device__ __forceinline__ void store(const struct transpose_move &m, Cell v)
    {
        out[m.global] = v;
    }
};

/* tile[64][64] of floats (71 rows: 7 above, used where output rows are off
 * the sectors) read down a column: 32 lanes, 32 words, one bank.
 * (Bytes: 16 words in 2 banks; 8- and 16-byte elements: 16 and 8 ways.) */
template <int E>
__global__ void TRANSPOSE_BOUNDS transpose_conflicting(void *__restrict__ out,
                                                       const void *__restrict__ in, int64_t rows,
                                                       int64_t cols)
{
    __shared__ __align__(128) unsigned char tile[transpose_tile_bytes(TRANSPOSE_CONFLICTING, E)];
    transpose_tiled<E, TRANSPOSE_CONFLICTING, transpose_elements<E>>(tile, out, in, rows, cols);
}

/* tile[64][65] of floats (71 rows, as above): one spare unit (4 bytes, or
 * the element where wider) a row moves each row one unit further along the
 * banks. */
template <int E>
__global__ void TRANSPOSE_BOUNDS transpose_padded(void *__restrict__ out,
                                                  const void *__restrict__ in, int64_t rows,
                                                  int64_t cols)
{
    __shared__ __align__(128) unsigned char tile[transpose_tile_bytes(TRANSPOSE_PADDED, E)];
    transpose_tiled<E, TRANSPOSE_PADDED, transpose_elements<E>>(tile, out, in, rows, cols);
}

/* tile[64][64] of floats (71 rows, as above), column c of row r kept at
 * c ^ (r % 32): any 32 consecutive rows of a column, and any row, are a
 * permutation of the 32 banks, and no byte is wasted. Other sizes XOR their
 * unit (4 bytes, or the element where wider) within its 128-byte line. */
template <int E>
__global__ void TRANSPOSE_BOUNDS transpose_swizzled(void *__restrict__ out,
                                                    const void *__restrict__ in, int64_t rows,
                                                    int64_t cols)
{
    __shared__ __align__(128) unsigned char tile[transpose_tile_bytes(TRANSPOSE_SWIZZLED, E)];
    transpose_tiled<E, TRANSPOSE_SWIZZLED, transpose_elements<E>>(tile, out, in, rows, cols);
}

/* ---- launchers ---- */

/* Packed's launcher, in transpose_packed.cu (elements of 1 or 2 bytes,
 * checked as transpose() checks them). Where that file's layout header is
 * not there to include, this copy has no packed variant and refuses it. */
#if __has_include("transpose/transpose_packed_layout.h")
#define TRANSPOSE_HAS_PACKED 1
cudaError_t transpose_packed_launch(int elem_bytes, void *out, const void *in, int64_t rows,
                                    int64_t cols, cudaStream_t stream);
#else
#define TRANSPOSE_HAS_PACKED 0
#endif

template <int E>
static cudaError_t launch(enum transpose_variant variant, void *out, const void *in, int64_t rows,
                          int64_t cols, cudaStream_t stream)
{
    const int width = transpose_tile_width(variant, E);
    const int out_phase = transpose_out_phase(variant, E, out);
    int64_t tiles_r = transpose_grid_rows(variant, E, rows, out_phase);
    int64_t tiles_c = (cols + width - 1) / width;
    dim3 grid((unsigned)tiles_r, (unsigned)(tiles_c < 65535 ? tiles_c : 65535));
    dim3 block(32, TRANSPOSE_BLOCK_ROWS);
    switch (variant) {
    case TRANSPOSE_NAIVE:
        transpose_naive<E><<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_CONFLICTING:
        transpose_conflicting<E><<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_PADDED:
        transpose_padded<E><<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    case TRANSPOSE_SWIZZLED:
        transpose_swizzled<E><<<grid, block, 0, stream>>>(out, in, rows, cols);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t transpose(enum transpose_variant variant, int elem_bytes, void *out,
                                 const void *in, int64_t rows, int64_t cols, cudaStream_t stream)
{
    if (out == NULL || in == NULL ||
        transpose_refusal_elem(variant, elem_bytes, rows, cols) != NULL)
        return cudaErrorInvalidValue;
    if ((uintptr_t)out % (uintptr_t)elem_bytes != 0 || (uintptr_t)in % (uintptr_t)elem_bytes != 0)
        return cudaErrorInvalidValue;
    if (variant == TRANSPOSE_PACKED) {
#if TRANSPOSE_HAS_PACKED
        return transpose_packed_launch(elem_bytes, out, in, rows, cols, stream);
#else
        return cudaErrorInvalidValue;
#endif
    }
    switch (elem_bytes) {
    case 1:
        return launch<1>(variant, out, in, rows, cols, stream);
    case 2:
        return launch<2>(variant, out, in, rows, cols, stream);
    case 4:
        return launch<4>(variant, out, in, rows, cols, stream);
    case 8:
        return launch<8>(variant, out, in, rows, cols, stream);
    default:
        return launch<16>(variant, out, in, rows, cols, stream);
    }
}

extern "C" cudaError_t transpose_f32(enum transpose_variant variant, float *out, const float *in,
                                     int64_t rows, int64_t cols, cudaStream_t stream)
{
    return transpose(variant, 4, out, in, rows, cols, stream);
}
