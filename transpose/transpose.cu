/* Transpose of 1-, 2-, 4-, 8- and 16-byte elements: the naive kernel, the
 * shared tile that conflicts, its two fixes, and for 1- and 2-byte elements
 * the packed tile. The conflicting, padded and swizzled kernels share one
 * body; they differ only in where transpose_tile_offset (transpose_layout.h)
 * puts a cell of the tile. Each kernel is a template on the element size:
 * the move is bit for bit, so an element is an unsigned word of its size. */
#include "transpose/transpose.h"
#include "transpose/transpose_layout.h"

/* Four blocks an SM, all 64 warps: 32 registers for fp32, no spills. Free,
 * the compiler takes 40 and three blocks fit, 2-4% slower on H100 at 2048^2.
 * Where an SM holds fewer threads (sm_86/89/120: 3 blocks; sm_75: 2),
 * BF_MIN_BLOCKS asks for what it holds. */
#ifndef TRANSPOSE_MIN_BLOCKS
#define TRANSPOSE_MIN_BLOCKS 4
#endif
#define TRANSPOSE_BOUNDS                                                                           \
    __launch_bounds__(TRANSPOSE_THREADS, BF_MIN_BLOCKS(TRANSPOSE_THREADS, TRANSPOSE_MIN_BLOCKS))

/* Packed bytes: three blocks an SM, 40 registers, and still 24 bytes of
 * spill stores / 48 of loads (-Xptxas -v, sm_90): the tile loop's 64-bit
 * column and two of its invariants, read back once a tile, none in the load
 * or store phase. At four blocks, 32 registers: 124 / 160 bytes. Three
 * blocks still have 96 KiB of loads in flight an SM (fp32's four, 64).
 * Packed halves keep four blocks: 32 registers, 16 / 16 bytes (the column). */
#ifndef TRANSPOSE_BYTES_MIN_BLOCKS
#define TRANSPOSE_BYTES_MIN_BLOCKS (TRANSPOSE_MIN_BLOCKS < 3 ? TRANSPOSE_MIN_BLOCKS : 3)
#endif

/* An element of E bytes as the type one load or store moves. */
template <int E> struct transpose_elem;
template <> struct transpose_elem<1> {
    typedef uint8_t type;
};
template <> struct transpose_elem<2> {
    typedef uint16_t type;
};
template <> struct transpose_elem<4> {
    typedef uint32_t type;
};
template <> struct transpose_elem<8> {
    typedef uint2 type;
};
template <> struct transpose_elem<16> {
    typedef uint4 type;
};

/* Tile columns across a matrix of `cols`. */
template <int E, enum transpose_variant V>
static __device__ __forceinline__ int64_t tile_cols(int64_t cols)
{
    constexpr int width = transpose_tile_width(V, E);
    return (cols + width - 1) / width;
}

/* Grid: x walks tile rows, so blocks launched one after another write the
 * neighbouring segments of the same output rows; y walks tile columns, and is
 * capped at 65535, so a block may loop over several. */

/* No shared memory: a warp reads 32 consecutive elements of an input row and
 * writes each of them to a different output row. Its elements are those the
 * tiled kernels' load phase reads (transpose_load_move), less the rows above
 * that the shifting tiles read too. */
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

/* Both global accesses coalesced: the tile is filled along input rows and
 * emptied along output rows. Each phase loads all its cells before it
 * stores any, so they are in flight together. Every thread writes its cells
 * of the tile, even outside the matrix (the cells exist; only global accesses
 * need guarding), so the tile writes are the same in every tile and compile
 * to plain stores; a load step past the rows the tile reads (all past its
 * own where the launch reads no rows above) is skipped by the whole warp.
 * The tile reads are guarded: a cell outside the matrix is never written to
 * `out`, so its read may not happen at all. The global accesses are
 * Mover's (transpose_elements, or the packed kernel's transpose_blocks); one
 * that shuffles across the warp (Mover::all_lanes) is called for every cell,
 * inside the matrix or not, and guards its own. */
template <int E, enum transpose_variant V, class Mover>
static __device__ __forceinline__ void
transpose_tile_move(unsigned char *tile, void *__restrict__ out, const void *__restrict__ in,
                    const struct transpose_tile &t)
{
    typedef typename Mover::Cell Cell;
    const int tx = threadIdx.x, ty = threadIdx.y;
    Mover mover(out, in, t);
    Cell v[transpose_load_steps(V, E)] = {};
#pragma unroll
    for (int k = 0; k < transpose_load_steps(V, E); ++k) {
        struct transpose_move m = transpose_load_move(V, E, &t, tx, ty, k);
        if (m.exists && (Mover::all_lanes || m.active))
            v[k] = mover.load(m);
    }
#pragma unroll
    for (int k = 0; k < transpose_load_steps(V, E); ++k) {
        struct transpose_move m = transpose_load_move(V, E, &t, tx, ty, k);
        if (m.exists)
            *(Cell *)(tile + m.smem) = v[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < transpose_steps(V, E); ++k) {
        struct transpose_move m = transpose_store_move(V, E, &t, tx, ty, k);
        if (m.active)
            v[k] = *(const Cell *)(tile + m.smem);
    }
#pragma unroll
    for (int k = 0; k < transpose_steps(V, E); ++k) {
        struct transpose_move m = transpose_store_move(V, E, &t, tx, ty, k);
        if (Mover::all_lanes || m.active)
            mover.store(m, v[k]);
    }
}

/* The tiles of the block's tile row. Mover moves those it takes
 * (Mover::takes), Edge the others. */
template <int E, enum transpose_variant V, class Mover, class Edge = Mover>
static __device__ __forceinline__ void transpose_tiled(unsigned char *tile, void *__restrict__ out,
                                                       const void *__restrict__ in, int64_t rows,
                                                       int64_t cols)
{
    const int64_t tile_row = blockIdx.x;
    const int out_phase = transpose_out_phase(V, E, out);
    for (int64_t tile_col = blockIdx.y; tile_col < tile_cols<E, V>(cols); tile_col += gridDim.y) {
        const struct transpose_tile t =
            transpose_tile_at(V, E, rows, cols, out_phase, tile_row, tile_col);
        if (Mover::takes(t))
            transpose_tile_move<E, V, Mover>(tile, out, in, t);
        else
            transpose_tile_move<E, V, Edge>(tile, out, in, t);
        if (tile_col + gridDim.y < tile_cols<E, V>(cols))
            __syncthreads(); /* the next tile overwrites this one */
    }
}

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
 * the element where wider) a row shifts each row by one unit along the
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

/* ---- packed: 1- and 2-byte elements ---- */

/* A k x k block of bytes (k = 4) or halves (k = 2), as k words, word i its
 * row i, transposed in registers: word i becomes column i. prmt (PTX) picks
 * any four bytes of two words. */
static __device__ __forceinline__ void transpose_block(uint32_t (&w)[2])
{
    const uint32_t a = w[0], b = w[1];
    w[0] = __byte_perm(a, b, 0x5410); /* low halves: a.lo, b.lo */
    w[1] = __byte_perm(a, b, 0x7632); /* high halves: a.hi, b.hi */
}
static __device__ __forceinline__ void transpose_block(uint32_t (&w)[4])
{
    const uint32_t lo01 = __byte_perm(w[0], w[1], 0x5140); /* a0 b0 a1 b1 */
    const uint32_t hi01 = __byte_perm(w[0], w[1], 0x7362); /* a2 b2 a3 b3 */
    const uint32_t lo23 = __byte_perm(w[2], w[3], 0x5140);
    const uint32_t hi23 = __byte_perm(w[2], w[3], 0x7362);
    w[0] = __byte_perm(lo01, lo23, 0x5410); /* a0 b0 c0 d0 */
    w[1] = __byte_perm(lo01, lo23, 0x7632); /* a1 b1 c1 d1 */
    w[2] = __byte_perm(hi01, hi23, 0x5410);
    w[3] = __byte_perm(hi01, hi23, 0x7632);
}

/* A cell of k words, moved to and from the tile in one 8- or 16-byte access. */
template <int K> struct transpose_cell;
template <> struct transpose_cell<2> {
    typedef uint2 type;
    static __device__ __forceinline__ type pack(const uint32_t (&w)[2])
    {
        return make_uint2(w[0], w[1]);
    }
    static __device__ __forceinline__ void unpack(type c, uint32_t (&w)[2])
    {
        w[0] = c.x;
        w[1] = c.y;
    }
};
template <> struct transpose_cell<4> {
    typedef uint4 type;
    static __device__ __forceinline__ type pack(const uint32_t (&w)[4])
    {
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
    static __device__ __forceinline__ void unpack(type c, uint32_t (&w)[4])
    {
        w[0] = c.x;
        w[1] = c.y;
        w[2] = c.z;
        w[3] = c.w;
    }
};

/* A lane's 4 bytes of a row, where a row need not start on a word (odd
 * shapes, a pointer one element in). The warp reads and writes only aligned
 * 4-byte words, coalesced as they would be if it did. */
struct transpose_words {
    /* Bytes the aligned words a lane reads reach past its own 4, either side. */
    static constexpr int reach = 3;

    /* The word at `at`: the aligned words it straddles, funnel-shifted. */
    static __device__ __forceinline__ uint32_t load(const void *at)
    {
        const unsigned skew = (unsigned)((uintptr_t)at % 4), shift = 8 * skew;
        const uint32_t *word = (const uint32_t *)((const unsigned char *)at - skew);
        return __funnelshift_r(__ldg(word), shift != 0 ? __ldg(word + 1) : 0, shift);
    }

    /* Lanes 0-31 hold consecutive words of a segment of an output row, of
     * which `left` bytes lie from the lane's word on (the segment may end
     * inside a word, or before it: then the lane writes nothing). `first`:
     * the lane's word is the segment's first. `follows`: the warp stored the
     * part of the segment just before, `before` the lane's word of it, so
     * lane 0's word continues lane 31's `before`. Where the row starts off a
     * word, each lane writes the aligned word its own word starts in, the
     * lower bytes from the lane before, and the lane with the segment's last
     * bytes the word after too; words the segment only partly covers (its
     * ends, whose other bytes are another block's) go element by element.
     * The skew is the same in all lanes, and every lane of the warp must
     * call this (it shuffles). */
    template <class T>
    static __device__ __forceinline__ void store(T *at, uint32_t w, bool follows, uint32_t before,
                                                 bool first, int left)
    {
        const unsigned skew = (unsigned)((uintptr_t)at % 4), shift = 8 * skew;
        uint32_t *word = (uint32_t *)((unsigned char *)at - skew);
        if (skew == 0) { /* each lane's word is an aligned word: no shuffles */
            if (left >= 4)
                *word = w;
            else if (left > 0)
                store_part<T>(word, w, 0, (unsigned)left);
            return;
        }
        uint32_t prev = __shfl_up_sync(~0u, w, 1);
        if (follows) {
            const uint32_t lane_31 = __shfl_sync(~0u, before, 31);
            prev = threadIdx.x % 32 == 0 ? lane_31 : prev;
        }
        if (left <= 0)
            return;
        const uint32_t mine = __funnelshift_l(prev, w, shift);
        const unsigned from = first ? skew : 0, to = skew + (unsigned)left; /* of word, word + 1 */
        if (from == 0 && to >= 4)
            *word = mine;
        else
            store_part<T>(word, mine, from, to);
        if (left <= 4 && to > 4)
            store_part<T>(word + 1, __funnelshift_l(w, 0, shift), 0, to - 4);
    }

    /* Bytes [from, to) of v to the word at `word`, an element at a time. */
    template <class T>
    static __device__ __forceinline__ void store_part(uint32_t *word, uint32_t v, unsigned from,
                                                      unsigned to)
    {
#pragma unroll
        for (unsigned b = 0; b < 4; b += sizeof(T))
            if (from <= b && b < to)
                ((T *)word)[b / sizeof(T)] = (T)(v >> (8 * b));
    }
};

/* The packed kernel's cells: a k x k block. load reads its k rows and
 * transposes it in registers; store writes its k words (the block's
 * columns) to k output rows. Three ways to move them:
 *
 * ALIGNED: rows and cols multiples of k and both pointers on a word (the
 * launcher picks): every row of a block is one aligned word, inside the
 * matrix or wholly outside it. Plain word loads and stores.
 *
 * SHIFTED (transpose_words, at any shape and any pointer): a tile whose
 * columns are all inside the matrix (rows below it at the bottom edge are
 * never stored), and that starts and ends at least `reach` bytes inside
 * `in`, so that every word its lanes read lies inside (all but the first
 * tile and those that end fewer than `reach` bytes before the matrix does).
 *
 * ELEMENTS, each access guarded: the tiles SHIFTED does not take (partial
 * tiles at the right edge, the first and last tiles): the same shared
 * accesses, slower global ones. */
enum transpose_blocks_path { BLOCKS_ALIGNED, BLOCKS_SHIFTED, BLOCKS_ELEMENTS };

template <int E, transpose_blocks_path P> struct transpose_blocks {
    typedef typename transpose_elem<E>::type T;
    static constexpr int K = transpose_pack(TRANSPOSE_PACKED, E);
    typedef typename transpose_cell<K>::type Cell;
    static constexpr bool all_lanes = P == BLOCKS_SHIFTED; /* its store shuffles */
    T *__restrict__ out;
    const T *__restrict__ in;
    const struct transpose_tile &t;
    uint32_t last[K] = {}; /* shifted: this thread's words of its store before */
    int stores = 0;        /* shifted: its stores so far (every step makes one) */

    static __device__ __forceinline__ bool takes(const struct transpose_tile &t)
    {
        if constexpr (P != BLOCKS_SHIFTED)
            return true;
        const int reach = transpose_words::reach;
        const bool whole_rows = t.cols_inside == transpose_tile_width(TRANSPOSE_PACKED, E);
        const int64_t end = t.in_origin + (t.rows_inside - 1) * t.cols + t.cols_inside;
        return whole_rows && t.in_origin * E >= reach && (t.rows * t.cols - end) * E >= reach;
    }

    __device__ __forceinline__ transpose_blocks(void *out, const void *in,
                                                const struct transpose_tile &t)
        : out((T *)out), in((const T *)in), t(t)
    {
    }

    __device__ __forceinline__ Cell load(const struct transpose_move &m) const
    {
        uint32_t w[K];
#pragma unroll
        for (int i = 0; i < K; ++i) { /* row i of the block */
            if constexpr (P == BLOCKS_ALIGNED) {
                w[i] = __ldg((const uint32_t *)(in + m.global + i * t.cols));
            } else if constexpr (P == BLOCKS_SHIFTED) {
                /* A row below the matrix reads its last row again (bytes
                 * never stored): no load waits on a branch, so they issue
                 * ahead of the funnel shifts, as many as registers hold. */
                const int r = min(m.row + i, t.rows_inside - 1) - m.row;
                w[i] = transpose_words::load(in + m.global + r * t.cols);
            } else {
                const T *row = in + m.global + i * t.cols;
                w[i] = 0;
#pragma unroll
                for (int j = 0; j < K; ++j)
                    if (m.row + i < t.rows_inside && m.col + j < t.cols_inside)
                        w[i] |= (uint32_t)__ldg(row + j) << (8 * E * j);
            }
        }
        transpose_block(w);
        return transpose_cell<K>::pack(w);
    }

    __device__ __forceinline__ void store(const struct transpose_move &m, Cell c)
    {
        uint32_t w[K];
        transpose_cell<K>::unpack(c, w);
        /* The steps go along the output rows first: all but every
         * ROW_STORES-th continue the rows of the store before. */
        const bool follows = stores++ % TRANSPOSE_ROW_STORES != 0;
        const bool first = m.row == 0;
        const int left = (t.rows_inside - m.row) * E; /* bytes of the output rows from here */
#pragma unroll
        for (int i = 0; i < K; ++i) { /* output row m.col + i: word i of the cell */
            T *row = out + m.global + i * t.rows;
            if constexpr (P == BLOCKS_ALIGNED) {
                if (m.col + i < t.cols_inside)
                    *(uint32_t *)row = w[i];
            } else if constexpr (P == BLOCKS_SHIFTED) {
                transpose_words::store<T>(row, w[i], follows, last[i], first, left);
                last[i] = w[i];
            } else if (m.col + i < t.cols_inside) {
#pragma unroll
                for (int j = 0; j < K; ++j)
                    if (m.row + j < t.rows_inside)
                        row[j] = (T)(w[i] >> (8 * E * j));
            }
        }
    }
};

/* The padded tile of 8- or 16-byte cells, each a 2 x 2 block of halves or a
 * 4 x 4 block of bytes: every shared access a whole cell. Aligned: four
 * blocks an SM. Else bytes run TRANSPOSE_BYTES_MIN_BLOCKS blocks an SM,
 * halves four (registers and spills: at TRANSPOSE_BYTES_MIN_BLOCKS). */
template <int E, bool Aligned>
__global__ void __launch_bounds__(TRANSPOSE_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_THREADS, E == 1 && !Aligned
                                                                       ? TRANSPOSE_BYTES_MIN_BLOCKS
                                                                       : TRANSPOSE_MIN_BLOCKS))
    transpose_packed(void *__restrict__ out, const void *__restrict__ in, int64_t rows,
                     int64_t cols)
{
    __shared__ __align__(128) unsigned char tile[transpose_tile_bytes(TRANSPOSE_PACKED, E)];
    if constexpr (Aligned)
        transpose_tiled<E, TRANSPOSE_PACKED, transpose_blocks<E, BLOCKS_ALIGNED>>(tile, out, in,
                                                                                  rows, cols);
    else
        transpose_tiled<E, TRANSPOSE_PACKED, transpose_blocks<E, BLOCKS_SHIFTED>,
                        transpose_blocks<E, BLOCKS_ELEMENTS>>(tile, out, in, rows, cols);
}

/* 16 bytes to shared memory, of which the first `bytes` (16, or 0 to read
 * nothing, or what is left at the end of `in`) come from `from`, zeros the
 * rest. */
static __device__ __forceinline__ void copy_chunk(void *to, const void *from, int bytes)
{
#if BF_SM80
    const unsigned shared = (unsigned)__cvta_generic_to_shared(to);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared),
                 "l"(__cvta_generic_to_global(from)), "r"(bytes)
                 : "memory");
#else
    (void)to, (void)from, (void)bytes;
    __trap(); /* cp.async is sm_80's: the launcher never starts these kernels below it */
#endif
}

/* Commits the copies in flight, and waits for them. */
static __device__ __forceinline__ void copies_wait()
{
#if BF_SM80
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* Packed on aligned shapes (transpose_cells_shape): the tile copied in raw
 * by cp.async, 16 bytes a lane, chunks placed by transpose_cells_offset; a
 * copy right of the matrix or below it reads nothing and writes zeros
 * (src-size 0). Warp w then takes chunk column w (skipped where it lies
 * right of the matrix), lane q the k rows of cell row q (none below the
 * matrix: the reads are guarded as the stores they feed): four cells of
 * k x k, transposed in registers, their words written along the output
 * rows (128 bytes a warp's store). Three blocks an SM: 48 warps, 96 KiB of
 * tiles in flight. Needs sm_80 (cp.async). */
template <int E>
__global__ void __launch_bounds__(TRANSPOSE_CELLS_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_CELLS_THREADS, 3))
    transpose_packed_cells(void *__restrict__ out_, const void *__restrict__ in_, int64_t rows,
                           int64_t cols)
{
    constexpr int K = transpose_pack(TRANSPOSE_PACKED, E);
    __shared__ __align__(128) unsigned char tile[TRANSPOSE_CELLS_TILE_BYTES];
    unsigned char *__restrict__ out = (unsigned char *)out_;
    const unsigned char *__restrict__ in = (const unsigned char *)in_;
    const int64_t tile_row = blockIdx.x, tile_col = blockIdx.y;
#pragma unroll
    for (int n = 0; n < TRANSPOSE_CELLS_COPIES; ++n) {
        int t, j;
        transpose_cells_copy(threadIdx.x, n, &t, &j);
        const bool inside = transpose_cells_inside(E, rows, cols, tile_row, tile_col, t, j);
        copy_chunk(tile + transpose_cells_offset(E, t, j),
                   inside ? in + transpose_cells_in_byte(E, cols, tile_row, tile_col, t, j) : in,
                   inside ? 16 : 0);
    }
    copies_wait();
    __syncthreads();

    const int j = threadIdx.x / 32; /* the warp's chunk column */
    if (!transpose_cells_column_inside(E, cols, tile_col, j))
        return;
    const int cell_rows = transpose_cells_rows_inside(E, rows, tile_row);
#pragma unroll
    for (int h = 0; h < TRANSPOSE_CELLS_ROWS / K / 32; ++h) {
        const int q = threadIdx.x % 32 + 32 * h;
        if (q >= cell_rows) /* below the matrix: read nothing (as ptxas would have it) */
            continue;
        uint32_t cell[4][K]; /* cell m, row i: word m of the chunk's row K q + i */
#pragma unroll
        for (int i = 0; i < K; ++i) {
            const uint4 v = *(const uint4 *)(tile + transpose_cells_offset(E, K * q + i, j));
            cell[0][i] = v.x;
            cell[1][i] = v.y;
            cell[2][i] = v.z;
            cell[3][i] = v.w;
        }
#pragma unroll
        for (int m = 0; m < 4; ++m) {
            transpose_block(cell[m]); /* word e: column K m + e of the chunk */
#pragma unroll
            for (int e = 0; e < K; ++e)
                *(uint32_t *)(out + transpose_cells_out_byte(E, rows, tile_row, tile_col, j, q, m,
                                                             e)) = cell[m][e];
        }
    }
}

/* Packed at other shapes (transpose_shifted_shape): the cells kernel's raw
 * tile, each tile row copied as the three 128-byte lines of `in` its 256
 * bytes touch (placed by transpose_shifted_offset), 32 cell rows of k rows:
 * the 8 above the tile's own 24 and those. Warp w takes chunk column w
 * (skipped right of the matrix), lane q cell row q: of each of its k rows
 * the 16 bytes at the row's phase, picked from the row's chunks w and w + 1,
 * then four k x k cells transposed in registers. Each output row's segment
 * starts on a 32-byte sector: a word of it holds the end of the cell row
 * before and the start of this one (transpose_shifted_word), so each lane
 * takes the word of the lane before by a shuffle and writes its own word
 * (lanes 8 - cs ... 31 - cs of a row shifted cs cells). Edge tiles
 * (transpose_shifted_edge) check their copies and write words that stick
 * out of the matrix, or hold its last row, element by element; the others
 * neither. Four blocks
 * an SM (32 registers). Needs sm_80 (cp.async). */
template <int E, bool Edge>
static __device__ __forceinline__ void
shifted_tile(unsigned char *__restrict__ out, const unsigned char *__restrict__ in, int64_t rows,
             int64_t cols, int64_t tile_row, int64_t tile_col, unsigned char *tile)
{
    constexpr int K = transpose_pack(TRANSPOSE_PACKED, E);
    /* A row's phase and line need only the low bits of where it starts:
     * tile row t starts first + t row_step bytes into `in`, mod 2^32. */
    const unsigned in_at = (unsigned)((uintptr_t)in % 128),
                   first = (unsigned)transpose_shifted_row_byte(E, cols, tile_row, tile_col, 0),
                   row_step = (unsigned)(cols * E);
    for (int n = 0; n < TRANSPOSE_SHIFTED_COPIES; ++n) {
        int t, s;
        if (!transpose_shifted_copy(E, threadIdx.x, n, &t, &s))
            break; /* whole warps */
        int64_t from;
        const bool inside =
            transpose_shifted_copy_inside(E, rows, cols, tile_row, tile_col, t, s, in_at, &from);
        const int bytes = !Edge || inside ? 16 : 0;
        const unsigned g = transpose_shifted_line(in_at, first + (unsigned)t * row_step);
        copy_chunk(tile + transpose_shifted_offset(E, t, s - (int)g, g),
                   bytes != 0 ? in + from : in, bytes);
    }
    copies_wait();
    __syncthreads();

    const int j = threadIdx.x / 32, lane = threadIdx.x % 32; /* chunk column, cell row */
    if (Edge && !transpose_cells_column_inside(E, cols, tile_col, j))
        return;
    uint32_t cell[4][K]; /* cell m, row i: the i-th of lane's rows, word m of its 16 bytes */
#pragma unroll
    for (int i = 0; i < K; ++i) {
        const int t = K * lane + i;
        const unsigned row_byte = first + (unsigned)t * row_step;
        const unsigned phase = row_byte & 15, g = transpose_shifted_line(in_at, row_byte);
        const uint4 a = *(const uint4 *)(tile + transpose_shifted_offset(E, t, j, g)),
                    b = *(const uint4 *)(tile + transpose_shifted_offset(E, t, j + 1, g));
        uint32_t x[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
        if (phase & 8) { /* words 2 on: no register indexed by a variable */
#pragma unroll
            for (int w = 0; w < 6; ++w)
                x[w] = x[w + 2];
        }
        if (phase & 4) {
#pragma unroll
            for (int w = 0; w < 5; ++w)
                x[w] = x[w + 1];
        }
        const unsigned bytes = 0x3210u + 0x1111u * (phase & 3); /* prmt: 4 bytes from there */
#pragma unroll
        for (int m = 0; m < 4; ++m)
            cell[m][i] = __byte_perm(x[m], x[m + 1], bytes);
    }
#pragma unroll
    for (int m = 0; m < 4; ++m)
        transpose_block(cell[m]); /* word e: column K m + e of the chunk */

    /* Output row o of the chunk column: element (o, the tile's first own row)
     * sb bytes past a sector; word w of its segment (from sb bytes before)
     * holds rows from K (w - cs) - bs on, sb = E (K cs + bs). */
    const int64_t rows_bytes = rows * E;
    const int64_t o0 = (tile_col * 16 * TRANSPOSE_CELLS_CHUNKS + 16 * j) / E;
    unsigned char *at = out + (o0 * rows + tile_row * transpose_shifted_rows(E)) * E +
                        4 * (lane - TRANSPOSE_SHIFTED_ABOVE);
    unsigned sb =
        transpose_shifted_sector_bytes(E, rows, (unsigned)((uintptr_t)out % 32), o0, tile_row);
    const unsigned step = (unsigned)(rows_bytes % TRANSPOSE_SECTOR);
#pragma unroll
    for (int m = 0; m < 4; ++m)
#pragma unroll
        for (int e = 0; e < K; ++e) {
            if (Edge && o0 + K * m + e >= cols)
                return; /* the whole warp */
            const unsigned cs = sb / E / K, bs = sb / E % K;
            const uint32_t word =
                transpose_shifted_word(E, __shfl_up_sync(~0u, cell[m][e], 1), cell[m][e], bs);
            const unsigned w = (unsigned)(lane - TRANSPOSE_SHIFTED_ABOVE + (int)cs);
            unsigned char *to = at + (4 * (int)cs - (int)sb); /* 4 w - sb past the element */
            if (!Edge) { /* a predicated store, no branch around it */
                asm volatile("{\n.reg .pred p;\nsetp.lt.u32 p, %2, %3;\n@p st.global.b32 [%0], "
                             "%1;\n}\n" ::"l"(to),
                             "r"(word), "r"(w), "n"(TRANSPOSE_SHIFTED_OWN)
                             : "memory");
            } else if (w < TRANSPOSE_SHIFTED_OWN) {
                const int64_t first_row = tile_row * transpose_shifted_rows(E) - sb / E + K * w;
                if (first_row >= 0 && first_row + K < rows) {
                    *(uint32_t *)to = word;
                } else { /* the matrix's first or last rows: the elements inside, the
                          * last row's from `in` (transpose_shifted_copy_inside) */
                    const unsigned char *last = in + ((rows - 1) * cols + o0 + K * m + e) * E;
#pragma unroll
                    for (int n = 0; n < K; ++n)
                        if (first_row + n >= 0 && first_row + n < rows)
                            memcpy(to + n * E,
                                   first_row + n == rows - 1 ? last
                                                             : (const unsigned char *)&word + n * E,
                                   E);
                }
            }
            at += rows_bytes;
            sb = (sb + step) % TRANSPOSE_SECTOR;
        }
}

template <int E>
__global__ void __launch_bounds__(TRANSPOSE_CELLS_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_CELLS_THREADS, 4))
    transpose_packed_shifted(void *__restrict__ out, const void *__restrict__ in, int64_t rows,
                             int64_t cols)
{
    __shared__ __align__(
        128) unsigned char tile[TRANSPOSE_SHIFTED_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, E))];
    const int64_t tile_row = blockIdx.x, tile_col = blockIdx.y;
    if (transpose_shifted_edge(E, rows, cols, tile_row, tile_col))
        shifted_tile<E, true>((unsigned char *)out, (const unsigned char *)in, rows, cols, tile_row,
                              tile_col, tile);
    else
        shifted_tile<E, false>((unsigned char *)out, (const unsigned char *)in, rows, cols,
                               tile_row, tile_col, tile);
}

/* ---- launchers ---- */

/* Whether this device runs the cells kernels' sm_80 code (cp.async): a GPU
 * below sm_80, or a build whose code for this GPU is older PTX, has only
 * their trap. Asked once a device. */
template <int E> static cudaError_t copies_here(bool *yes)
{
    static signed char known[64]; /* 0: not asked; 1 yes; -1 no */
    int device = 0, sm80 = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess && device < 64 && known[device] != 0) {
        *yes = known[device] > 0;
        return cudaSuccess;
    }
    if (err == cudaSuccess)
        err = bf_kernel_built_for((const void *)transpose_packed_cells<E>, 80, &sm80);
    if (err != cudaSuccess)
        return err;
    if (device < 64)
        known[device] = sm80 ? 1 : -1;
    *yes = sm80 != 0;
    return cudaSuccess;
}

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
    case TRANSPOSE_PACKED: /* 1 and 2 bytes: transpose_refusal_elem refuses the others */
        if constexpr (E < 4) {
            bool copies = false;
            const cudaError_t err = copies_here<E>(&copies);
            if (err != cudaSuccess)
                return err;
            if (copies && transpose_cells_takes(E, rows, cols, out, in)) {
                const dim3 cells_grid((unsigned)transpose_cells_tile_rows(rows),
                                      (unsigned)transpose_cells_tile_cols(E, cols));
                transpose_packed_cells<E>
                    <<<cells_grid, TRANSPOSE_CELLS_THREADS, 0, stream>>>(out, in, rows, cols);
                break;
            }
            if (copies && transpose_shifted_takes(E, rows, cols, in)) {
                const dim3 shifted_grid((unsigned)transpose_shifted_tile_rows(E, rows),
                                        (unsigned)transpose_cells_tile_cols(E, cols));
                transpose_packed_shifted<E>
                    <<<shifted_grid, TRANSPOSE_CELLS_THREADS, 0, stream>>>(out, in, rows, cols);
                break;
            }
            /* Aligned words for bytes only. On H100 at 16384^2 (2026-11-25):
             * bytes 0.925 of copy aligned, 0.871 shifted (40 registers,
             * three blocks an SM); halves 0.879 aligned, 0.919 shifted (both
             * four blocks; why the shifted path is faster there is not yet
             * measured). */
            const int k = transpose_pack(variant, E);
            const bool aligned = E == 1 && rows % k == 0 && cols % k == 0 &&
                                 (uintptr_t)out % 4 == 0 && (uintptr_t)in % 4 == 0;
            if constexpr (E == 1)
                if (aligned)
                    transpose_packed<E, true><<<grid, block, 0, stream>>>(out, in, rows, cols);
            if (!aligned)
                transpose_packed<E, false><<<grid, block, 0, stream>>>(out, in, rows, cols);
        } else {
            return cudaErrorInvalidValue;
        }
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
