/* What a tiled transpose's global accesses reach on their own, at every
 * element size, at odd shapes and at squares: issue 23 asks 0.95 of copy at
 * 7919x8209. Five contenders, their reps interleaved, timed as `bankfree
 * bench` times (L2 flushed by a read where the data is under 4x L2, else
 * cold; medians), each as a fraction of the faster copy:
 *   memcpy,        cudaMemcpyAsync and the bench's copy kernel
 *   copy kernel    (bf_copy_ceiling, bf_copy_kernel_ceiling);
 *   accesses only  what a tile must load and store, with nothing in
 *                  between: a block reads TR rows of TW bytes of `in` (from
 *                  the aligned access at or below the row's start: at a
 *                  phase off the access size, up to one access short,
 *                  which only flatters it) and writes TW / E output rows of
 *                  TR elements each, every one moved back onto its 32-byte
 *                  sector as the library's sector-aligned tiles do; no rows above, no
 *                  whole lines; what it writes is what it loaded, in load
 *                  order (the output is no transpose). Tiles of 64 rows x
 *                  256 bytes (4 and 8 bytes), 64 x 512 (16), 128 x 256 (1
 *                  and 2: the packed cells tile); accesses as the library's:
 *                  the element's size from 4 bytes up, and for 1 and 2
 *                  bytes 16-byte reads (the cells' copies) and 4-byte writes;
 *   16 B accesses  the same, every read and write 16 bytes: what wider
 *                  accesses would reach with the same lines and sectors
 *                  (below 4 bytes it writes an output row with 8 or 16
 *                  lanes, and runs slower for that);
 *   library        transpose(): packed for 1 and 2 bytes, padded above.
 * If the accesses alone stay below 0.95 where the library does, the bar is
 * the pattern's, not the tile's. On a GPU machine, after a build:
 *   cmake --build build --target transpose_probe_odd_bound &&
 *   build/transpose/transpose_probe_odd_bound [ELEM_BYTES ROWS COLS]
 * (one case, or the list below). FLUSH=write in the environment flushes by
 * writing twice the L2 (dirty lines, as the bench did before it read: check.h);
 * FLUSH=none never flushes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ceilings.h"
#include "transpose/probes/check.h"
#include "transpose/transpose.h"

enum { THREADS = 512, REPS = 60, CONTENDERS = 5 };

/* The k-th W-sized part of x (R-sized vectors), k known at compile time. */
template <class W, class R, int N> static __device__ __forceinline__ W part(const R (&x)[N], int k)
{
    constexpr int per = sizeof(R) / sizeof(W);
    return ((const W *)&x[k / per])[k % per];
}

/* Tile (blockIdx.x, blockIdx.y): x walks tile rows, as the library's grid.
 * Reads of R, writes of W; the edge tiles check every access. */
template <int E, class R, class W, int TR, int TW>
__global__ void __launch_bounds__(THREADS, E < 16 ? 4 : 3) /* 4: 32 registers, as the library */
    accesses_only(unsigned char *__restrict__ out, const unsigned char *__restrict__ in,
                  int64_t rows, int64_t cols)
{
    constexpr int read_row = TW / (int)sizeof(R);      /* reads a tile row */
    constexpr int reads = TR * read_row / THREADS;     /* reads a thread */
    constexpr int write_row = TR * E / (int)sizeof(W); /* writes an output row */
    constexpr int writes = TR * TW / (int)sizeof(W) / THREADS;
    const int t = (int)threadIdx.x;
    const int64_t r0 = (int64_t)blockIdx.x * TR, c0 = (int64_t)blockIdx.y * TW; /* c0 in bytes */
    const int64_t row_bytes = cols * E, total = rows * row_bytes;
    const bool edge = r0 + TR > rows || c0 + TW + (int64_t)sizeof(R) > row_bytes;
    R x[reads];
#pragma unroll
    for (int k = 0; k < reads; ++k) {
        const int64_t r = r0 + t / read_row + k * (THREADS / read_row);
        const int64_t at = (r * row_bytes + c0) / (int64_t)sizeof(R) * (int64_t)sizeof(R) +
                           (t % read_row) * (int64_t)sizeof(R);
        x[k] = !edge || (r < rows && at - r * row_bytes < row_bytes &&
                         at + (int64_t)sizeof(R) <= total)
                   ? __ldg((const R *)(in + at))
                   : R{};
    }
    /* Output row o gets TR elements: TR E bytes from the sector its first is in. */
#pragma unroll
    for (int k = 0; k < writes; ++k) {
        const int64_t o = c0 / E + t / write_row + k * (THREADS / write_row);
        const int64_t at =
            ((o * rows + r0) * E & ~(int64_t)31) + (t % write_row) * (int64_t)sizeof(W);
        if (!edge || (o < cols && at + (int64_t)sizeof(W) <= total))
            *(W *)(out + at) = part<W>(x, k);
    }
}

template <int E, class R, class W, int TR, int TW>
static void launch_accesses(void *out, const void *in, int64_t rows, int64_t cols)
{
    const dim3 grid((unsigned)((rows + TR - 1) / TR), (unsigned)((cols * E + TW - 1) / TW));
    accesses_only<E, R, W, TR, TW>
        <<<grid, THREADS>>>((unsigned char *)out, (const unsigned char *)in, rows, cols);
    CHECK(cudaGetLastError());
}

static void launch(int contender, void *out, const void *in, int64_t rows, int64_t cols, int e)
{
    const size_t bytes = (size_t)(rows * cols * e);
    switch (contender) {
    case 0:
        CHECK(bf_copy_ceiling(out, in, bytes, 0));
        break;
    case 1:
        CHECK(bf_copy_kernel_ceiling(out, in, bytes, 0));
        break;
    case 2:
        if (e == 1)
            launch_accesses<1, uint4, uint32_t, 128, 256>(out, in, rows, cols);
        else if (e == 2)
            launch_accesses<2, uint4, uint32_t, 128, 256>(out, in, rows, cols);
        else if (e == 4)
            launch_accesses<4, uint32_t, uint32_t, 64, 256>(out, in, rows, cols);
        else if (e == 8)
            launch_accesses<8, uint2, uint2, 64, 256>(out, in, rows, cols);
        else
            launch_accesses<16, uint4, uint4, 64, 512>(out, in, rows, cols);
        break;
    case 3: /* the same lines and sectors, 16 bytes an access both ways */
        if (e == 1)
            launch_accesses<1, uint4, uint4, 128, 256>(out, in, rows, cols);
        else if (e == 2)
            launch_accesses<2, uint4, uint4, 128, 256>(out, in, rows, cols);
        else if (e == 4)
            launch_accesses<4, uint4, uint4, 64, 256>(out, in, rows, cols);
        else if (e == 8)
            launch_accesses<8, uint4, uint4, 64, 256>(out, in, rows, cols);
        else
            launch_accesses<16, uint4, uint4, 64, 512>(out, in, rows, cols);
        break;
    default:
        CHECK(transpose(e <= 2 ? TRANSPOSE_PACKED : TRANSPOSE_PADDED, e, out, in, rows, cols, 0));
    }
}

int main(int argc, char **argv)
{
    static struct probe_case cases[] = {
        {1, 16384, 16384}, {1, 7919, 8209},    {1, 16383, 16385}, {2, 16384, 16384},
        {2, 7919, 8209},   {2, 16383, 16385},  {4, 8192, 8192},   {4, 8200, 8200},
        {4, 8192, 8209},   {4, 8209, 8192},    {4, 7919, 8209},   {4, 16383, 16385},
        {8, 8192, 8192},   {8, 7919, 8209},    {8, 16383, 16385}, {16, 8192, 8192},
        {16, 7919, 8209},  {16, 16383, 16385},
    };
    size_t count = sizeof cases / sizeof *cases;
    if (argc == 4) {
        cases[0].e = atoi(argv[1]);
        cases[0].rows = atoll(argv[2]);
        cases[0].cols = atoll(argv[3]);
        count = 1;
    }
    const int e0 = cases[0].e;
    if ((argc != 1 && argc != 4) || (e0 != 1 && e0 != 2 && e0 != 4 && e0 != 8 && e0 != 16) ||
        cases[0].rows < 1 || cases[0].cols < 1) {
        fprintf(stderr, "usage: %s [ELEM_BYTES (1, 2, 4, 8, 16) ROWS COLS (>= 1)]\n", argv[0]);
        return 1;
    }
    const bool no_flush = getenv("FLUSH") != NULL && strcmp(getenv("FLUSH"), "none") == 0;
    const size_t most = probe_most_bytes(cases, count);
    int l2 = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    void *in, *out, *flush;
    CHECK(cudaMalloc(&in, most));
    CHECK(cudaMalloc(&out, most));
    CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
    CHECK(cudaMemset(flush, 1, 2 * (size_t)l2));
    CHECK(cudaMemset(in, 0x5b, most)); /* what is moved does not matter here */
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    static const char *const names[CONTENDERS] = {"memcpy", "copy kernel", "accesses only",
                                                  "16 B accesses", "library"};
    printf("%2s %-11s %8s", "e", "shape", "l2");
    for (int k = 0; k < CONTENDERS; ++k)
        printf(" %13s us  of copy", names[k]);
    printf("\n");
    for (size_t c = 0; c < count; ++c) {
        const int e = cases[c].e;
        const int64_t rows = cases[c].rows, cols = cases[c].cols;
        const size_t data = 2 * (size_t)(rows * cols * e);
        const bool flushed = !no_flush && data < 4 * (size_t)l2;
        static float ms[CONTENDERS][REPS];
        for (int rep = -3; rep < REPS; ++rep)
            for (int k = 0; k < CONTENDERS; ++k) {
                if (flushed)
                    flush_l2(flush, 2 * (size_t)l2, rep);
                CHECK(cudaEventRecord(start, 0));
                launch(k, out, in, rows, cols, e);
                CHECK(cudaEventRecord(stop, 0));
                CHECK(cudaEventSynchronize(stop));
                if (rep >= 0)
                    CHECK(cudaEventElapsedTime(&ms[k][rep], start, stop));
            }
        float median[CONTENDERS];
        for (int k = 0; k < CONTENDERS; ++k) {
            qsort(ms[k], REPS, sizeof(float), by_value);
            median[k] = ms[k][REPS / 2];
        }
        const float copy = median[0] < median[1] ? median[0] : median[1];
        printf("%2d %5lldx%-5lld %8s", e, (long long)rows, (long long)cols,
               !flushed             ? "cold"
               : flush_by_writing() ? "written"
                                    : "flushed");
        for (int k = 0; k < CONTENDERS; ++k)
            printf(" %16.1f  %8.3f", median[k] * 1e3, copy / median[k]);
        printf("\n");
    }
    return 0;
}
