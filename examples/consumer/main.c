/* A C program that uses bankfree's kernels: a transpose and a sum on the GPU,
 * each checked on the CPU. No GPU: one line and exit code 77. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "reduction/reduction.h"
#include "transpose/transpose.h"

/* Every CUDA call, the launchers included, returns a cudaError_t. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    cudaGetErrorString(err_));                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { ROWS = 300, COLS = 200, N = ROWS * COLS };

static float in[N], out[N];

int main(void)
{
    int devices = 0, driver = 0;
    cudaError_t err = cudaGetDeviceCount(&devices);
    cudaDriverGetVersion(&driver);
    if (err == cudaErrorInsufficientDriver && driver > 0) {
        fprintf(stderr, "example: the NVIDIA driver is older than this CUDA runtime: update it\n");
        return 1;
    }
    if (err != cudaSuccess || devices == 0) {
        fprintf(stderr, "example: no CUDA GPU (%s)\n",
                driver == 0          ? "this machine has no NVIDIA driver"
                : err != cudaSuccess ? cudaGetErrorString(err)
                                     : "the driver finds none");
        return 77;
    }

    long long expected = 0; /* small integers: the fp32 sum is exact in any order */
    for (int i = 0; i < N; i++) {
        in[i] = (float)(i % 16);
        expected += i % 16;
    }

    float *d_in, *d_out, *d_sum, sum = 0;
    void *work = NULL;
    size_t work_bytes = reduction_workspace_bytes(REDUCTION_TUNED, N);
    CHECK(cudaMalloc((void **)&d_in, sizeof in));
    CHECK(cudaMalloc((void **)&d_out, sizeof out));
    CHECK(cudaMalloc((void **)&d_sum, sizeof sum));
    if (work_bytes > 0)
        CHECK(cudaMalloc(&work, work_bytes));
    CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));

    /* out (COLS x ROWS) = in^T, then the sum of out, both on the default stream. */
    CHECK(transpose_f32(TRANSPOSE_PADDED, d_out, d_in, ROWS, COLS, 0));
    CHECK(reduction_sum_f32(REDUCTION_TUNED, d_sum, d_out, N, work, work_bytes, 0));
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));

    int wrong = 0;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            wrong += out[(size_t)c * ROWS + r] != in[(size_t)r * COLS + c];
    int sum_ok = sum == (float)expected;

    CHECK(cudaFree(work));
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));

    printf("example: transpose of %dx%d (padded) %s, sum of %d floats (tuned) = %.0f %s\n", ROWS,
           COLS, wrong ? "WRONG" : "ok", N, sum, sum_ok ? "ok" : "WRONG");
    return wrong || !sum_ok;
}
