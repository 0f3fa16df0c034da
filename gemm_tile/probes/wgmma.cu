/* What TMA's writes and wgmma's reads cost in shared memory, per swizzle
 * mode, for the bank model: one block loads one stage (A: 64 rows, B: 256
 * rows, 64 of K) with the family's tensor maps, once, then one warpgroup
 * issues ITER x 4 wgmma.m64n256k16 on it, exactly as the kernel's consumers
 * (descriptors from gemm_tile_wgmma_layout.h). Under ncu
 * (probes/wgmma_look.sh), a counter of wgmma's reads over the launch / (4
 * ITER) is one instruction's cost; TMA's counters over the launch are one
 * stage's. Then the epilogue's 8-byte stores: one warp, STORES st.shared.v2 a
 * pattern, SASS _op_st / STORES is one instruction's wavefronts. Compile with
 * -gencode=arch=compute_90a,code=sm_90a (this file includes
 * gemm_tile_wgmma.cu for its tensor maps). */
#include <cstdio>
#include <cstdlib>

#include "gemm_tile/gemm_tile_wgmma.cu"

#define ITER 64

#include "gemm_tile/probes/check.h"

template <int V>
__global__ void __launch_bounds__(128, 1)
    wgmma_probe(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b, float *sink)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    extern __shared__ __align__(1024) unsigned char dynamic_smem[];
    const uint32_t smem = ((uint32_t)__cvta_generic_to_shared(dynamic_smem) + 1023u) & ~1023u;
    const uint32_t a = smem, b = smem + GEMM_TILE_WGMMA_M * 128u,
                   bar = b + GEMM_TILE_WGMMA_BN * 128u;
    const int slabs = gemm_tile_wgmma_slabs(variant), per_slab = 8 / slabs;
    if (threadIdx.x == 0) {
        mbar_init(bar, 1);
        mbar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(bar, (GEMM_TILE_WGMMA_M + GEMM_TILE_WGMMA_BN) * 128u);
        for (int s = 0; s < slabs; ++s) {
            tma_load_2d(a + gemm_tile_wgmma_offset(variant, GEMM_TILE_WGMMA_M, 0, per_slab * s),
                        &map_a, 8 * per_slab * s, 0, bar);
            tma_load_2d(b + gemm_tile_wgmma_offset(variant, GEMM_TILE_WGMMA_BN, 0, per_slab * s),
                        &map_b, 8 * per_slab * s, 0, bar);
        }
    }
    mbar_wait(bar, 0);
    float acc[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
        acc[i] = 0.0f;
    for (int it = 0; it < ITER; ++it) {
        wgmma_fence();
        wgmma_ktile<V, GEMM_TILE_WGMMA_BN>(acc, a, GEMM_TILE_WGMMA_M, 0, b, 1);
        wgmma_commit();
        wgmma_wait<0>();
    }
    float sum = 0;
#pragma unroll
    for (int i = 0; i < 128; ++i) {
        wgmma_fence_operand(acc[i]);
        sum += acc[i];
    }
    sink[threadIdx.x] = sum;
}

/* 8-byte stores, lane l: 0 "lanes 0-15 one address, 16-31 the next" (1 if
 * the warp is one part, 2 if half-warps); 1 the epilogue's fp32 pairs in
 * the 128-byte-swizzled buffer (2 as one part, 4 as half-warps); 2 the same
 * pairs in plain 128-byte rows (8 either way); 3 256 contiguous bytes (2). */
__device__ uint32_t store_at(int pattern, int l)
{
    switch (pattern) {
    case 0:
        return 8u * (uint32_t)(l / 16);
    case 1:
        return gemm_tile_wgmma_c_offset(l / 4, 8u * (uint32_t)(l % 4));
    case 2:
        return 128u * (uint32_t)(l / 4) + 8u * (uint32_t)(l % 4);
    default:
        return 8u * (uint32_t)l;
    }
}

/* STORES stores, each into its own kilobyte, so that none is dead (ptxas
 * drops a store that a later one overwrites unread). */
#define STORES 32
__global__ void store_probe(int pattern, float *sink)
{
    __shared__ __align__(1024) float buffer[STORES * 256];
    const uint32_t at = (uint32_t)__cvta_generic_to_shared(buffer) + store_at(pattern, threadIdx.x);
#pragma unroll
    for (int it = 0; it < STORES; ++it)
        asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(at + 1024u * it), "f"((float)it),
                     "f"((float)threadIdx.x)
                     : "memory");
    __syncthreads();
    float sum = 0;
    for (int i = threadIdx.x; i < STORES * 256; i += 32)
        sum += buffer[i];
    sink[threadIdx.x] = sum;
}

template <int V> static void probe(const uint16_t *d_a, const uint16_t *d_b, float *sink)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    CUtensorMap map_a, map_b;
    CHECK(make_operand_map(&map_a, variant, d_a, GEMM_TILE_WGMMA_M, 64, GEMM_TILE_WGMMA_M));
    CHECK(make_operand_map(&map_b, variant, d_b, GEMM_TILE_WGMMA_BN, 64, GEMM_TILE_WGMMA_BN));
    const int bytes = (GEMM_TILE_WGMMA_M + GEMM_TILE_WGMMA_BN) * 128 + 8 + 1024;
    CHECK(cudaFuncSetAttribute(wgmma_probe<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    wgmma_probe<V><<<1, 128, bytes>>>(map_a, map_b, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float got[128];
    CHECK(cudaMemcpy(got, sink, sizeof got, cudaMemcpyDeviceToHost));
    printf("probe %d (%s swizzle): ITER %d, 4 wgmma an iteration, %d TMA boxes (sum %g)\n", V,
           V == GEMM_TILE_WGMMA_INTERLEAVE ? "no"
           : V == GEMM_TILE_WGMMA_SW32     ? "32B"
           : V == GEMM_TILE_WGMMA_SW64     ? "64B"
                                           : "128B",
           ITER, 2 * gemm_tile_wgmma_slabs(variant), (double)got[0]);
}

int main(void)
{
    uint16_t *d_a, *d_b;
    float *sink;
    static uint16_t h[GEMM_TILE_WGMMA_BN * 64];
    for (int i = 0; i < GEMM_TILE_WGMMA_BN * 64; ++i) /* fp16 in [1/16, 1/8), never zeros */
        h[i] = (uint16_t)(0x2c00u | (i * 2654435761u >> 22));
    CHECK(cudaMalloc(&d_a, sizeof h));
    CHECK(cudaMalloc(&d_b, sizeof h));
    CHECK(cudaMalloc(&sink, 128 * sizeof(float)));
    CHECK(cudaMemcpy(d_a, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h, sizeof h, cudaMemcpyHostToDevice));
    probe<GEMM_TILE_WGMMA_INTERLEAVE>(d_a, d_b, sink);
    probe<GEMM_TILE_WGMMA_SW32>(d_a, d_b, sink);
    probe<GEMM_TILE_WGMMA_SW64>(d_a, d_b, sink);
    probe<GEMM_TILE_WGMMA_SW128>(d_a, d_b, sink);
    for (int pattern = 0; pattern < 4; ++pattern) {
        store_probe<<<1, 32>>>(pattern, sink);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        printf("store pattern %d: %d st.shared.v2 of one warp\n", pattern, STORES);
    }
    return 0;
}
