/* Why a transpose is slower at odd shapes (0.79 of copy at 7919x8209 fp32
 * on the H100, 0.97 at 8192^2; cublasSgeam 0.77 and 0.96): the shared
 * tile, or rows that start off the 32-byte sectors and 128-byte lines? Four
 * kernels at square shapes whose rows are 128-, 32-, 16- and 4-byte
 * aligned (8192, 8200, 8196, 8193) and at 7919x8209:
 *   copy        the matrix as one flat array, 16-byte loads and stores;
 *   tiled copy  the transpose's global accesses without the transpose: a
 *               block reads a 64 x 64 tile of `in` row by row and writes it,
 *               untransposed, row by row where the transpose writes that
 *               tile of `out` (so the same sectors and lines, misaligned
 *               the same way; the output is not a transpose);
 *   padded      transpose_f32 (TRANSPOSE_PADDED), checked against
 *   sgeam       cublasSgeam.
 * L2 flushed (written) before every rep, reps interleaved, medians; each
 * kernel's fraction of the copy. If the tiled copy falls as the transpose
 * does at the misaligned shapes, the rows' alignment is the cost, not the
 * tile. On a GPU machine, from the repository root:
 *   nvcc -O3 -arch=sm_90 -I. transpose/probes/odd_rows.cu transpose/transpose_packed.cu \
 *        common/l2_flush.cu -lcublas -o odd_rows && ./odd_rows */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "transpose/probes/check.h"
#include "transpose/transpose.cu"

enum { REPS = 200, FLUSH_BYTES = 256 << 20, KERNELS = 4, TILE = 64, THREADS = 256 };

/* 4 n4 floats, 4 at a time, grid-stride (the last n % 4 of an odd shape
 * left out: this times, it does not copy). */
__global__ void flat_copy(float4 *__restrict__ out, const float4 *__restrict__ in, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = __ldg(in + i);
}

/* Tile (blockIdx.y, blockIdx.x) of `in` (rows x cols) to where the
 * transpose puts it in `out` (cols x rows), row i of the tile to row i of
 * the output tile: thread t copies column t % 64 of rows t / 64, + 4, ... */
__global__ void tiled_copy(float *__restrict__ out, const float *__restrict__ in, int64_t rows,
                           int64_t cols)
{
    const int64_t r0 = (int64_t)blockIdx.y * TILE, c0 = (int64_t)blockIdx.x * TILE;
    const int j = threadIdx.x % TILE;
    float v[TILE * TILE / THREADS];
#pragma unroll
    for (int k = 0; k < TILE * TILE / THREADS; ++k) {
        const int64_t i = threadIdx.x / TILE + k * (THREADS / TILE);
        v[k] = r0 + i < rows && c0 + j < cols ? __ldg(in + (r0 + i) * cols + c0 + j) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < TILE * TILE / THREADS; ++k) {
        const int64_t i = threadIdx.x / TILE + k * (THREADS / TILE);
        if (c0 + i < cols && r0 + j < rows) /* output row c0 + i, column r0 + j */
            out[(c0 + i) * rows + r0 + j] = v[k];
    }
}

static void launch(int kernel, cublasHandle_t blas, float *out, const float *in, int64_t rows,
                   int64_t cols)
{
    const size_t n = (size_t)(rows * cols);
    switch (kernel) {
    case 0:
        flat_copy<<<132 * 8, 512>>>((float4 *)out, (const float4 *)in, n / 4);
        CHECK(cudaGetLastError());
        break;
    case 1:
        tiled_copy<<<dim3((unsigned)((cols + TILE - 1) / TILE),
                          (unsigned)((rows + TILE - 1) / TILE)),
                     THREADS>>>(out, in, rows, cols);
        CHECK(cudaGetLastError());
        break;
    case 2:
        CHECK(transpose_f32(TRANSPOSE_PADDED, out, in, rows, cols, 0));
        break;
    default: {
        /* Column-major: in is cols x rows with leading dimension cols; out = in^T. */
        const float one = 1.0f, zero = 0.0f;
        CHECK_BLAS(cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)rows, (int)cols, &one, in,
                               (int)cols, &zero, out, (int)rows, out, (int)rows));
    }
    }
}

int main(void)
{
    const int64_t shapes[][2] = {
        {8192, 8192}, {8200, 8200}, {8196, 8196}, {8193, 8193}, {7919, 8209}};
    const size_t most = (size_t)8200 * 8200 + 4;
    float *in, *out, *expect;
    char *flush;
    CHECK(cudaMalloc(&in, most * 4));
    CHECK(cudaMalloc(&out, most * 4));
    CHECK(cudaMalloc(&expect, most * 4));
    CHECK(cudaMalloc(&flush, FLUSH_BYTES));
    float *host = (float *)malloc(most * 4), *got = (float *)malloc(most * 4);
    if (host == NULL || got == NULL)
        return 1;
    for (size_t i = 0; i < most; ++i) /* finite, never zero: geam moves them exactly */
        host[i] = (float)(i % 1000003) + 0.25f;
    CHECK(cudaMemcpy(in, host, most * 4, cudaMemcpyHostToDevice));
    cublasHandle_t blas;
    CHECK_BLAS(cublasCreate(&blas));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    static const char *const names[KERNELS] = {"copy", "tiled copy", "padded", "sgeam"};
    printf("%-11s", "shape");
    for (int k = 0; k < KERNELS; ++k)
        printf(" %12s us  of copy", names[k]);
    printf("\n");
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
        const int64_t rows = shapes[s][0], cols = shapes[s][1];
        const size_t n = (size_t)(rows * cols);
        launch(3, blas, expect, in, rows, cols);
        CHECK(cudaMemset(out, 0xff, n * 4));
        launch(2, blas, out, in, rows, cols);
        CHECK(cudaMemcpy(host, expect, n * 4, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(got, out, n * 4, cudaMemcpyDeviceToHost));
        if (memcmp(host, got, n * 4) != 0) {
            fprintf(stderr, "padded differs from sgeam at %lldx%lld\n", (long long)rows,
                    (long long)cols);
            return 1;
        }
        static float ms[KERNELS][REPS];
        for (int rep = -5; rep < REPS; ++rep)
            for (int k = 0; k < KERNELS; ++k) {
                flush_l2(flush, FLUSH_BYTES, rep);
                CHECK(cudaEventRecord(start, 0));
                launch(k, blas, out, in, rows, cols);
                CHECK(cudaEventRecord(stop, 0));
                CHECK(cudaEventSynchronize(stop));
                if (rep >= 0)
                    CHECK(cudaEventElapsedTime(&ms[k][rep], start, stop));
            }
        printf("%5lldx%-5lld", (long long)rows, (long long)cols);
        float median[KERNELS];
        for (int k = 0; k < KERNELS; ++k) {
            qsort(ms[k], REPS, sizeof(float), by_value);
            median[k] = ms[k][REPS / 2];
            printf(" %15.1f  %8.3f", median[k] * 1e3, median[0] / median[k]);
        }
        printf("\n");
    }
    return 0;
}
