/* Bytes and halves at odd shapes: the packed lines kernel against the same
 * tile copied in by the bulk copy engine (cp.async.bulk, sm_90), one copy a
 * tile row: its 256 bytes from the 16-byte chunk they start in, 17 chunks
 * (272 bytes: 9 sectors of L2 where the lines kernel's three lines are 12),
 * placed at that chunk's start so that no line of `in` matters to the
 * tile, rotated by the row's cell row (16 (24 t + t / k mod 8)) so that the
 * store phase's reads are conflict-free; the copies write shared memory
 * outside the LSU (no wavefronts), 128 copy instructions a tile instead of
 * the lines kernel's 3072. The store phase is the lines kernel's, its
 * chunks found by that offset. Contenders' reps interleaved, timed as
 * `bankfree bench` times (L2 flushed by a read where the data is under 4x
 * L2, else cold; medians of 60), as a fraction of the bench's copy kernel;
 * each output compared in full with the library's. Slower than the lines
 * kernel (one tile a block then) at every shape on the H100 and the H200, though it reads fewer L2
 * sectors and issues fewer instructions (docs/notes/transpose/odd-shapes.md,
 * "Bulk copies"). On a GPU machine (sm_90):
 *   cmake --build build --target transpose_probe_lines_bulk &&
 *   build/transpose/transpose_probe_lines_bulk [CASE] */
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

#define BULK_ROW 24 /* chunks a tile row in shared memory: 17 used, rotated by up to 7 */

static __host__ __device__ __forceinline__ uint32_t bulk_offset(int k, int t, int c)
{
    return 16u * (uint32_t)(BULK_ROW * t + (t / k) % 8 + c);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define PROBE_SM90 1
#else
#define PROBE_SM90 0
#endif

template <int E, bool Edge>
static __device__ __forceinline__ void bulk_copy(unsigned char *tile, const unsigned char *in,
                                                 int64_t rows, int64_t cols, int64_t tile_row,
                                                 int64_t tile_col, uint32_t bar)
{
    constexpr int K = transpose_pack(TRANSPOSE_PACKED, E);
    const int t = threadIdx.x;
    if (t >= 32 * K)
        return;
    /* edge tiles: rows past the matrix's ends wrapped, as the store phase reads them */
    const int64_t start =
        Edge ? transpose_lines_row_byte_wrapped(E, rows, cols, tile_row, tile_col, t)
             : transpose_lines_row_byte(E, cols, tile_row, tile_col, t);
    const int64_t from = start - (int64_t)((unsigned)start % 16u);
    uint32_t bytes = 272;
    if (Edge) {
        const int64_t left = rows * cols * E - from;
        bytes = left < 272 ? (uint32_t)(left / 16 * 16) : 272;
    }
#if PROBE_SM90
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
    if (bytes != 0)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], "
                     "[%1], %2, [%3];\n" ::"r"(
                         (unsigned)__cvta_generic_to_shared(tile + bulk_offset(K, t, 0))),
                     "l"(__cvta_generic_to_global(in + from)), "r"(bytes), "r"(bar)
                     : "memory");
#else
    (void)tile, (void)in, (void)from, (void)bar;
    __trap();
#endif
}

/* The store phase's chunks: at bulk_offset. */
template <int K> struct bulk_chunks {
    __device__ __forceinline__ uint32_t operator()(int lane, int i, unsigned, int c) const
    {
        return bulk_offset(K, K * lane + i, c);
    }
};

template <int E, bool Edge>
static __device__ __forceinline__ void
bulk_tile(unsigned char *out, const unsigned char *in, int64_t rows, int64_t cols, int64_t tile_row,
          int64_t tile_col, unsigned char *tile, uint64_t *bar_)
{
    constexpr int K = transpose_pack(TRANSPOSE_PACKED, E);
    const uint32_t bar = (uint32_t)__cvta_generic_to_shared(bar_);
#if PROBE_SM90
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(32 * K));
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    bulk_copy<E, Edge>(tile, in, rows, cols, tile_row, tile_col, bar);
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar)
                     : "memory");
    } while (!done);
#endif
    lines_store<E, Edge>(out, in, rows, cols, tile_row, tile_col, tile, bulk_chunks<K>{});
}

template <int E>
__global__ void __launch_bounds__(TRANSPOSE_CELLS_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_CELLS_THREADS, 4))
    transpose_packed_bulk(void *__restrict__ out, const void *__restrict__ in, int64_t rows,
                          int64_t cols)
{
    constexpr int K = transpose_pack(TRANSPOSE_PACKED, E);
    __shared__ __align__(128) unsigned char tile[32 * K * BULK_ROW * 16];
    /* The mbarrier in row 0's last chunk, which its copy (rotated by 0) leaves. */
    uint64_t *bar = (uint64_t *)(tile + 16 * (BULK_ROW - 1));
    const int64_t tile_row = blockIdx.x, tile_col = blockIdx.y;
    if (transpose_lines_edge(E, rows, cols, tile_row, tile_col))
        bulk_tile<E, true>((unsigned char *)out, (const unsigned char *)in, rows, cols, tile_row,
                           tile_col, tile, bar);
    else
        bulk_tile<E, false>((unsigned char *)out, (const unsigned char *)in, rows, cols, tile_row,
                            tile_col, tile, bar);
}

/* 0 copy kernel, 1 library, 2 bulk. */
static bool launch(int k, void *out, const void *in, int64_t rows, int64_t cols, int e)
{
    if (k == 0) {
        CHECK(bf_copy_kernel_ceiling(out, in, (size_t)(rows * cols * e), 0));
    } else if (k == 1) {
        CHECK(transpose(TRANSPOSE_PACKED, e, out, in, rows, cols, 0));
    } else {
        const dim3 grid((unsigned)transpose_lines_tile_rows(e, rows),
                        (unsigned)transpose_cells_tile_cols(e, cols));
        if (e == 1)
            transpose_packed_bulk<1><<<grid, TRANSPOSE_CELLS_THREADS>>>(out, in, rows, cols);
        else
            transpose_packed_bulk<2><<<grid, TRANSPOSE_CELLS_THREADS>>>(out, in, rows, cols);
        CHECK(cudaGetLastError());
    }
    return true;
}

int main(int argc, char **argv)
{
    static const struct probe_case cases[] = {
        {1, 7919, 8209}, {1, 16383, 16385}, {1, 8193, 8193}, {1, 2047, 2049},   {1, 4099, 300},
        {1, 300, 4099},  {1, 8192, 8224},   {2, 7919, 8209}, {2, 16383, 16385}, {2, 8193, 8193},
        {2, 2047, 2049}, {2, 300, 4099},    {2, 4099, 300},  {2, 1000, 999},
    };
    static const char *const names[] = {"copy kernel", "library", "bulk"};
    const int only = argc > 1 ? atoi(argv[1]) : -1; /* one case's index */
    return probe_contenders(cases, sizeof cases / sizeof *cases, only, names, 3, launch) ? 0 : 1;
}
