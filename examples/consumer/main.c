/* A C program that uses bankfree's kernels: a transpose, a sum and a GEMM on
 * the GPU (the Hopper variant where the GPU and the build have it), each
 * checked on the CPU. No GPU: one line and exit code 77. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "gemm_tile/gemm_tile.h"
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
enum { GM = 200, GN = 264, GK = 72 }; /* edge tiles and a K tail */

static float in[N], out[N];
static uint16_t a[GM * GK], b[GN * GK];
static float c[GM * GN];

/* Multiples of 1/4 in [-1, 1] as fp16 bits: every product and sum of 72 of
 * them is exact in fp32, so C is checked for equality. */
static uint16_t quarter(int i)
{
    static const uint16_t bits[9] = {0xbc00, 0xba00, 0xb800, 0xb400, 0x0000,
                                     0x3400, 0x3800, 0x3a00, 0x3c00};
    return bits[i % 9];
}
static float quarter_value(int i)
{
    return (float)(i % 9 - 4) / 4.0f;
}

/* C = A B^T through the C API: wgmma_sw128 where it runs, else swizzled.
 * Returns the number of wrong elements; names the variant. */
static int gemm(const char **variant)
{
    for (int i = 0; i < GM * GK; i++)
        a[i] = quarter(i * 7 + 1);
    for (int i = 0; i < GN * GK; i++)
        b[i] = quarter(i * 5 + 2);
    int device = 0;
    CHECK(cudaGetDevice(&device));
    enum gemm_tile_variant v = GEMM_TILE_WGMMA_SW128;
    if (gemm_tile_supported(v, device) != cudaSuccess)
        v = GEMM_TILE_SWIZZLED;
    *variant = v == GEMM_TILE_SWIZZLED ? "swizzled" : "wgmma_sw128";
    uint16_t *d_a, *d_b;
    float *d_c;
    CHECK(cudaMalloc((void **)&d_a, sizeof a));
    CHECK(cudaMalloc((void **)&d_b, sizeof b));
    CHECK(cudaMalloc((void **)&d_c, sizeof c));
    CHECK(cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_c, 0xff, sizeof c)); /* NaN until written */
    CHECK(gemm_tile_f32(v, d_c, d_a, d_b, GM, GN, GK, 0));
    CHECK(cudaMemcpy(c, d_c, sizeof c, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_a));
    int wrong = 0;
    for (int i = 0; i < GM; i++)
        for (int j = 0; j < GN; j++) {
            float want = 0;
            for (int p = 0; p < GK; p++)
                want += quarter_value((i * GK + p) * 7 + 1) * quarter_value((j * GK + p) * 5 + 2);
            wrong += c[i * GN + j] != want;
        }
    return wrong;
}

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

    const char *variant = NULL;
    const int gemm_wrong = gemm(&variant);

    printf("example: transpose of %dx%d (padded) %s, sum of %d floats (tuned) = %.0f %s, "
           "%dx%dx%d GEMM (%s) %s\n",
           ROWS, COLS, wrong ? "WRONG" : "ok", N, sum, sum_ok ? "ok" : "WRONG", GM, GN, GK, variant,
           gemm_wrong ? "WRONG" : "ok");
    return wrong || !sum_ok || gemm_wrong;
}
