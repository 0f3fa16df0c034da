/* The packed variant of the transpose, for 1- and 2-byte elements: a cell
 * is a k x k block (4 x 4 bytes, 2 x 2 halves) transposed in registers, so
 * that every shared access moves a whole cell of 4-byte words. Three
 * kernels: on sm_80 and later, the cells kernel (aligned shapes) and the
 * lines kernel (other shapes, sector-aligned output), both on a raw tile
 * copied in by cp.async (transpose_packed_layout.h); elsewhere, and below
 * sm_80, the register-loaded tile, which runs transpose_layout.h's
 * transpose_tiled as the other variants do. transpose() (transpose.cu)
 * calls transpose_packed_launch for it. */
#include "transpose/transpose.h"
#include "transpose/transpose_layout.h"
#include "transpose/transpose_packed_layout.h"

/* Packed bytes: three blocks an SM, 40 registers, and still 24 bytes of
 * spill stores / 48 of loads (-Xptxas -v, sm_90): the tile loop's 64-bit
 * column and two of its invariants, read back once a tile, none in the load
 * or store phase. At four blocks, 32 registers: 124 / 160 bytes. Three
 * blocks still have 96 KiB of loads in flight an SM (fp32's four, 64).
 * Packed halves keep four blocks: 32 registers, 16 / 16 bytes (the column). */
#ifndef TRANSPOSE_BYTES_MIN_BLOCKS
#define TRANSPOSE_BYTES_MIN_BLOCKS (TRANSPOSE_MIN_BLOCKS < 3 ? TRANSPOSE_MIN_BLOCKS : 3)
#endif

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
        const unsigned skew = (unsigned)((uintptr_t)at % 4), bits = 8 * skew;
        const uint32_t *word = (const uint32_t *)((const unsigned char *)at - skew);
        return __funnelshift_r(__ldg(word), bits != 0 ? __ldg(word + 1) : 0, bits);
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
        const unsigned skew = (unsigned)((uintptr_t)at % 4), bits = 8 * skew;
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
        const uint32_t mine = __funnelshift_l(prev, w, bits);
        const unsigned from = first ? skew : 0, to = skew + (unsigned)left; /* of word, word + 1 */
        if (from == 0 && to >= 4)
            *word = mine;
        else
            store_part<T>(word, mine, from, to);
        if (left <= 4 && to > 4)
            store_part<T>(word + 1, __funnelshift_l(w, 0, bits), 0, to - 4);
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
 * FUNNEL (transpose_words, at any shape and any pointer: each row's words
 * funnel-shifted out of the aligned words it straddles): a tile whose
 * columns are all inside the matrix (rows below it at the bottom edge are
 * never stored), and that starts and ends at least `reach` bytes inside
 * `in`, so that every word its lanes read lies inside (all but the first
 * tile and those that end fewer than `reach` bytes before the matrix does).
 *
 * ELEMENTS, each access guarded: the tiles FUNNEL does not take (partial
 * tiles at the right edge, the first and last tiles): the same shared
 * accesses, slower global ones. */
enum transpose_blocks_path { BLOCKS_ALIGNED, BLOCKS_FUNNEL, BLOCKS_ELEMENTS };

template <int E, transpose_blocks_path P> struct transpose_blocks {
    typedef typename transpose_elem<E>::type T;
    static constexpr int K = transpose_pack(TRANSPOSE_PACKED, E);
    typedef typename transpose_cell<K>::type Cell;
    static constexpr bool all_lanes = P == BLOCKS_FUNNEL; /* its store shuffles */
    T *__restrict__ out;
    const T *__restrict__ in;
    const struct transpose_tile &t;
    uint32_t last[K] = {}; /* funnel: this thread's words of its store before */
    int stores = 0;        /* funnel: its stores so far (every step makes one) */

    static __device__ __forceinline__ bool takes(const struct transpose_tile &t)
    {
        if constexpr (P != BLOCKS_FUNNEL)
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
            } else if constexpr (P == BLOCKS_FUNNEL) {
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
            } else if constexpr (P == BLOCKS_FUNNEL) {
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
        transpose_tiled<E, TRANSPOSE_PACKED, transpose_blocks<E, BLOCKS_FUNNEL>,
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
/* Closes the copies issued since the last group into a group of their own. */
static __device__ __forceinline__ void copies_commit()
{
#if BF_SM80
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
/* Waits for every group of copies but the last one committed. */
static __device__ __forceinline__ void copies_wait_but_last()
{
#if BF_SM80
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
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

/* Packed at other shapes (transpose_lines_shape): the cells kernel's raw
 * tile, each tile row copied as the three 128-byte lines of `in` its 256
 * bytes touch (placed by transpose_lines_offset), 32 cell rows of k rows:
 * the 8 above the tile's own 24 and those. Warp w takes chunk column w
 * (skipped right of the matrix), lane q cell row q: of each of its k rows
 * the 16 bytes at the row's phase, picked from the row's chunks w and w + 1,
 * then four k x k cells transposed in registers. Each output row's segment
 * starts on a 32-byte sector: a word of it holds the end of the cell row
 * before and the start of this one (transpose_lines_word), so each lane
 * takes the word of the lane before by a shuffle and writes its own word
 * (lanes 8 - cs ... 31 - cs of a row whose phase is cs cells:
 * transpose_lines_writes). Edge tiles
 * (transpose_lines_edge) take rows past the matrix's ends from its other
 * end (transpose_lines_row_byte_wrapped), so that every sector is written
 * whole by one block: they leave the sector where the next output row
 * starts to that row's first tile row (transpose_lines_owns), check their
 * copies, and write words across an end of `out` element by element; the
 * others do none of it. An interior tile's first 8 warps store once
 * lines 0 and 1 of its rows are in (lines_tile). Four blocks an SM (32
 * registers); halves take two tiles a block where the grid is large
 * (transpose_lines_stack, lines_stack). Needs sm_80 (cp.async). */

/* The thread's copy in line `line` of its tile row r (lines_copy): `from`
 * and `to` are its chunk of the row's first line, in `in` and in the tile
 * (the edge tiles check `from` again, line by line). */
template <int E, bool Edge>
static __device__ __forceinline__ void
lines_copy_line(unsigned char *to, const unsigned char *__restrict__ in, int64_t from, int64_t rows,
                int64_t cols, int64_t tile_row, int64_t tile_col, unsigned in_at, int r, int line)
{
    int64_t from_line = from + 128 * line;
    int t = 0, s = 0;
    if (Edge)
        transpose_lines_copy(E, threadIdx.x, 3 * r + line, &t, &s);
    const bool inside = !Edge || transpose_lines_copy_inside(E, rows, cols, tile_row, tile_col, t,
                                                             s, in_at, &from_line);
    copy_chunk(to + 128 * line, inside ? in + from_line : in, inside ? 16 : 0);
}

/* The tile's copies; Split: in two groups, lines 0 and 1 of every row
 * (all that warps 0-7 read: lines_tile), then line 2. */
template <int E, bool Edge, bool Split>
static __device__ __forceinline__ void
lines_copy(unsigned char *tile, const unsigned char *__restrict__ in, int64_t rows, int64_t cols,
           int64_t tile_row, int64_t tile_col)
{
    /* the thread's tile rows (transpose_lines_copy): 2 for bytes, 1 for
     * halves, known here so that no copy is predicated */
    constexpr int R = 32 * transpose_pack(TRANSPOSE_PACKED, E) / (TRANSPOSE_CELLS_THREADS / 8);
    static_assert(3 * R <= TRANSPOSE_LINES_COPIES, "transpose_lines_copy's rows");
    const unsigned in_at = (unsigned)((uintptr_t)in % 128);
    int64_t from[R];
    unsigned char *to[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        int t, s;
        transpose_lines_copy(E, threadIdx.x, 3 * r, &t, &s);
        /* where the row's first line lies in `in` and in the tile; its others
         * lie 128 bytes on in both (transpose_lines_copy) */
        const int64_t row_byte =
            Edge ? transpose_lines_row_byte_wrapped(E, rows, cols, tile_row, tile_col, t)
                 : transpose_lines_row_byte(E, cols, tile_row, tile_col, t);
        const unsigned g = transpose_lines_first_chunk(in_at, row_byte);
        from[r] = transpose_lines_from(in_at, row_byte, s);
        to[r] = tile + transpose_lines_offset(E, t, s - (int)g, g);
#pragma unroll
        for (int line = 0; line < (Split ? 2 : 3); ++line)
            lines_copy_line<E, Edge>(to[r], in, from[r], rows, cols, tile_row, tile_col, in_at, r,
                                     line);
    }
    if (Split) {
        copies_commit();
#pragma unroll
        for (int r = 0; r < R; ++r)
            lines_copy_line<E, Edge>(to[r], in, from[r], rows, cols, tile_row, tile_col, in_at, r,
                                     2);
        copies_commit();
    }
}

/* Where lines_copy put chunk c of row i of lane `lane`'s cell row, that
 * row starting in_row_byte bytes past a 128-byte line of `in`
 * (transpose_lines_offset, in the terms the store phase has). */
template <int E> struct lines_chunks {
    __device__ __forceinline__ uint32_t operator()(int lane, int i, unsigned in_row_byte,
                                                   int c) const
    {
        return transpose_lines_chunk(E, lane, i, in_row_byte, c);
    }
};

/* The store phase, the tile's chunks where `chunks` says (a probe places
 * them otherwise). */
template <int E, bool Edge, class Chunks>
static __device__ __forceinline__ void
lines_store(unsigned char *__restrict__ out, const unsigned char *__restrict__ in, int64_t rows,
            int64_t cols, int64_t tile_row, int64_t tile_col, const unsigned char *tile,
            Chunks chunks)
{
    constexpr int K = transpose_pack(TRANSPOSE_PACKED, E);
    const int j = threadIdx.x / 32, lane = threadIdx.x % 32; /* chunk column, cell row */
    if (Edge && !transpose_cells_column_inside(E, cols, tile_col, j))
        return;
    /* `in`'s place in its 128-byte line; interior tiles: the lane's first
     * row's first byte, past its line of `in` */
    const unsigned in_at = (unsigned)((uintptr_t)in % 128), row_step = (unsigned)(cols * E),
                   first = in_at +
                           (unsigned)transpose_lines_row_byte(E, cols, tile_row, tile_col, 0) +
                           (unsigned)(K * lane) * row_step;
    const int64_t in_bytes = rows * cols * E;
    const bool tail = Edge && transpose_lines_tail(E, rows, cols, tile_row, tile_col);
    uint32_t cell[4][K]; /* cell m, row i: the i-th of lane's rows, word m of its 16 bytes */
#pragma unroll
    for (int i = 0; i < K; ++i) {
        /* edge tiles: rows past the matrix's ends wrapped */
        const int64_t in_row =
            Edge ? transpose_lines_row_byte_wrapped(E, rows, cols, tile_row, tile_col, K * lane + i)
                 : 0;
        const unsigned row_byte = Edge ? in_at + (unsigned)in_row
                                       : first + (unsigned)i * row_step; /* its phase: mod 16 */
        const uint4 a = *(const uint4 *)(tile + chunks(lane, i, row_byte, j)),
                    b = *(const uint4 *)(tile + chunks(lane, i, row_byte, j + 1));
        uint32_t x[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
        if (row_byte & 8) { /* words 2 on: no register indexed by a variable */
#pragma unroll
            for (int w = 0; w < 6; ++w)
                x[w] = x[w + 2];
        }
        if (row_byte & 4) {
#pragma unroll
            for (int w = 0; w < 5; ++w)
                x[w] = x[w + 1];
        }
#pragma unroll
        for (int m = 0; m < 4; ++m) /* prmt.f4e: the 4 bytes from byte row_byte % 4 of the 8 */
            asm("prmt.b32.f4e %0, %1, %2, %3;"
                : "=r"(cell[m][i])
                : "r"(x[m]), "r"(x[m + 1]), "r"(row_byte));
        if (tail) { /* 16 bytes that reach the last 16 of `in`, where those are not whole
                     * (never copied: transpose_lines_copy_inside), from `in` */
            const int64_t at = in_row + 16 * j;
            if (at + 16 > (in_bytes & ~(int64_t)15))
#pragma unroll
                for (int m = 0; m < 4; ++m) {
                    cell[m][i] = 0;
#pragma unroll
                    for (int b = 0; b < 4; ++b)
                        if (at + 4 * m + b < in_bytes)
                            cell[m][i] |= (uint32_t)in[at + 4 * m + b] << 8 * b;
                }
        }
    }
#pragma unroll
    for (int m = 0; m < 4; ++m)
        transpose_block(cell[m]); /* word e: column K m + e of the chunk */

    /* Output row o of the chunk column: `at` is where the lane's word would
     * start if a cell row began on a word, (o, the tile's first own row) +
     * 4 (lane - 8) bytes, sb bytes past a sector there. Its word lies at at
     * & ~3 (a cell row is a word: sb % 4 bytes before), holds 8 (at % 4)
     * bits of the lane before's cell (transpose_lines_word), and is one of
     * the segment's 24 from that sector where bit at % 32 of `writes` is set
     * (transpose_lines_writes). */
    static_assert(E * K == 4, "a cell row is a word");
    const int64_t o0 = (tile_col * 16 * TRANSPOSE_CELLS_CHUNKS + 16 * j) / E;
    uintptr_t at_r = (uintptr_t)(out + (o0 * rows + tile_row * transpose_lines_rows(E)) * E) +
                     4 * (uintptr_t)(lane - TRANSPOSE_LINES_ABOVE);
    const uintptr_t rows_bytes = (uintptr_t)(rows * E);
    const uint32_t writes = transpose_lines_writes(lane);
    /* edge tiles: the ends of `out`, and where output row o + 1 starts
     * (transpose_lines_owns) */
    const uintptr_t out_begin = (uintptr_t)out, out_end = out_begin + (uintptr_t)in_bytes;
    uintptr_t next_r = out_begin + (uintptr_t)(o0 + 1) * rows_bytes;
#pragma unroll
    for (int m = 0; m < 4; ++m)
#pragma unroll
        for (int e = 0; e < K; ++e, at_r += rows_bytes, next_r += rows_bytes) {
            if (Edge && o0 + K * m + e >= cols)
                return;           /* the whole warp */
            asm("" : "+l"(at_r)); /* one add a row: ptxas would work each out afresh */
            const unsigned at = (unsigned)at_r; /* at mod 2^32: all but the address needs */
            const uint32_t word =
                transpose_lines_word(__shfl_up_sync(~0u, cell[m][e], 1), cell[m][e], at);
            const uintptr_t to = at_r & ~(uintptr_t)3;
            const bool writes_here = transpose_lines_writes_at(writes, at),
                       mine = !Edge || transpose_lines_owns(to, next_r, o0 + K * m + e + 1 == cols),
                       whole = !Edge || (to >= out_begin && to + 4 <= out_end);
            const unsigned store = writes_here && mine && whole;
            /* a predicated store, no branch around it */
            asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %2, 0;\n"
                         "@p st.global.b32 [%0], %1;\n}\n" ::"l"(to),
                         "r"(word), "r"(store)
                         : "memory");
            if (Edge && __any_sync(~0u, writes_here && mine && !whole) && writes_here && mine &&
                !whole) { /* a word across an end of `out`: its elements inside */
#pragma unroll
                for (int n = 0; n < K; ++n)
                    if (to + E * n >= out_begin && to + E * (n + 1) <= out_end) {
                        if (E == 1)
                            *(uint8_t *)(to + n) = (uint8_t)(word >> 8 * n);
                        else
                            *(uint16_t *)(to + 2 * n) = (uint16_t)(word >> 16 * n);
                    }
            }
        }
}

/* The store phase of the tile lines_copy copied. */
template <int E, bool Edge>
static __device__ __forceinline__ void
lines_store(unsigned char *__restrict__ out, const unsigned char *__restrict__ in, int64_t rows,
            int64_t cols, int64_t tile_row, int64_t tile_col, const unsigned char *tile)
{
    lines_store<E, Edge>(out, in, rows, cols, tile_row, tile_col, tile, lines_chunks<E>{});
}

/* One tile: its copies, then its stores. Interior tiles copy in two
 * groups, lines 0 and 1 of every row, then line 2: warps 0-7 read lines 0
 * and 1 only (TRANSPOSE_LINES_NEAR_WARPS), so they store once the first
 * group is in, while line 2 lands for warps 8-15, which wait on barrier 1
 * (warps 0-7 arrive at it once their own line-2 copies are in). Edge tiles
 * copy in one group (split, they would spill). test_transpose holds the
 * bound at every phase. */
template <int E, bool Edge>
static __device__ __forceinline__ void
lines_tile(unsigned char *__restrict__ out, const unsigned char *__restrict__ in, int64_t rows,
           int64_t cols, int64_t tile_row, int64_t tile_col, unsigned char *tile)
{
    if constexpr (Edge) {
        lines_copy<E, Edge, false>(tile, in, rows, cols, tile_row, tile_col);
        copies_wait();
        __syncthreads();
        lines_store<E, Edge>(out, in, rows, cols, tile_row, tile_col, tile);
        return;
    }
    lines_copy<E, Edge, true>(tile, in, rows, cols, tile_row, tile_col);
    copies_wait_but_last();
    __syncthreads();
    if (threadIdx.x / 32 < TRANSPOSE_LINES_NEAR_WARPS) {
        lines_store<E, Edge>(out, in, rows, cols, tile_row, tile_col, tile);
        copies_wait();
        asm volatile("bar.arrive 1, %0;\n" ::"n"(TRANSPOSE_CELLS_THREADS) : "memory");
    } else {
        copies_wait();
        asm volatile("bar.sync 1, %0;\n" ::"n"(TRANSPOSE_CELLS_THREADS) : "memory");
        lines_store<E, Edge>(out, in, rows, cols, tile_row, tile_col, tile);
    }
}

/* A block's `tiles` tiles (at most Stack: transpose_lines_stack), one
 * under the other: all their copies, then each tile's stores once its
 * copies are in. */
template <int E, int Stack, bool Edge>
static __device__ __forceinline__ void
lines_stack(unsigned char *__restrict__ out, const unsigned char *__restrict__ in, int64_t rows,
            int64_t cols, int64_t tile_row, int64_t tile_col, int tiles,
            unsigned char (*tile)[TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, E))])
{
    static_assert(Stack <= 2, "copies_wait_but_last waits for all groups but one");
    if constexpr (Stack == 1) {
        lines_tile<E, Edge>(out, in, rows, cols, tile_row, tile_col, tile[0]);
    } else {
#pragma unroll
        for (int s = 0; s < Stack; ++s)
            if (s < tiles) {
                lines_copy<E, Edge, false>(tile[s], in, rows, cols, tile_row + s, tile_col);
                copies_commit();
            }
#pragma unroll
        for (int s = 0; s < Stack; ++s)
            if (s < tiles) {
                if (s + 1 < tiles)
                    copies_wait_but_last();
                else
                    copies_wait();
                __syncthreads();
                lines_store<E, Edge>(out, in, rows, cols, tile_row + s, tile_col, tile[s]);
            }
    }
}

template <int E, int Stack>
__global__ void __launch_bounds__(TRANSPOSE_CELLS_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_CELLS_THREADS, 4))
    transpose_packed_lines(void *__restrict__ out, const void *__restrict__ in, int64_t rows,
                           int64_t cols)
{
    __shared__ __align__(128) unsigned char
        tile[Stack][TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, E))];
    const int64_t tile_row = (int64_t)blockIdx.x * Stack, tile_col = blockIdx.y,
                  left = transpose_lines_tile_rows(E, rows) - tile_row;
    const int tiles = left < Stack ? (int)left : Stack;
    if (transpose_lines_edge_block(E, rows, cols, Stack, blockIdx.x, tile_col))
        lines_stack<E, Stack, true>((unsigned char *)out, (const unsigned char *)in, rows, cols,
                                    tile_row, tile_col, tiles, tile);
    else
        lines_stack<E, Stack, false>((unsigned char *)out, (const unsigned char *)in, rows, cols,
                                     tile_row, tile_col, tiles, tile);
}

/* ---- launchers ---- */

/* Whether this device runs the cells kernels' sm_80 code (cp.async): a GPU
 * below sm_80, or a build whose code for this GPU is older PTX, has only
 * their trap; and its SM count (transpose_lines_stack). Asked once a
 * device. */
template <int E> static cudaError_t copies_here(bool *yes, int *sms)
{
    static signed char known[64]; /* 0: not asked; 1 yes; -1 no */
    static int sms_of[64];
    int device = 0, sm80 = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess && device < 64 && known[device] != 0) {
        *yes = known[device] > 0;
        *sms = sms_of[device];
        return cudaSuccess;
    }
    if (err == cudaSuccess)
        err = bf_kernel_built_for((const void *)transpose_packed_cells<E>, 80, &sm80);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device);
    if (err != cudaSuccess)
        return err;
    if (device < 64) /* the count before the flag: a thread that sees one sees both */
        sms_of[device] = *sms, known[device] = sm80 ? 1 : -1;
    *yes = sm80 != 0;
    return cudaSuccess;
}

/* The packed variant's launcher, for transpose() in transpose.cu (elem_bytes
 * 1 or 2, pointers and shape checked there): the cells kernel where it
 * takes the shape and pointers, else the lines kernel, else the
 * register-loaded tile, on sm_80 and later; below, the register-loaded tile. */
template <int E>
static cudaError_t launch_packed(void *out, const void *in, int64_t rows, int64_t cols,
                                 cudaStream_t stream)
{
    bool copies = false;
    int sms = 0;
    const cudaError_t err = copies_here<E>(&copies, &sms);
    if (err != cudaSuccess)
        return err;
    if (copies && transpose_cells_takes(E, rows, cols, out, in)) {
        const dim3 cells_grid((unsigned)transpose_cells_tile_rows(rows),
                              (unsigned)transpose_cells_tile_cols(E, cols));
        transpose_packed_cells<E>
            <<<cells_grid, TRANSPOSE_CELLS_THREADS, 0, stream>>>(out, in, rows, cols);
        return cudaGetLastError();
    }
    if (copies && transpose_lines_takes(E, rows, cols, in)) {
        const int stack = transpose_lines_stack(E, rows, cols, sms);
        const dim3 lines_grid((unsigned)transpose_lines_blocks(E, rows, stack),
                              (unsigned)transpose_cells_tile_cols(E, cols));
        if constexpr (E == 2) /* bytes never stack: 48 KiB a tile already */
            if (stack == TRANSPOSE_LINES_STACK_MAX) {
                transpose_packed_lines<E, TRANSPOSE_LINES_STACK_MAX>
                    <<<lines_grid, TRANSPOSE_CELLS_THREADS, 0, stream>>>(out, in, rows, cols);
                return cudaGetLastError();
            }
        transpose_packed_lines<E, 1>
            <<<lines_grid, TRANSPOSE_CELLS_THREADS, 0, stream>>>(out, in, rows, cols);
        return cudaGetLastError();
    }
    /* The register-loaded tile: aligned words for bytes only. On the H100 at
     * 16384^2, bytes 0.925 of copy aligned, 0.871 funnel (40 registers,
     * three blocks an SM); halves 0.879 aligned, 0.919 funnel (both four
     * blocks; why the funnel path is faster there is not measured;
     * docs/notes/transpose/). */
    constexpr enum transpose_variant V = TRANSPOSE_PACKED;
    const int width = transpose_tile_width(V, E);
    const int out_phase = transpose_out_phase(V, E, out);
    const int64_t tiles_r = transpose_grid_rows(V, E, rows, out_phase);
    const int64_t tiles_c = (cols + width - 1) / width;
    const dim3 grid((unsigned)tiles_r, (unsigned)(tiles_c < 65535 ? tiles_c : 65535));
    const dim3 block(32, TRANSPOSE_BLOCK_ROWS);
    const int k = transpose_pack(V, E);
    const bool aligned = E == 1 && rows % k == 0 && cols % k == 0 && (uintptr_t)out % 4 == 0 &&
                         (uintptr_t)in % 4 == 0;
    if constexpr (E == 1)
        if (aligned)
            transpose_packed<E, true><<<grid, block, 0, stream>>>(out, in, rows, cols);
    if (!aligned)
        transpose_packed<E, false><<<grid, block, 0, stream>>>(out, in, rows, cols);
    return cudaGetLastError();
}

/* Declared in transpose.cu, which calls it. */
cudaError_t transpose_packed_launch(int elem_bytes, void *out, const void *in, int64_t rows,
                                    int64_t cols, cudaStream_t stream);
cudaError_t transpose_packed_launch(int elem_bytes, void *out, const void *in, int64_t rows,
                                    int64_t cols, cudaStream_t stream)
{
    switch (elem_bytes) {
    case 1:
        return launch_packed<1>(out, in, rows, cols, stream);
    case 2:
        return launch_packed<2>(out, in, rows, cols, stream);
    default: /* transpose_refusal_elem refuses packed for the others */
        return cudaErrorInvalidValue;
    }
}
