/* One CUTLASS GEMM, chosen by -D settings, for probes/cutlass.cu: the TN
 * GEMM of the bench (A m x k and B n x k, both K-major fp16; C m x n fp32,
 * row-major; C = A B^T). CUTLASS_SM80: CUTLASS 2.x's multistage kernel for
 * Ampere (cp.async, ldmatrix, mma.sync.m16n8k16: the path of our mma.sync
 * variants), block tile TBM x TBN x TBK, 64 x 64 warp tiles, STAGES stages,
 * SWIZZLE tile rows grouped. Else (sm_90a) CUTLASS 3.x's Hopper kernel (TMA,
 * wgmma, warp-specialized, persistent): PINGPONG 1 or cooperative, tile
 * TBM x TBN x TBK, cluster CLM x CLN, its stage count the most that fit.
 * NAME_desc() says which; NAME_run() launches it (0 or a CUDA error).
 * Compile with -DNDEBUG: CUTLASS's device asserts are calls, and a call
 * inside the mainloop serialises wgmma (ptxas warning C7510). */
#include <cstdint>

#include <cuda_runtime.h>

#include "cutlass/cutlass.h"
#if CUTLASS_SM80
#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/gemm/device/gemm.h"
#else
#include "cute/tensor.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/util/packed_stride.hpp"
#endif

#define STR2(x)    #x
#define STR(x)     STR2(x)
#define CAT2(a, b) a##b
#define CAT(a, b)  CAT2(a, b)

#if CUTLASS_SM80
using Gemm = cutlass::gemm::device::Gemm<
    cutlass::half_t, cutlass::layout::RowMajor, cutlass::half_t, cutlass::layout::ColumnMajor,
    float, cutlass::layout::RowMajor, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<TBM, TBN, TBK>, cutlass::gemm::GemmShape<64, 64, TBK>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<SWIZZLE>, STAGES>;
#define DESC                                                                                       \
    "CUTLASS sm80 " STR(TBM) "x" STR(TBN) "x" STR(TBK) ", " STR(STAGES) " stages, swizzle " STR(   \
        SWIZZLE)
#else
using namespace cute;
#if PINGPONG
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
#define SCHEDULE "pingpong"
#else
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
#define SCHEDULE "cooperative"
#endif
using TileMNK = Shape<Int<TBM>, Int<TBN>, Int<TBK>>;
using ClusterMNK = Shape<Int<CLM>, Int<CLN>, _1>;
using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileMNK, ClusterMNK,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float, float, cutlass::layout::RowMajor,
    4, float, cutlass::layout::RowMajor, 4, EpilogueSchedule>::CollectiveOp;
using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::half_t, cutlass::layout::RowMajor,
    8, cutlass::half_t, cutlass::layout::ColumnMajor, 8, float, TileMNK, ClusterMNK,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
        sizeof(typename Epilogue::SharedStorage))>,
    MainloopSchedule>::CollectiveOp;
using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
#define DESC                                                                                       \
    "CUTLASS sm90 " SCHEDULE                                                                       \
    " " STR(TBM) "x" STR(TBN) "x" STR(TBK) ", cluster " STR(CLM) "x" STR(CLN)
#endif

extern "C" const char *CAT(NAME, _desc)(void)
{
    return DESC;
}

extern "C" cudaError_t CAT(NAME, _run)(float *c, const uint16_t *a, const uint16_t *b, int m, int n,
                                       int k, cudaStream_t stream)
{
    static Gemm gemm;
    const cutlass::half_t *ha = (const cutlass::half_t *)a, *hb = (const cutlass::half_t *)b;
#if CUTLASS_SM80
    typename Gemm::Arguments args({m, n, k}, {ha, k}, {hb, k}, {c, n}, {c, n}, {1.0f, 0.0f});
    void *workspace = nullptr; /* none without a split K */
#else
    static void *workspace;
    static size_t workspace_bytes;
    cutlass::KernelHardwareInfo hw;
    int device = 0;
    cudaGetDevice(&device);
    hw.device_id = device;
    hw.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(device);
    typename Gemm::Arguments args{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {m, n, k, 1},
        {ha, cutlass::make_cute_packed_stride(typename Kernel::StrideA{}, {m, k, 1}), hb,
         cutlass::make_cute_packed_stride(typename Kernel::StrideB{}, {n, k, 1})},
        {{1.0f, 0.0f},
         c,
         cutlass::make_cute_packed_stride(typename Kernel::StrideC{}, {m, n, 1}),
         c,
         cutlass::make_cute_packed_stride(typename Kernel::StrideD{}, {m, n, 1})},
        hw};
    const size_t need = Gemm::get_workspace_size(args);
    if (need > workspace_bytes) {
        cudaFree(workspace);
        workspace = nullptr;
        workspace_bytes = 0;
        if (cudaMalloc(&workspace, need) != cudaSuccess)
            return cudaErrorMemoryAllocation;
        workspace_bytes = need;
    }
#endif
    if (gemm.can_implement(args) != cutlass::Status::kSuccess)
        return cudaErrorInvalidValue;
    if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess)
        return cudaErrorInvalidConfiguration;
    if (gemm.run(stream) != cutlass::Status::kSuccess)
        return cudaErrorLaunchFailure;
    return cudaGetLastError();
}
