/* Tensor-core GEMM on Hopper (sm_90a), C = A * B (fp16 in, fp32 accumulate):
 * the tensor memory accelerator (TMA) copies tiles of A and B into a 4-stage
 * ring of shared memory, writing them already swizzled, and wgmma.mma_async
 * multiplies them straight from there. The four variants are one template,
 * gemm_tile_wgmma_kernel: they differ only in the swizzle mode, which sets
 * the tensor maps' boxes and the descriptors (gemm_tile_wgmma_layout.h).
 *
 * A block is 3 warpgroups and stays on its SM (a persistent grid, one block
 * an SM), taking 128 x 256 tiles of C in grouped order. Warpgroup 0
 * produces: one thread waits for a free stage, tells the stage's "full"
 * mbarrier how many bytes to expect and issues TMA copies for A (128 rows x
 * 64 of K) and B (256 columns x 64 of K). Warpgroups 1 and 2 consume: each
 * waits for a full stage, issues 4 wgmma.m64n256k16 (64 rows of C each, 128
 * fp32 accumulators a thread), and frees the stage it read before, once the
 * wgmma that read it completed (one batch left in flight). After a tile's
 * last K step each writes its 64 x 256 of C from registers while the
 * producer already fills the stages with the next tile. The producer gives
 * registers back (setmaxnreg) so that the consumers can hold 232 each.
 *
 * Shapes are what TMA makes easy: a box past the edge of A or B (M, N or K)
 * lands as zeros, so every block runs the same loop; only the stores of C
 * are predicated, in edge tiles. What the public kernels that beat cuBLAS
 * do, and which of it this one does: gemm_tile/README.md, "Hopper".
 * Compile with -gencode=arch=compute_90a,code=sm_90a. */
#include <limits.h>
#include <stdint.h>

#include <cuda.h>
#include <cuda_fp16.h>
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled_v12000 */

#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_hopper.cuh"
#include "gemm_tile/gemm_tile_store.cuh"
#include "gemm_tile/gemm_tile_wgmma.h"
#include "gemm_tile/gemm_tile_wgmma_layout.h"

/* Registers a thread after setmaxnreg: the producer gives back down to 40,
 * the consumers take 232 (128 x 40 + 256 x 232 <= 64 Ki registers an SM). */
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232

/* Where the ring stands: the stage in use and the parity of its barriers'
 * current phase, which flips each time the ring wraps. */
struct ring {
    int stage;
    uint32_t phase;
};

static __device__ __forceinline__ void ring_next(ring &r)
{
    if (++r.stage == GEMM_TILE_WGMMA_STAGES) {
        r.stage = 0;
        r.phase ^= 1u;
    }
}

/* The block's barriers: full[s] (the producer's arrival + TMA's bytes) and
 * empty[s] (one arrival per consumer warp). */
struct barriers {
    uint32_t full, empty;
};

static __device__ __forceinline__ uint32_t bar_at(uint32_t base, int stage)
{
    return base + 8u * (uint32_t)stage;
}

/* The producer's thread: for each of the block's tiles and each K tile,
 * wait for the stage to be free, then fill it with one TMA box a slab of A
 * and of B. */
template <int V>
static __device__ __forceinline__ void produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                               uint32_t smem, barriers bars, int64_t tiles_m,
                                               int64_t tiles_n, int ktiles)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    const int slabs = gemm_tile_wgmma_slabs(variant), per_slab = 8 / slabs;
    ring r = {0, 0};
    for (int64_t t = blockIdx.x; t < tiles_m * tiles_n; t += gridDim.x) {
        int64_t tile_m, tile_n;
        gemm_tile_wgmma_tile(t, tiles_m, tiles_n, &tile_m, &tile_n);
        const int row0 = (int)(tile_m * GEMM_TILE_WGMMA_BM),
                  col0 = (int)(tile_n * GEMM_TILE_WGMMA_BN);
        for (int kt = 0; kt < ktiles; ++kt) {
            mbar_wait(bar_at(bars.empty, r.stage), r.phase ^ 1u);
            const uint32_t full = bar_at(bars.full, r.stage);
            mbar_arrive_expect_tx(full, GEMM_TILE_WGMMA_STAGE_BYTES);
            const uint32_t a = smem + gemm_tile_wgmma_a_base(r.stage),
                           b = smem + gemm_tile_wgmma_b_base(r.stage);
#pragma unroll
            for (int s = 0; s < slabs; ++s) {
                const int k0 = kt * GEMM_TILE_WGMMA_BK + 8 * per_slab * s, chunk = per_slab * s;
                tma_load_2d(a + gemm_tile_wgmma_offset(variant, GEMM_TILE_WGMMA_BM, 0, chunk),
                            map_a, k0, row0, full);
                tma_load_2d(b + gemm_tile_wgmma_offset(variant, GEMM_TILE_WGMMA_BN, 0, chunk),
                            map_b, k0, col0, full);
            }
            ring_next(r);
        }
    }
}

/* A consumer warpgroup (0 or 1) multiplies rows 64 consumer .. + 63 of each
 * of the block's tiles and stores them. */
template <int V, typename Out>
static __device__ __forceinline__ void consume(Out *c, int64_t m, int64_t n, int pairs,
                                               uint32_t smem, barriers bars, int64_t tiles_m,
                                               int64_t tiles_n, int ktiles, int consumer)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    const int thread = (int)threadIdx.x % 128, warp = thread / 32, lane = thread % 32;
    const int a_row0 = GEMM_TILE_WGMMA_M * consumer;
    float acc[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
        acc[i] = 0.0f;
    ring r = {0, 0};
    for (int64_t t = blockIdx.x; t < tiles_m * tiles_n; t += gridDim.x) {
        int prev = 0;
        for (int kt = 0; kt < ktiles; ++kt) {
            mbar_wait(bar_at(bars.full, r.stage), r.phase);
            const uint32_t a = smem + gemm_tile_wgmma_a_base(r.stage),
                           b = smem + gemm_tile_wgmma_b_base(r.stage);
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < GEMM_TILE_WGMMA_KK; ++kk)
                wgmma_m64n256k16(
                    acc,
                    gemm_tile_wgmma_desc(
                        variant, GEMM_TILE_WGMMA_BM,
                        a + gemm_tile_wgmma_step_offset(variant, GEMM_TILE_WGMMA_BM, a_row0, kk)),
                    gemm_tile_wgmma_desc(
                        variant, GEMM_TILE_WGMMA_BN,
                        b + gemm_tile_wgmma_step_offset(variant, GEMM_TILE_WGMMA_BN, 0, kk)),
                    kt > 0 || kk > 0);
            wgmma_commit();
            if (kt > 0) { /* the previous K tile's wgmma are done: its stage is free */
                wgmma_wait<1>();
                if (lane == 0)
                    mbar_arrive(bar_at(bars.empty, prev));
            }
            prev = r.stage;
            ring_next(r);
        }
        wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < 128; ++i)
            wgmma_fence_operand(acc[i]);
        if (lane == 0)
            mbar_arrive(bar_at(bars.empty, prev));

        int64_t tile_m, tile_n;
        gemm_tile_wgmma_tile(t, tiles_m, tiles_n, &tile_m, &tile_n);
        const int64_t row = tile_m * GEMM_TILE_WGMMA_BM + a_row0 + 16 * warp + lane / 4,
                      col = tile_n * GEMM_TILE_WGMMA_BN + 2 * (lane % 4);
        if (pairs && (tile_m + 1) * GEMM_TILE_WGMMA_BM <= m &&
            (tile_n + 1) * GEMM_TILE_WGMMA_BN <= n) {
            Out *out = c + row * n + col; /* the whole tile inside C: no predicates */
#pragma unroll
            for (int j = 0; j < 32; ++j) {
                store_pair(out + 8 * j, acc[4 * j], acc[4 * j + 1]);
                store_pair(out + 8 * n + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
            }
        } else {
#pragma unroll
            for (int j = 0; j < 32; ++j) {
                store_c_pair(c, m, n, row, col + 8 * j, acc[4 * j], acc[4 * j + 1], pairs);
                store_c_pair(c, m, n, row + 8, col + 8 * j, acc[4 * j + 2], acc[4 * j + 3], pairs);
            }
        }
    }
}

template <int V, typename Out>
__global__ void __launch_bounds__(GEMM_TILE_WGMMA_THREADS, 1)
    gemm_tile_wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                           const __grid_constant__ CUtensorMap map_b, Out *c, int64_t m, int64_t n,
                           int64_t k, int pairs)
{
    extern __shared__ __align__(1024) unsigned char dynamic_smem[];
    /* TMA swizzles absolute addresses: the stages start on 1024 bytes. */
    const uint32_t smem = ((uint32_t)__cvta_generic_to_shared(dynamic_smem) + 1023u) & ~1023u;
    const barriers bars = {smem + GEMM_TILE_WGMMA_BARRIERS,
                           smem + GEMM_TILE_WGMMA_BARRIERS + 8u * GEMM_TILE_WGMMA_STAGES};
    if (threadIdx.x == 0) {
        for (int s = 0; s < GEMM_TILE_WGMMA_STAGES; ++s) {
            mbar_init(bar_at(bars.full, s), 1);
            mbar_init(bar_at(bars.empty, s), 4 * GEMM_TILE_WGMMA_CONSUMERS);
        }
        mbar_init_fence();
    }
    __syncthreads();
    const int64_t tiles_m = gemm_tile_wgmma_tiles_m(m), tiles_n = gemm_tile_wgmma_tiles_n(n);
    const int ktiles = (int)gemm_tile_wgmma_tiles_k(k), warpgroup = (int)threadIdx.x / 128;
    if (warpgroup == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0)
            produce<V>(&map_a, &map_b, smem, bars, tiles_m, tiles_n, ktiles);
    } else {
        setmaxnreg_inc<CONSUMER_REGS>();
        consume<V>(c, m, n, pairs, smem, bars, tiles_m, tiles_n, ktiles, warpgroup - 1);
    }
}

/* ---- launcher ---- */

/* cuTensorMapEncodeTiled, from the driver through the runtime: the library
 * links no driver library, so that it links (and CI runs) without one. */
static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void *p = NULL;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess)
            p = NULL;
        return (PFN_cuTensorMapEncodeTiled_v12000)p;
    }();
    return fn;
}

/* The tensor map of an operand: `rows` rows of k fp16 (A row-major, B's
 * columns), read in boxes of one slab (W / 2 of K) by `box_rows` rows,
 * swizzled as the variant's mode; out-of-bounds elements read as zeros. */
static cudaError_t make_map(CUtensorMap *map, enum gemm_tile_variant variant, const uint16_t *base,
                            int64_t rows, int64_t k, int box_rows)
{
    static const CUtensorMapSwizzle swizzle[4] = {
        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_64B,
        CU_TENSOR_MAP_SWIZZLE_128B};
    PFN_cuTensorMapEncodeTiled_v12000 encode = encode_tiled();
    if (encode == NULL)
        return cudaErrorNoKernelImageForDevice; /* a driver without TMA */
    const cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)k * 2};
    const cuuint32_t box[2] = {gemm_tile_wgmma_slab_bytes(variant) / 2, (cuuint32_t)box_rows},
                     steps[2] = {1, 1};
    const CUresult res = encode(
        map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<uint16_t *>(base), dims, strides, box,
        steps, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle[gemm_tile_wgmma_swizzle_bits(variant)],
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return res == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

template <int V, typename Out>
static cudaError_t launch_variant(Out *c, const uint16_t *a, const uint16_t *b, int64_t m,
                                  int64_t n, int64_t k, cudaStream_t stream)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    int device = 0, sms = 0, major = 0, minor = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err != cudaSuccess)
        return err;
    if (major != 9 || minor != 0) /* sm_90a code runs on compute capability 9.0 alone */
        return cudaErrorNoKernelImageForDevice;
    CUtensorMap map_a, map_b;
    err = make_map(&map_a, variant, a, m, k, GEMM_TILE_WGMMA_BM);
    if (err == cudaSuccess)
        err = make_map(&map_b, variant, b, n, k, GEMM_TILE_WGMMA_BN);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(gemm_tile_wgmma_kernel<V, Out>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)GEMM_TILE_WGMMA_SMEM_BYTES);
    if (err != cudaSuccess)
        return err;
    const int64_t tiles = gemm_tile_wgmma_tiles_m(m) * gemm_tile_wgmma_tiles_n(n);
    const unsigned blocks = (unsigned)(tiles < sms ? tiles : sms);
    const int pairs = n % 2 == 0 && (uintptr_t)c % (2 * sizeof(Out)) == 0;
    gemm_tile_wgmma_kernel<V, Out>
        <<<blocks, GEMM_TILE_WGMMA_THREADS, GEMM_TILE_WGMMA_SMEM_BYTES, stream>>>(map_a, map_b, c,
                                                                                  m, n, k, pairs);
    return cudaGetLastError();
}

template <typename Out>
static cudaError_t launch(enum gemm_tile_variant variant, Out *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream)
{
    switch (variant) {
    case GEMM_TILE_WGMMA_INTERLEAVE:
        return launch_variant<GEMM_TILE_WGMMA_INTERLEAVE>(c, a, b, m, n, k, stream);
    case GEMM_TILE_WGMMA_SW32:
        return launch_variant<GEMM_TILE_WGMMA_SW32>(c, a, b, m, n, k, stream);
    case GEMM_TILE_WGMMA_SW64:
        return launch_variant<GEMM_TILE_WGMMA_SW64>(c, a, b, m, n, k, stream);
    case GEMM_TILE_WGMMA_SW128:
        return launch_variant<GEMM_TILE_WGMMA_SW128>(c, a, b, m, n, k, stream);
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" int gemm_tile_wgmma_built(void)
{
    return 1;
}

extern "C" cudaError_t gemm_tile_wgmma_launch(enum gemm_tile_variant variant, void *c, int c_f16,
                                              const uint16_t *a, const uint16_t *b, int64_t m,
                                              int64_t n, int64_t k, cudaStream_t stream)
{
    if (c_f16)
        return launch(variant, static_cast<__half *>(c), a, b, m, n, k, stream);
    return launch(variant, static_cast<float *>(c), a, b, m, n, k, stream);
}
