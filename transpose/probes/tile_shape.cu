/* Which tile shape: the padded and swizzled kernels of transpose.cu, built
 * with the shape given on the command line, timed against cublasSgeam in one
 * run, L2 flushed before every rep, the reps of the three interleaved. On a
 * GPU machine, from the repository root, one binary per shape:
 *   nvcc -O3 -arch=sm_90 -I. -DTRANSPOSE_TILE_ROWS=64 -DTRANSPOSE_TILE_COLS_LOG2=6 \
 *        -DTRANSPOSE_BLOCK_ROWS=8 transpose/probes/tile_shape.cu transpose/transpose_packed.cu \
 *        common/l2_flush.cu -lcublas -o shape && ./shape
 * L2 is flushed by reading a buffer twice its size (clean lines), as the
 * bench does; with FLUSH=write in the environment by writing it (dirty
 * lines): what the kernels pay for writing back what was there.
 * It prints, per matrix, each kernel's median time and its ratio to
 * cublasSgeam, after checking both kernels' output against cuBLAS's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "transpose/probes/check.h"
#include "transpose/transpose.cu"

enum { REPS = 300, FLUSH_BYTES = 256 << 20, KERNELS = 3 };

/* Kernel i of the three on the rows x cols matrix in (out is cols x rows). */
static void launch(int i, cublasHandle_t blas, float *out, const float *in, int64_t rows,
                   int64_t cols)
{
    if (i < 2) {
        CHECK(
            transpose_f32(i == 0 ? TRANSPOSE_PADDED : TRANSPOSE_SWIZZLED, out, in, rows, cols, 0));
        return;
    }
    /* Column-major: in is cols x rows with leading dimension cols; out = in^T. */
    const float one = 1.0f, zero = 0.0f;
    CHECK_BLAS(cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)rows, (int)cols, &one, in,
                           (int)cols, &zero, out, (int)rows, out, (int)rows));
}

int main(void)
{
    const int64_t shapes[][2] = {{1000, 999},  {1024, 1024},   {2048, 2048},
                                 {2047, 2049}, {4096, 4096},   {8192, 8192},
                                 {7919, 8209}, {16384, 16384}, {64, 1048573}};
    const size_t most = (size_t)16384 * 16384;
    float *in, *out, *expect;
    char *flush;
    CHECK(cudaMalloc(&in, most * 4));
    CHECK(cudaMalloc(&out, most * 4));
    CHECK(cudaMalloc(&expect, most * 4));
    CHECK(cudaMalloc(&flush, FLUSH_BYTES));
    float *host = (float *)malloc(most * 4);
    for (size_t i = 0; i < most; ++i)
        host[i] = (float)(i % 1000003) + 0.25f;
    CHECK(cudaMemcpy(in, host, most * 4, cudaMemcpyHostToDevice));
    cublasHandle_t blas;
    CHECK_BLAS(cublasCreate(&blas));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemset(flush, 1, FLUSH_BYTES));
    printf("flush by %s; ", flush_by_writing() ? "writing" : "reading");
    printf("tile %dx%d, %d threads, %d steps\n", TRANSPOSE_TILE_ROWS, TRANSPOSE_TILE_COLS,
           TRANSPOSE_THREADS, transpose_steps(TRANSPOSE_PADDED, 4));
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
        const int64_t rows = shapes[s][0], cols = shapes[s][1];
        const size_t n = (size_t)(rows * cols);
        launch(2, blas, expect, in, rows, cols);
        for (int i = 0; i < 2; ++i) {
            CHECK(cudaMemset(out, 0xff, n * 4));
            launch(i, blas, out, in, rows, cols);
            CHECK(cudaDeviceSynchronize());
            /* Bit-exact move: the two outputs must be equal byte for byte. */
            static float got[1 << 20];
            for (size_t o = 0; o < n; o += 1 << 20) {
                size_t len = n - o < (1 << 20) ? n - o : (1 << 20);
                CHECK(cudaMemcpy(host, expect + o, len * 4, cudaMemcpyDeviceToHost));
                CHECK(cudaMemcpy(got, out + o, len * 4, cudaMemcpyDeviceToHost));
                if (memcmp(host, got, len * 4) != 0) {
                    fprintf(stderr, "kernel %d wrong at %lldx%lld\n", i, (long long)rows,
                            (long long)cols);
                    return 1;
                }
            }
        }
        static float ms[KERNELS][REPS];
        for (int rep = -5; rep < REPS; ++rep)
            for (int i = 0; i < KERNELS; ++i) {
                flush_l2(flush, FLUSH_BYTES, rep);
                CHECK(cudaEventRecord(start, 0));
                launch(i, blas, out, in, rows, cols);
                CHECK(cudaEventRecord(stop, 0));
                CHECK(cudaEventSynchronize(stop));
                if (rep >= 0)
                    CHECK(cudaEventElapsedTime(&ms[i][rep], start, stop));
            }
        float median[KERNELS];
        for (int i = 0; i < KERNELS; ++i) {
            qsort(ms[i], REPS, sizeof(float), by_value);
            median[i] = ms[i][REPS / 2];
        }
        printf("%6lldx%-6lld padded %8.1f us %.3fx  swizzled %8.1f us %.3fx  sgeam %8.1f us "
               "(%.0f GB/s)\n",
               (long long)rows, (long long)cols, median[0] * 1e3, median[2] / median[0],
               median[1] * 1e3, median[2] / median[1], median[2] * 1e3,
               2.0 * n * 4 / (median[2] * 1e-3) / 1e9);
    }
    return 0;
}
