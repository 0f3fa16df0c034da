/* Parallel sum: Harris's shared-memory tree with the strided index that
 * conflicts, the same tree with sequential addressing, and a tuned kernel at
 * the memory-bandwidth limit. The two tree kernels share one body; they differ
 * only in reduction_tree_step (reduction_layout.h).
 *
 * int32 sums run as uint32_t, whose additions wrap modulo 2^32 by definition
 * (signed overflow would be undefined); the bits are those of int32. */
#include <atomic>

#include "reduction/reduction.h"
#include "reduction/reduction_layout.h"

/* ---- the tree kernels: one element a thread, ten levels in shared memory ---- */

/* Harris's loop: at each level the active threads add their partner's word
 * into their own; a barrier between levels, since the partner's word was
 * written by another thread. */
template <typename T>
static __device__ __forceinline__ void tree_sum(enum reduction_variant variant, T *__restrict__ out,
                                                const T *__restrict__ in, int64_t n)
{
    __shared__ T sdata[REDUCTION_TREE_THREADS];
    const int tid = threadIdx.x;
    const int64_t i = (int64_t)blockIdx.x * REDUCTION_TREE_THREADS + tid;
    sdata[reduction_fill_offset(tid)] = i < n ? in[i] : T(0);
    __syncthreads();
#pragma unroll
    for (int level = 0; level < REDUCTION_TREE_LEVELS; ++level) {
        const struct reduction_step st = reduction_tree_step(variant, level, tid);
        if (st.active)
            sdata[st.dst] = sdata[st.dst] + sdata[st.src];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[REDUCTION_RESULT_OFFSET];
}

/* index = 2*s*tid: a warp's lanes 2s words apart, 2- to 32-way conflicts. */
template <typename T>
__global__ void __launch_bounds__(REDUCTION_TREE_THREADS)
    reduction_interleaved(T *__restrict__ out, const T *__restrict__ in, int64_t n)
{
    tree_sum(REDUCTION_INTERLEAVED, out, in, n);
}

/* index = tid, partner tid + s: consecutive words, conflict-free. */
template <typename T>
__global__ void __launch_bounds__(REDUCTION_TREE_THREADS)
    reduction_sequential(T *__restrict__ out, const T *__restrict__ in, int64_t n)
{
    tree_sum(REDUCTION_SEQUENTIAL, out, in, n);
}

/* ---- the tuned kernel: 16-byte loads, registers, shuffles ---- */

/* Adds the four elements of a 16-byte load, as a two-level tree. */
static __device__ __forceinline__ float add4(float acc, uint4 v)
{
    return acc + ((__uint_as_float(v.x) + __uint_as_float(v.y)) +
                  (__uint_as_float(v.z) + __uint_as_float(v.w)));
}
static __device__ __forceinline__ uint32_t add4(uint32_t acc, uint4 v)
{
    return acc + ((v.x + v.y) + (v.z + v.w));
}

/* Every lane gets the sum of the warp's 32 values. */
template <typename T> static __device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int lanes = 16; lanes > 0; lanes /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, lanes);
    return v;
}

/* A load of the tuned kernel. The first pass reads the caller's input, which
 * nothing writes while it runs: through the read-only cache (ld.global.nc,
 * __ldg). The dependent pass reads the first pass's partial sums after
 * griddepcontrol.wait, which "causes the executing thread to wait until all
 * prerequisite grids in flight have completed and all the memory operations
 * from the prerequisite grids are performed and made visible to the current
 * grid" (PTX ISA, Parallel Synchronization and Communication Instructions:
 * griddepcontrol). But the read-only cache is promised only data that is
 * read-only for the kernel's whole lifetime (CUDA C++ Programming Guide,
 * __ldg), and under programmatic dependent launch the dependent pass may be
 * resident while the first pass still writes; the ISA does not say that the
 * wait reaches that cache. So the dependent pass reads with ld.global.cg
 * (__ldcg): an ordinary global load, cached in L2 only, where the first
 * pass's stores are. It reads each partial sum once, so L1 would not help. */
template <bool Dependent, typename V> static __device__ __forceinline__ V load(const V *p)
{
    if constexpr (Dependent)
        return __ldcg(p);
    else
        return __ldg(p);
}

/* Block b sums elements [b * chunk, (b + 1) * chunk) of in. The span is read
 * as 16-byte vectors, up to REDUCTION_TUNED_LOADS (4) in flight per thread: a
 * first-pass chunk (reduction_tuned_chunk) gives each thread 1, 2 or 4 of
 * them, the second pass as many as its partial sums make, 4 at a time. The
 * few elements before the first 16-byte boundary and after the last one are
 * read singly (so any pointer and any length work). Each thread keeps its sum
 * in a register; the warps' sums meet in shared memory, one word each.
 * Dependent: the second pass, launched as a programmatic dependent of the
 * first (launch_tuned). */
template <typename T, bool Dependent>
__global__ void __launch_bounds__(REDUCTION_TUNED_THREADS)
    reduction_tuned(T *__restrict__ out, const T *__restrict__ in, int64_t n, int64_t chunk)
{
#if __CUDA_ARCH__ >= 900
    /* Programmatic dependent launch (launch_tuned): the first pass of a sum
     * of two lets the dependent pass (the second, over its partial sums)
     * launch now; that one waits here until the first pass has finished and
     * its sums are visible (launched the usual way, the wait returns at
     * once). Only that first pass triggers, and it is the only pass of more
     * than one block (reduction_plan): the last pass, and the one pass of a
     * small sum, leave a kernel the caller chains to the sum to launch when
     * they exit, after *out is written. */
    if constexpr (Dependent)
        cudaGridDependencySynchronize();
    else if (gridDim.x > 1)
        cudaTriggerProgrammaticLaunchCompletion();
#endif
    __shared__ T warp_sums[REDUCTION_TUNED_WARPS];
    const int tid = threadIdx.x;
    const int64_t lo = (int64_t)blockIdx.x * chunk, hi = lo + chunk < n ? lo + chunk : n;

    const int past_boundary = (int)((uintptr_t)(in + lo) / sizeof(T) % 4);
    const int64_t head = past_boundary == 0            ? 0
                         : hi - lo < 4 - past_boundary ? hi - lo
                                                       : 4 - past_boundary;
    const int64_t vectors = (hi - lo - head) / 4, tail = lo + head + 4 * vectors;
    const uint4 *vec = (const uint4 *)(in + lo + head);

    T acc = 0;
    if (tid < head)
        acc = load<Dependent>(in + lo + tid);
    if (tid < hi - tail)
        acc += load<Dependent>(in + tail + tid);
    int64_t v = tid;
    for (; v + (REDUCTION_TUNED_LOADS - 1) * REDUCTION_TUNED_THREADS < vectors;
         v += REDUCTION_TUNED_LOADS * REDUCTION_TUNED_THREADS) {
        uint4 x[REDUCTION_TUNED_LOADS];
#pragma unroll
        for (int k = 0; k < REDUCTION_TUNED_LOADS; ++k)
            x[k] = load<Dependent>(vec + v + k * REDUCTION_TUNED_THREADS);
#pragma unroll
        for (int k = 0; k < REDUCTION_TUNED_LOADS; ++k)
            acc = add4(acc, x[k]);
    }
    /* The rest, fewer than REDUCTION_TUNED_LOADS a thread: all issued before
     * any is added, so a short span (a small sum, the second pass) costs one
     * round trip to memory, not one a load; added in the same order. */
    uint4 x[REDUCTION_TUNED_LOADS];
#pragma unroll
    for (int k = 0; k < REDUCTION_TUNED_LOADS; ++k)
        if (v + k * REDUCTION_TUNED_THREADS < vectors)
            x[k] = load<Dependent>(vec + v + k * REDUCTION_TUNED_THREADS);
#pragma unroll
    for (int k = 0; k < REDUCTION_TUNED_LOADS; ++k)
        if (v + k * REDUCTION_TUNED_THREADS < vectors)
            acc = add4(acc, x[k]);

    acc = warp_sum(acc);
    if (tid % 32 == 0)
        warp_sums[reduction_warp_sum_offset(tid / 32)] = acc;
    __syncthreads();
    if (tid < 32) {
        acc = tid < REDUCTION_TUNED_WARPS ? warp_sums[reduction_warp_sum_offset(tid)] : T(0);
        acc = warp_sum(acc);
        if (tid == 0)
            out[blockIdx.x] = acc;
    }
}

/* ---- launchers ---- */

extern "C" size_t reduction_workspace_bytes(enum reduction_variant variant, int64_t n)
{
    return (size_t)reduction_workspace_elements(variant, n) * 4; /* fp32 and int32 alike */
}

/* Whether the dependent pass may be launched as a programmatic dependent of
 * the first on the current device: only where the code of
 * reduction_tuned<T, true> loaded there executes griddepcontrol.wait, that
 * is, was compiled from PTX for compute_90 or later (__CUDA_ARCH__ >= 900).
 * A launch with the attribute whose kernel lacks the wait could read the
 * partial sums before they exist (NVIDIA/cccl#9134). cudaFuncAttributes says
 * which code was loaded: ptxVersion is the virtual architecture it was
 * compiled for, binaryVersion only the SASS it runs as; a build for
 * compute_80 alone, JIT-compiled on an H100, has binaryVersion 90 but
 * ptxVersion 80, and no wait. The image loaded depends on the device (a build
 * for 80 and 90 loads its sm_80 code on an A100, its sm_90 code on an H100)
 * and on nothing that changes while the process runs, so the answer is kept
 * per device (and per T, a kernel each), as CUB keeps its PtxVersion. Not
 * measured: cudaFuncGetAttributes is a function lookup and a dozen attribute
 * queries in the driver, the cache one relaxed load a sum. */
template <typename T> static cudaError_t dependent_waits(bool *waits)
{
    static std::atomic<int> known[64]; /* a device's: 0 not asked yet, 1 no, 2 yes */
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess)
        return err;
    const bool cached = device >= 0 && device < 64;
    if (cached && known[device].load(std::memory_order_relaxed) != 0) {
        *waits = known[device].load(std::memory_order_relaxed) == 2;
        return cudaSuccess;
    }
    cudaFuncAttributes fa;
    err = cudaFuncGetAttributes(&fa, reduction_tuned<T, true>);
    if (err != cudaSuccess)
        return err;
    *waits = fa.ptxVersion >= 90;
    if (cached)
        known[device].store(*waits ? 2 : 1, std::memory_order_relaxed);
    return cudaSuccess;
}

/* Pass p of the tuned sum. The second pass is launched as the programmatic
 * dependent of the first where its code waits for it (dependent_waits): its
 * launch is under way while the first still reads, and its one block waits
 * in reduction_tuned for the first pass's sums. The order of the additions is
 * the same either way. */
template <typename T>
static cudaError_t launch_tuned(T *out, const T *in, const struct reduction_pass *pass, int p,
                                cudaStream_t stream)
{
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)pass->blocks);
    config.blockDim = dim3(REDUCTION_TUNED_THREADS);
    config.stream = stream;
    config.attrs = &attr;
    if (p == 0)
        return cudaLaunchKernelEx(&config, reduction_tuned<T, false>, out, in, pass->n,
                                  pass->chunk);
    bool waits = false;
    cudaError_t err = dependent_waits<T>(&waits);
    if (err != cudaSuccess)
        return err;
    config.numAttrs = waits ? 1 : 0;
    return cudaLaunchKernelEx(&config, reduction_tuned<T, true>, out, in, pass->n, pass->chunk);
}

/* Pass p reads the previous pass's partial sums and writes its own after
 * them in the workspace; the last pass writes the result. */
template <typename T>
static cudaError_t sum(enum reduction_variant variant, T *out, const T *in, int64_t n,
                       void *workspace, size_t workspace_bytes, cudaStream_t stream)
{
    if ((unsigned)variant >= REDUCTION_VARIANTS || out == NULL || n < 0 || (in == NULL && n > 0) ||
        workspace_bytes < reduction_workspace_bytes(variant, n) ||
        (workspace == NULL && reduction_workspace_bytes(variant, n) > 0))
        return cudaErrorInvalidValue;
    if (n == 0)
        return cudaMemsetAsync(out, 0, sizeof(T), stream);

    struct reduction_pass pass[REDUCTION_MAX_PASSES];
    const int passes = reduction_plan(variant, n, pass);
    if (pass[passes - 1].blocks != 1 || pass[0].blocks > INT32_MAX)
        return cudaErrorInvalidValue; /* more passes or blocks than a launch can have */
    const T *src = in;
    T *partial = (T *)workspace;
    for (int p = 0; p < passes; ++p) {
        T *dst = p + 1 == passes ? out : partial;
        const unsigned blocks = (unsigned)pass[p].blocks;
        cudaError_t err = cudaSuccess;
        switch (variant) {
        case REDUCTION_INTERLEAVED:
            reduction_interleaved<T>
                <<<blocks, REDUCTION_TREE_THREADS, 0, stream>>>(dst, src, pass[p].n);
            break;
        case REDUCTION_SEQUENTIAL:
            reduction_sequential<T>
                <<<blocks, REDUCTION_TREE_THREADS, 0, stream>>>(dst, src, pass[p].n);
            break;
        default:
            err = launch_tuned(dst, src, &pass[p], p, stream);
            break;
        }
        if (err == cudaSuccess)
            err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
        src = dst;
        partial = dst + blocks;
    }
    return cudaSuccess;
}

extern "C" cudaError_t reduction_sum_f32(enum reduction_variant variant, float *out,
                                         const float *in, int64_t n, void *workspace,
                                         size_t workspace_bytes, cudaStream_t stream)
{
    return sum(variant, out, in, n, workspace, workspace_bytes, stream);
}

extern "C" cudaError_t reduction_sum_i32(enum reduction_variant variant, int32_t *out,
                                         const int32_t *in, int64_t n, void *workspace,
                                         size_t workspace_bytes, cudaStream_t stream)
{
    return sum(variant, (uint32_t *)out, (const uint32_t *)in, n, workspace, workspace_bytes,
               stream);
}
