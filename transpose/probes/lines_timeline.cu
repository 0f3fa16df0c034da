/* Where the packed lines kernel's time goes at odd shapes: the library's
 * lines kernel, one tile a block (halves unstacked where the library
 * stacks two: transpose_lines_stack; copies in one group where the
 * library's interior tiles take two: lines_tile), each block stamping the
 * global timer (ns) at entry, when its whole tile is in (past the barrier)
 * and when its stores are issued (past a second barrier), and the SM it
 * ran on. Run as the bench runs it (L2 flushed by a read under 4x L2, else
 * cold); of the last of a few reps it prints the span, the blocks' copy
 * and store phases by wave (blocks ranked by entry, 4 an SM a wave) and,
 * over the span, how many blocks were copying and how many storing, which
 * tiles stored longest and which ended last (--edge-first: the grid's
 * last tile column, the one at the right edge, run first). Other modes
 * time contenders in turns: --resident (blocks an SM), --order (edge
 * first or not), --rows (the first and last tile rows without their
 * checks, or first; --rows-first gives their timeline). On a GPU machine:
 *   cmake --build build --target transpose_probe_lines_timeline &&
 *   build/transpose/transpose_probe_lines_timeline
 *     [--edge-first | --rows-first | --resident | --order | --rows] [e rows cols ...] */
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

static __device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

typedef unsigned long long stamp_t[4]; /* a block's entry, tile in, stores issued (ns), SM */

/* How the timed kernel runs its tiles: the library's way, or */
enum {
    EDGE_FIRST = 1, /* the last tile column (the right edge) first, the rest in order */
    ROWS_STORE = 2, /* the first and last tile rows store as the interior's (wrong output,
                     * past the matrix into the pads: case_open) */
    ROWS_FIRST = 4, /* the first and last tile rows of every column first, then the rest */
    PAD = 4 << 20   /* bytes before and after `in` and `out` */
};

template <int E>
__global__ void __launch_bounds__(TRANSPOSE_CELLS_THREADS,
                                  BF_MIN_BLOCKS(TRANSPOSE_CELLS_THREADS, 4))
    lines_timed(void *__restrict__ out_, const void *__restrict__ in_, int64_t rows, int64_t cols,
                stamp_t *stamps, int how)
{
    __shared__ __align__(
        128) unsigned char tile[TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, E))];
    unsigned char *out = (unsigned char *)out_;
    const unsigned char *in = (const unsigned char *)in_;
    int64_t tile_row = blockIdx.x,
            tile_col = how & EDGE_FIRST ? (blockIdx.y + gridDim.y - 1) % gridDim.y : blockIdx.y;
    if (how & ROWS_FIRST) { /* tile rows 0 and last0 on: the rows' edge tiles */
        const int64_t last0 = (rows - 1) / transpose_lines_rows(E), ends = gridDim.x - last0 + 1,
                      q = blockIdx.x + (int64_t)blockIdx.y * gridDim.x;
        if (q < ends * gridDim.y)
            tile_col = q / ends, tile_row = q % ends == 0 ? 0 : last0 + q % ends - 1;
        else
            tile_col = (q - ends * gridDim.y) / (last0 - 1),
            tile_row = 1 + (q - ends * gridDim.y) % (last0 - 1);
    }
    const size_t b = (size_t)tile_row + (size_t)tile_col * gridDim.x;
    /* an edge tile by its rows alone (tile row 1 is none at the probe's shapes) */
    const bool edge = transpose_lines_edge(E, rows, cols, tile_row, tile_col),
               row_edge = edge && !transpose_lines_edge(E, rows, cols, 1, tile_col);
    unsigned long long t0 = now_ns(), t1, t2;
    if (edge) {
        lines_copy<E, true, false>(tile, in, rows, cols, tile_row, tile_col);
        copies_wait();
        __syncthreads();
        t1 = now_ns();
        if (row_edge && (how & ROWS_STORE))
            lines_store<E, false>(out, in, rows, cols, tile_row, tile_col, tile);
        else
            lines_store<E, true>(out, in, rows, cols, tile_row, tile_col, tile);
    } else {
        lines_copy<E, false, false>(tile, in, rows, cols, tile_row, tile_col);
        copies_wait();
        __syncthreads();
        t1 = now_ns();
        lines_store<E, false>(out, in, rows, cols, tile_row, tile_col, tile);
    }
    __syncthreads();
    t2 = now_ns();
    if (threadIdx.x == 0) {
        unsigned sm;
        asm("mov.u32 %0, %%smid;" : "=r"(sm));
        stamps[b][0] = t0;
        stamps[b][1] = t1;
        stamps[b][2] = t2;
        stamps[b][3] = sm;
    }
}

static int by_u64(const void *a, const void *b)
{
    const unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

static double median_of(unsigned long long *v, size_t n)
{
    qsort(v, n, sizeof *v, by_u64);
    return n ? (double)v[n / 2] : 0.0;
}

/* Blocks ranked by key[b] (a block index fits in 20 bits): order[i] is
 * the i-th. key is overwritten. */
static void rank(unsigned long long *key, size_t *order, size_t blocks)
{
    for (size_t b = 0; b < blocks; ++b)
        key[b] = key[b] << 20 | b;
    qsort(key, blocks, sizeof *key, by_u64);
    for (size_t b = 0; b < blocks; ++b)
        order[b] = (size_t)(key[b] & ((1u << 20) - 1));
}

/* The median, and in *most the largest, of stamp `to` less stamp `from`
 * (-1: less t0) over blocks order[0 .. n), in ns; v is scratch. */
static double phase(const stamp_t *s, const size_t *order, size_t n, int from, int to,
                    unsigned long long t0, unsigned long long *v, double *most)
{
    *most = 0;
    for (size_t i = 0; i < n; ++i) {
        const stamp_t *b = &s[order[i]];
        v[i] = (*b)[to] - (from < 0 ? t0 : (*b)[from]);
        *most = (double)v[i] > *most ? (double)v[i] : *most;
    }
    return median_of(v, n);
}

/* A shape's buffers (`in` random enough: not zeros; both PAD bytes into
 * an allocation PAD longer each end), the L2 flush, the stamps and the
 * events. */
struct timeline_case {
    int e;
    int64_t rows, cols;
    size_t bytes;
    dim3 grid;
    bool flushed; /* under 4x L2: flushed by a read before each rep, else cold */
    size_t flush_bytes;
    unsigned char *in, *out;
    void *flush;
    stamp_t *stamps;
    cudaEvent_t start, stop;
};

static struct timeline_case case_open(int e, int64_t rows, int64_t cols, int l2)
{
    struct timeline_case c;
    c.e = e, c.rows = rows, c.cols = cols;
    c.bytes = (size_t)(rows * cols * e);
    c.grid = dim3((unsigned)transpose_lines_tile_rows(e, rows),
                  (unsigned)transpose_cells_tile_cols(e, cols));
    c.flushed = 2 * c.bytes < 4 * (size_t)l2;
    c.flush_bytes = 2 * (size_t)l2;
    CHECK(cudaMalloc(&c.in, c.bytes + 2 * PAD));
    CHECK(cudaMalloc(&c.out, c.bytes + 2 * PAD));
    c.in += PAD, c.out += PAD;
    CHECK(cudaMalloc(&c.flush, c.flush_bytes));
    CHECK(cudaMalloc(&c.stamps, (size_t)c.grid.x * c.grid.y * sizeof *c.stamps));
    CHECK(cudaMemset(c.in, 0x5a, c.bytes));
    CHECK(cudaMemset(c.flush, 1, c.flush_bytes));
    CHECK(cudaEventCreate(&c.start));
    CHECK(cudaEventCreate(&c.stop));
    return c;
}

static void case_close(struct timeline_case *c)
{
    CHECK(cudaFree(c->in - PAD));
    CHECK(cudaFree(c->out - PAD));
    CHECK(cudaFree(c->flush));
    CHECK(cudaFree(c->stamps));
    CHECK(cudaEventDestroy(c->start));
    CHECK(cudaEventDestroy(c->stop));
}

/* One rep, after the flush where the case is flushed: the copy kernel
 * (extra < 0), else the timed lines kernel with `extra` bytes of dynamic
 * shared memory, its tiles run as `how` says. Its event time in ms. */
static float case_rep(struct timeline_case *c, int rep, int extra, int how)
{
    if (c->flushed)
        flush_l2(c->flush, c->flush_bytes, rep);
    CHECK(cudaEventRecord(c->start, 0));
    if (extra < 0)
        CHECK(bf_copy_kernel_ceiling(c->out, c->in, c->bytes, 0));
    else if (c->e == 1)
        lines_timed<1><<<c->grid, TRANSPOSE_CELLS_THREADS, (size_t)extra>>>(
            c->out, c->in, c->rows, c->cols, c->stamps, how);
    else
        lines_timed<2><<<c->grid, TRANSPOSE_CELLS_THREADS, (size_t)extra>>>(
            c->out, c->in, c->rows, c->cols, c->stamps, how);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(c->stop, 0));
    CHECK(cudaEventSynchronize(c->stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, c->start, c->stop));
    return ms;
}

static void run(int e, int64_t rows, int64_t cols, int sms, int l2, int how)
{
    struct timeline_case c = case_open(e, rows, cols, l2);
    const size_t blocks = (size_t)c.grid.x * c.grid.y;
    float ms = 0, copy_ms = 0;
    for (int rep = 0; rep < 5; ++rep) {
        copy_ms = case_rep(&c, rep, -1, 0);
        ms = case_rep(&c, rep, 0, how);
    }
    stamp_t *s = (stamp_t *)malloc(blocks * sizeof *s);
    unsigned long long *v = (unsigned long long *)malloc(blocks * sizeof *v);
    size_t *order = (size_t *)malloc(blocks * sizeof *order);
    CHECK(cudaMemcpy(s, c.stamps, blocks * sizeof *s, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull, t_end = 0;
    for (size_t b = 0; b < blocks; ++b) {
        t0 = s[b][0] < t0 ? s[b][0] : t0;
        t_end = s[b][2] > t_end ? s[b][2] : t_end;
    }
    printf("\ne %d, %lld x %lld (%s%s): %zu blocks, %.2f waves of 4 an SM; events %.1f us (copy "
           "kernel %.1f us, %.3f of it), stamps' span %.1f us\n",
           e, (long long)rows, (long long)cols, c.flushed ? "flushed" : "cold",
           how & EDGE_FIRST ? ", edge first" : "", blocks, (double)blocks / (4.0 * sms), 1e3 * ms,
           1e3 * copy_ms, copy_ms / ms, (double)(t_end - t0) / 1e3);
    /* blocks ranked by entry; per wave the medians */
    for (size_t b = 0; b < blocks; ++b)
        v[b] = s[b][0] - t0;
    rank(v, order, blocks);
    const size_t wave = 4 * (size_t)sms;
    printf("%5s %10s %10s %10s %10s %10s\n", "wave", "entry us", "copy us", "store us", "copy max",
           "store max");
    for (size_t w0 = 0; w0 < blocks; w0 += wave) {
        const size_t n = blocks - w0 < wave ? blocks - w0 : wave;
        double entry_max, copy_max, store_max;
        const double entry = phase(s, order + w0, n, -1, 0, t0, v, &entry_max),
                     copy = phase(s, order + w0, n, 0, 1, t0, v, &copy_max),
                     store = phase(s, order + w0, n, 1, 2, t0, v, &store_max);
        printf("%5zu %10.2f %10.2f %10.2f %10.2f %10.2f\n", w0 / wave, entry / 1e3, copy / 1e3,
               store / 1e3, copy_max / 1e3, store_max / 1e3);
    }
    /* the same by kind of tile (tile row 1 is no edge at the probe's shapes) */
    static const char *const kinds[4] = {"interior", "first row", "last rows", "right edge"};
    for (int kind = 0; kind < 4; ++kind) {
        size_t n = 0;
        for (size_t b = 0; b < blocks; ++b) {
            const int64_t tr = (int64_t)(b % c.grid.x), tc = (int64_t)(b / c.grid.x);
            const int k = transpose_lines_edge(e, rows, cols, 1, tc)     ? 3
                          : !transpose_lines_edge(e, rows, cols, tr, tc) ? 0
                          : tr == 0                                      ? 1
                                                                         : 2;
            if (k == kind)
                order[n++] = b;
        }
        double copy_max, store_max;
        const double copy = phase(s, order, n, 0, 1, t0, v, &copy_max),
                     store = phase(s, order, n, 1, 2, t0, v, &store_max);
        printf("%10s %5zu blocks %21.2f %10.2f %10.2f %10.2f\n", kinds[kind], n, copy / 1e3,
               store / 1e3, copy_max / 1e3, store_max / 1e3);
    }
    /* over the span: blocks copying, storing */
    enum { SLICES = 24 };
    printf("%8s %8s %8s %8s\n", "t us", "copying", "storing", "of 4/SM");
    for (int k = 0; k < SLICES; ++k) {
        const unsigned long long at = t0 + (t_end - t0) * (2 * k + 1) / (2 * SLICES);
        int copying = 0, storing = 0;
        for (size_t b = 0; b < blocks; ++b) {
            copying += s[b][0] <= at && at < s[b][1];
            storing += s[b][1] <= at && at < s[b][2];
        }
        printf("%8.2f %8d %8d %8.2f\n", (double)(at - t0) / 1e3, copying, storing,
               (double)(copying + storing) / wave);
    }
    /* the longest store phases: which tiles */
    for (size_t b = 0; b < blocks; ++b)
        v[b] = s[b][2] - s[b][1];
    rank(v, order, blocks);
    printf("the 12 longest store phases: tile row, column, SM, entry, store (us)\n");
    for (size_t i = blocks > 12 ? blocks - 12 : 0; i < blocks; ++i) {
        const size_t b = order[i];
        printf("%6zu %4zu %4llu %8.2f %8.2f\n", b % c.grid.x, b / c.grid.x, s[b][3],
               (double)(s[b][0] - t0) / 1e3, (double)(s[b][2] - s[b][1]) / 1e3);
    }
    /* the last blocks to end: which tiles, and when */
    for (size_t b = 0; b < blocks; ++b)
        v[b] = s[b][2] - t0;
    rank(v, order, blocks);
    printf("the last 24 blocks to end: tile row, column, SM, entry, tile in, end (us)\n");
    for (size_t i = blocks > 24 ? blocks - 24 : 0; i < blocks; ++i) {
        const size_t b = order[i];
        printf("%6zu %4zu %4llu %8.2f %8.2f %8.2f\n", b % c.grid.x, b / c.grid.x, s[b][3],
               (double)(s[b][0] - t0) / 1e3, (double)(s[b][1] - t0) / 1e3,
               (double)(s[b][2] - t0) / 1e3);
    }
    free(order);
    free(v);
    free(s);
    case_close(&c);
}

/* Medians of 30 reps in turns of n contenders: extra[k] bytes of dynamic
 * shared memory (< 0: the copy kernel), its tiles run as how[k] says. */
static void turns(struct timeline_case *c, int n, const int *extra, const int *how, float *med)
{
    enum { REPS = 30, MOST = 4 };
    static float ms[MOST][REPS];
    for (int rep = -2; rep < REPS; ++rep)
        for (int k = 0; k < n && k < MOST; ++k) {
            const float t = case_rep(c, rep, extra[k], how[k]);
            if (rep >= 0)
                ms[k][rep] = t;
        }
    for (int k = 0; k < n && k < MOST; ++k) {
        qsort(ms[k], REPS, sizeof **ms, by_value);
        med[k] = ms[k][REPS / 2];
    }
}

/* --resident: the same kernel with dynamic shared memory that leaves
 * room for 4, 3 or 2 blocks an SM (fewer tiles in flight: shorter waits
 * for each), as a fraction of the copy kernel's. */
static void resident(int e, int64_t rows, int64_t cols, int l2)
{
    struct timeline_case c = case_open(e, rows, cols, l2);
    const int tile = TRANSPOSE_LINES_TILE_BYTES(transpose_pack(TRANSPOSE_PACKED, e));
    /* the copy kernel; 4, 3, 2 blocks an SM */
    const int extra[4] = {-1, 0, 70 * 1024 - tile, 100 * 1024 - tile}, how[4] = {0};
    CHECK(cudaFuncSetAttribute(lines_timed<1>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               100 * 1024));
    CHECK(cudaFuncSetAttribute(lines_timed<2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               100 * 1024));
    float med[4];
    turns(&c, 4, extra, how, med);
    printf(
        "e %d, %lld x %lld: copy kernel %.1f us; 4 an SM %.3f, 3 an SM %.3f, 2 an SM %.3f of it\n",
        e, (long long)rows, (long long)cols, 1e3 * med[0], med[0] / med[1], med[0] / med[2],
        med[0] / med[3]);
    case_close(&c);
}

/* --order: the tile columns in order (the library's) and the last first, as a
 * fraction of the copy kernel's. */
static void order(int e, int64_t rows, int64_t cols, int l2)
{
    struct timeline_case c = case_open(e, rows, cols, l2);
    const int extra[3] = {-1, 0, 0}, how[3] = {0, 0, EDGE_FIRST};
    float med[3];
    turns(&c, 3, extra, how, med);
    printf("e %d, %lld x %lld: copy kernel %.1f us; in order %.3f, edge first %.3f of it\n", e,
           (long long)rows, (long long)cols, 1e3 * med[0], med[0] / med[1], med[0] / med[2]);
    case_close(&c);
}

/* --rows: what the first and last tile rows cost: the library's kernel;
 * those rows storing as the interior does (wrong output: the time alone);
 * those rows run first; as a fraction of the copy kernel's. */
static void edge_rows(int e, int64_t rows, int64_t cols, int l2)
{
    struct timeline_case c = case_open(e, rows, cols, l2);
    const int extra[4] = {-1, 0, 0, 0}, how[4] = {0, 0, ROWS_STORE, ROWS_FIRST};
    float med[4];
    turns(&c, 4, extra, how, med);
    printf("e %d, %lld x %lld: copy kernel %.1f us; library %.3f, edge rows storing as the "
           "interior %.3f, run first %.3f of it\n",
           e, (long long)rows, (long long)cols, 1e3 * med[0], med[0] / med[1], med[0] / med[2],
           med[0] / med[3]);
    case_close(&c);
}

/* One shape in the mode argv[1] names ("": the timeline). */
static void shape(const char *mode, int e, int64_t rows, int64_t cols, int sms, int l2)
{
    if (strcmp(mode, "--resident") == 0)
        resident(e, rows, cols, l2);
    else if (strcmp(mode, "--order") == 0)
        order(e, rows, cols, l2);
    else if (strcmp(mode, "--rows") == 0)
        edge_rows(e, rows, cols, l2);
    else
        run(e, rows, cols, sms, l2,
            strcmp(mode, "--edge-first") == 0   ? EDGE_FIRST
            : strcmp(mode, "--rows-first") == 0 ? ROWS_FIRST
                                                : 0);
}

int main(int argc, char **argv)
{
    int sms = 0, l2 = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    const char *mode = argc > 1 && argv[1][0] == '-' ? argv[1] : "";
    const int first = *mode ? 2 : 1;
    for (int a = first; a + 2 < argc; a += 3)
        shape(mode, atoi(argv[a]), atoll(argv[a + 1]), atoll(argv[a + 2]), sms, l2);
    if (first < argc)
        return 0;
    static const struct probe_case cases[] = {
        {1, 7919, 8209}, {1, 7553, 8209}, {1, 16383, 16385}, {2, 7919, 8209}, {2, 16383, 16385}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
        shape(mode, cases[c].e, cases[c].rows, cases[c].cols, sms, l2);
    return 0;
}
