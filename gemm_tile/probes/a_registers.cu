/* A from registers: does a tile that moves only B through shared memory
 * run its K loop at the tensor cores' rate? (docs/notes/gemm_tile/
 * smem-budget.md: every tile narrower than 256 is bound by shared memory's
 * 128 bytes a clock, most of them A's, written by TMA and read by each
 * wgmma.) The narrow tile, 128 x 64, two consumer warpgroups: B by TMA into
 * a ring of 8 stages (128-byte swizzle, as the library's), A loaded by each
 * consumer thread from global memory straight into wgmma's register
 * fragment (the rows and columns mma.m16n8k16's A puts in a thread, warp w
 * of the warpgroup rows 16 w ..), RS_BATCH K tiles at a time, a batch
 * ahead (ptxas gives a batch's loads one scoreboard, and a wait on it waits
 * for all of them: so a batch loads while the one before it multiplies;
 * -DRS_BATCH=3 for batches of 3), and wgmma.m64n64k16 with A in registers. One tile a block, C
 * stored from registers; M a multiple of 128, N of 64, K of 64 (a probe).
 *
 * Timed against the library's pick (gemm_tile_wgmma_launch, sw128) and
 * cublasGemmEx in turns, L2 flushed by reading (bf_l2_flush), medians of
 * 30 reps; C checked against cuBLAS's. Compile with
 * -gencode=arch=compute_90a,code=sm_90a and link cuBLAS.
 *   a_registers [M N K ...]   (default: 1024^3, 512^3, 768 x 1024 x 1024, 1024 x 1024 x 4096) */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/l2_flush.cu" /* the bench's flush, compiled into this probe */
#include "gemm_tile/gemm_tile_wgmma.cu"
#include "gemm_tile/probes/check.h"
#include "gemm_tile/probes/cublas_tn.h"

#define RS_BN     GEMM_TILE_WGMMA_BN_NARROW
#define RS_STAGES 8
#ifndef RS_BATCH
#define RS_BATCH 2
#endif
#define RS_AHEAD (2 * RS_BATCH) /* K tiles of A in registers */
#define RS_STAGE (RS_BN * 128u) /* a stage: B's 64 rows of 64 fp16 */
#define RS_SMEM  (RS_STAGES * RS_STAGE + 16u * RS_STAGES + 1024u)

/* acc (+)= A (registers: a[0..3], as mma.m16n8k16's A per warp) x B (desc) */
static __device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[32], const uint32_t (&a)[4],
                                                          uint64_t desc_b, int scale_d)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}

/* A's fragments of K tile kt for this thread: k16 step j's a0..a3 in
 * to[j] (rows r and r + 8, columns 16 j + 2 q and + 8 of the K tile). */
static __device__ __forceinline__ void load_a(uint32_t (&to)[4][4], const uint16_t *row,
                                              const uint16_t *row8, int kt)
{
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int at = 64 * kt + 16 * j;
        to[j][0] = __ldg(reinterpret_cast<const unsigned *>(row + at));
        to[j][1] = __ldg(reinterpret_cast<const unsigned *>(row8 + at));
        to[j][2] = __ldg(reinterpret_cast<const unsigned *>(row + at + 8));
        to[j][3] = __ldg(reinterpret_cast<const unsigned *>(row8 + at + 8));
    }
}

/* The compiler keeps these registers as they are up to here. */
static __device__ __forceinline__ void fence_a(uint32_t (&f)[4][4])
{
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            asm volatile("" : "+r"(f[j][i])::"memory");
}

__global__ void __launch_bounds__(GEMM_TILE_WGMMA_THREADS, 1)
    a_registers(const __grid_constant__ CUtensorMap map_b, const uint16_t *__restrict__ a,
                float *__restrict__ c, int64_t n, int64_t k)
{
    extern __shared__ __align__(1024) unsigned char dynamic_smem[];
    const uint32_t smem = ((uint32_t)__cvta_generic_to_shared(dynamic_smem) + 1023u) & ~1023u,
                   full = smem + RS_STAGES * RS_STAGE, empty = full + 8u * RS_STAGES;
    if (threadIdx.x == 0) {
        tma_prefetch_map(&map_b);
        for (int s = 0; s < RS_STAGES; ++s) {
            mbar_init(full + 8u * s, 1);
            mbar_init(empty + 8u * s, 4 * GEMM_TILE_WGMMA_CONSUMERS);
        }
        mbar_init_fence();
    }
    __syncthreads();
    const int warpgroup = __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0);
    const int64_t tiles_n = n / RS_BN, tile_m = blockIdx.x / tiles_n, tile_n = blockIdx.x % tiles_n;
    const int ktiles = (int)(k / 64);
    if (warpgroup == 0) { /* the producer: B only */
        if (threadIdx.x == 0) {
            int stage = 0;
            uint32_t phase = 0;
            for (int kt = 0; kt < ktiles; ++kt) {
                mbar_wait(empty + 8u * stage, phase ^ 1u);
                mbar_arrive_expect_tx(full + 8u * stage, RS_STAGE);
                tma_load_2d(smem + stage * RS_STAGE, &map_b, 64 * kt, (int)(tile_n * RS_BN),
                            full + 8u * stage);
                if (++stage == RS_STAGES) {
                    stage = 0;
                    phase ^= 1u;
                }
            }
        }
        return;
    }
    const int consumer = warpgroup - 1, thread = (int)threadIdx.x % 128, lane = thread % 32;
    const int64_t row = tile_m * GEMM_TILE_WGMMA_BM + 64 * consumer + 16 * (thread / 32) + lane / 4;
    const uint16_t *const a_row = a + row * k + 2 * (lane % 4), *const a_row8 = a_row + 8 * k;
    uint32_t frag[RS_AHEAD][4][4];
#pragma unroll
    for (int s = 0; s < RS_AHEAD; ++s)
        if (s < ktiles)
            load_a(frag[s], a_row, a_row8, s);
    float acc[RS_BN / 2];
#pragma unroll
    for (int i = 0; i < RS_BN / 2; ++i)
        acc[i] = 0.0f;
    int stage = 0, prev = 0;
    uint32_t phase = 0;
    for (int kt0 = 0; kt0 < ktiles; kt0 += RS_AHEAD) {
#pragma unroll
        for (int s = 0; s < RS_AHEAD; ++s) {
            const int kt = kt0 + s;
            if (kt >= ktiles)
                break;
            mbar_wait(full + 8u * stage, phase);
            wgmma_fence();
            const uint32_t b = smem + stage * RS_STAGE;
#pragma unroll
            for (int j = 0; j < 4; ++j)
                wgmma_m64n64k16_rs(
                    acc, frag[s][j],
                    gemm_tile_wgmma_desc(
                        GEMM_TILE_WGMMA_SW128, RS_BN,
                        b + gemm_tile_wgmma_step_offset(GEMM_TILE_WGMMA_SW128, RS_BN, 0, j)),
                    kt > 0 || j > 0);
            wgmma_commit();
            if (kt > 0) { /* K tile kt - 1's wgmma are done: its stage is free */
                wgmma_wait<1>();
                if (lane == 0)
                    mbar_arrive(empty + 8u * prev);
                if (s % RS_BATCH == 0) { /* K tiles kt - BATCH .. kt - 1 done: load kt + BATCH .. */
#pragma unroll
                    for (int i = 0; i < RS_BATCH; ++i) {
                        const int slot = (s + RS_BATCH + i) % RS_AHEAD;
                        fence_a(frag[slot]);
                        if (kt + RS_BATCH + i < ktiles)
                            load_a(frag[slot], a_row, a_row8, kt + RS_BATCH + i);
                    }
                }
            }
            prev = stage;
            if (++stage == RS_STAGES) {
                stage = 0;
                phase ^= 1u;
            }
        }
    }
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < RS_BN / 2; ++i)
        wgmma_fence_operand(acc[i]);
    float *const out = c + row * n + tile_n * RS_BN + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < RS_BN / 8; ++j) {
        store_pair(out + 8 * j, acc[4 * j], acc[4 * j + 1]);
        store_pair(out + 8 * n + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
    }
}

static cublasHandle_t cublas;

static void run(int64_t m, int64_t n, int64_t k, const void *flush, size_t flush_bytes)
{
    if (m % GEMM_TILE_WGMMA_BM || n % RS_BN || k % 64 || m < 1 || n < 1 || k < 64) {
        printf("%lldx%lldx%lld: skipped (M a multiple of 128, N of 64, K of 64)\n", (long long)m,
               (long long)n, (long long)k);
        return;
    }
    uint16_t *a, *b;
    float *c;
    CHECK(cudaMalloc(&a, (size_t)(m * k) * 2));
    CHECK(cudaMalloc(&b, (size_t)(n * k) * 2));
    CHECK(cudaMalloc(&c, (size_t)(m * n) * 4));
    std::vector<uint16_t> h((size_t)(m + n) * k); /* A and B differ: a swap of them shows */
    fill_inputs(h.data(), h.size());
    CHECK(cudaMemcpy(a, h.data(), (size_t)(m * k) * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, h.data() + m * k, (size_t)(n * k) * 2, cudaMemcpyHostToDevice));
    CUtensorMap map_b;
    CHECK(make_operand_map(&map_b, GEMM_TILE_WGMMA_SW128, b, n, k, RS_BN));
    CHECK(cudaFuncSetAttribute(a_registers, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)RS_SMEM));
    const unsigned blocks = (unsigned)(m / GEMM_TILE_WGMMA_BM * (n / RS_BN));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<double> t[3]; /* ours with A in registers, the library's pick, cuBLAS */
    for (int rep = -3; rep < 30; ++rep)
        for (int who = 0; who < 3; ++who) {
            CHECK(bf_l2_flush(flush, flush_bytes, 0));
            CHECK(cudaEventRecord(start));
            if (who == 0) {
                a_registers<<<blocks, GEMM_TILE_WGMMA_THREADS, RS_SMEM>>>(map_b, a, c, n, k);
                CHECK(cudaGetLastError());
            } else if (who == 1) {
                CHECK(gemm_tile_wgmma_launch(GEMM_TILE_WGMMA_SW128, c, 0, a, b, m, n, k, 0));
            } else if (cublas_tn(cublas, c, a, b, m, n, k) != CUBLAS_STATUS_SUCCESS) {
                fprintf(stderr, "cublasGemmEx failed\n");
                exit(1);
            }
            CHECK(cudaEventRecord(stop));
            CHECK(cudaEventSynchronize(stop));
            float ms;
            CHECK(cudaEventElapsedTime(&ms, start, stop));
            if (rep >= 0)
                t[who].push_back(1e3 * ms);
        }
    /* Ours against cuBLAS's C: a probe of a wrong kernel times nothing. */
    const size_t count = (size_t)(m * n);
    std::vector<float> ours(count), theirs(count);
    CHECK(cudaMemset(c, 0xff, count * 4));
    a_registers<<<blocks, GEMM_TILE_WGMMA_THREADS, RS_SMEM>>>(map_b, a, c, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(ours.data(), c, count * 4, cudaMemcpyDeviceToHost));
    if (cublas_tn(cublas, c, a, b, m, n, k) != CUBLAS_STATUS_SUCCESS)
        exit(1);
    CHECK(cudaMemcpy(theirs.data(), c, count * 4, cudaMemcpyDeviceToHost));
    if (!gemm_matches(ours.data(), theirs.data(), count, m, n, k))
        exit(1);
    int first = 0;
    int sms = 0, device = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    gemm_tile_wgmma_plan(m, n, k, sms, &first);
    printf("%lldx%lldx%lld: A in registers %.2f us (%u blocks), the library %.2f us (tile %d), "
           "cublasGemmEx %.2f us; vs cuBLAS %.3f / %.3f (medians of 30, L2 flushed)\n",
           (long long)m, (long long)n, (long long)k, median(t[0]), blocks, median(t[1]), first,
           median(t[2]), median(t[2]) / median(t[0]), median(t[2]) / median(t[1]));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
}

int main(int argc, char **argv)
{
    const size_t flush_bytes = PROBE_FLUSH_BYTES;
    void *const flush = probe_flush_buffer();
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    if (argc >= 4) {
        for (int i = 1; i + 2 < argc; i += 3)
            run(atoll(argv[i]), atoll(argv[i + 1]), atoll(argv[i + 2]), flush, flush_bytes);
    } else {
        const int64_t shapes[][3] = {
            {1024, 1024, 1024}, {512, 512, 512}, {768, 1024, 1024}, {1024, 1024, 4096}};
        for (const auto &s : shapes)
            run(s[0], s[1], s[2], flush, flush_bytes);
    }
    cublasDestroy(cublas);
    CHECK(cudaFree(flush));
    return 0;
}
