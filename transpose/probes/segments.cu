/* Why packed bytes and halves reach 0.92 of copy at 16384^2 on the H100
 * where fp32, doubles and 16-byte elements reach 0.97-0.98: the one shape
 * they differ in is how many bytes of a row a tile covers. The packed tiles
 * read 128 bytes of each of their rows (bytes: 256 rows x 128 bytes, halves:
 * 128 x 64), fp32's 64 x 64 tile reads 256, doubles' and 16-byte elements'
 * 256 and 512; HBM opens a page for each. This times the transpose's global
 * accesses alone (no shared memory, nothing transposed: each thread writes
 * what it read where a transpose of that tile would write, so the same
 * sectors, lines and pages) for tiles of W bytes a row and H rows of E-byte
 * elements, at 256 MiB (16384^2 bytes), against a flat copy of the same
 * bytes:
 *   W = 128, E = 1, H = 256   the packed bytes' tile (output rows 256 bytes)
 *   W = 128, E = 2, H = 128   the packed halves' tile (output rows 256 bytes)
 *   W = 256, E = 4, H = 64    fp32's tile
 *   W = 256, E = 1, H = 256   bytes with 256-byte rows both sides
 *   W = 256, E = 1, H = 128   bytes, 256-byte input rows, 128-byte output rows
 *   W = 256, E = 2, H = 128   halves likewise
 *   W = 512, E = 1, H = 128   bytes with 512-byte input rows
 * Grid as the transpose's (blockIdx.x down the rows), 512 threads, 4-byte
 * words, L2 flushed (written) before every rep, reps interleaved, medians.
 * If the 128-byte rows fall behind the 256-byte ones by what separates the
 * packed tiles from fp32's, wider packed tiles are the fix for issue "every
 * element size". On a GPU machine, from the repository root:
 *   nvcc -O3 -arch=sm_90 -I. transpose/probes/segments.cu common/l2_flush.cu \
 *        -o segments && ./segments */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "transpose/probes/check.h"

enum { SIDE = 16384, REPS = 100, FLUSH_BYTES = 256 << 20, THREADS = 512 };

/* 16-byte words, grid-stride. */
__global__ void flat_copy(uint4 *__restrict__ out, const uint4 *__restrict__ in, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = __ldg(in + i);
}

/* Tile (blockIdx.x, blockIdx.y): H rows of W bytes of `in` (SIDE x SIDE
 * bytes), read a 4-byte word a lane, a warp 128 bytes of a row at a time;
 * written where a transpose of E-byte elements puts it: W / E output rows of
 * H * E bytes, a warp 128 bytes of one at a time. */
template <int W, int E, int H> __global__ void tiled(uint32_t *out, const uint32_t *in)
{
    constexpr int WORDS = W * H / 4 / THREADS;         /* a thread's */
    constexpr int IN_ROW = W / 4, OUT_ROW = H * E / 4; /* words a tile row, each side */
    const int64_t r0 = (int64_t)blockIdx.x * H, c0 = (int64_t)blockIdx.y * W; /* bytes */
    const int64_t words = SIDE / 4;                                           /* a row */
    uint32_t v[WORDS];
#pragma unroll
    for (int k = 0; k < WORDS; ++k) {
        const int w = (int)threadIdx.x + k * THREADS;
        v[k] = __ldg(in + (r0 + w / IN_ROW) * words + c0 / 4 + w % IN_ROW);
    }
    /* out is SIDE / E rows of SIDE * E bytes: element column c of in is row
     * c of out, and the tile's rows r0 .. are its bytes r0 * E .. */
    const int64_t out_words = (int64_t)SIDE * E / 4;
#pragma unroll
    for (int k = 0; k < WORDS; ++k) {
        const int w = (int)threadIdx.x + k * THREADS;
        out[(c0 / E + w / OUT_ROW) * out_words + r0 * E / 4 + w % OUT_ROW] = v[k];
    }
}

struct shape {
    const char *name;
    void (*kernel)(uint32_t *, const uint32_t *);
    int w, e, h;
};

int main(void)
{
    const size_t bytes = (size_t)SIDE * SIDE;
    const struct shape shapes[] = {
        {"128 B x 256 rows, bytes (packed u8)", tiled<128, 1, 256>, 128, 1, 256},
        {"128 B x 128 rows, halves (packed f16)", tiled<128, 2, 128>, 128, 2, 128},
        {"256 B x 64 rows, fp32 (padded)", tiled<256, 4, 64>, 256, 4, 64},
        {"256 B x 256 rows, bytes", tiled<256, 1, 256>, 256, 1, 256},
        {"256 B x 128 rows, bytes", tiled<256, 1, 128>, 256, 1, 128},
        {"256 B x 128 rows, halves", tiled<256, 2, 128>, 256, 2, 128},
        {"512 B x 128 rows, bytes", tiled<512, 1, 128>, 512, 1, 128},
    };
    const int kernels = 1 + (int)(sizeof shapes / sizeof *shapes);
    uint32_t *in, *out;
    char *flush;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&flush, FLUSH_BYTES));
    CHECK(cudaMemset(in, 0x5a, bytes));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    static float ms[16][REPS];
    for (int rep = -5; rep < REPS; ++rep)
        for (int k = 0; k < kernels; ++k) {
            flush_l2(flush, FLUSH_BYTES, rep);
            CHECK(cudaEventRecord(start, 0));
            if (k == 0) {
                flat_copy<<<132 * 8, THREADS>>>((uint4 *)out, (const uint4 *)in, bytes / 16);
            } else {
                const struct shape *s = &shapes[k - 1];
                s->kernel<<<dim3(SIDE / s->h, SIDE / s->w), THREADS>>>(out, in);
            }
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(stop, 0));
            CHECK(cudaEventSynchronize(stop));
            if (rep >= 0)
                CHECK(cudaEventElapsedTime(&ms[k][rep], start, stop));
        }
    float median[16];
    for (int k = 0; k < kernels; ++k) {
        qsort(ms[k], REPS, sizeof(float), by_value);
        median[k] = ms[k][REPS / 2];
    }
    int device;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaGetDeviceProperties(&prop, device));
    printf("# %s; %dx%d bytes (256 MiB) in, the same out; L2 flushed; median of %d reps\n",
           prop.name, SIDE, SIDE, REPS);
    printf("%-40s %9s %8s\n", "kernel", "us", "of copy");
    printf("%-40s %9.1f %8.3f\n", "flat copy", 1e3 * median[0], 1.0);
    for (int k = 1; k < kernels; ++k)
        printf("%-40s %9.1f %8.3f\n", shapes[k - 1].name, 1e3 * median[k], median[0] / median[k]);
    return 0;
}
