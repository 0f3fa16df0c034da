/* What one SM of each GPU generation holds at once: resident threads, blocks
 * and shared memory (CUDA C++ Programming Guide, "Technical Specifications
 * per Compute Capability"). Two uses, one table:
 *
 *   - __launch_bounds__(threads, BF_MIN_BLOCKS(threads, want)): the blocks a
 *     kernel asks registers for, cut to what the architecture nvcc compiles
 *     for can hold (ptxas warns, an error under -Werror, when threads x
 *     blocks exceed it: 2048 threads an SM on sm_80/90/100, 1536 on
 *     sm_86/89/120, 1024 on sm_75);
 *   - bf_blocks_fit(): the blocks of a kernel an SM runs at once, which sizes
 *     a grid of "blocks an SM x SMs". The launchers take the limits from the
 *     GPU (bf_sm_limits_query, under nvcc); the bank model, which replays the
 *     grid without a GPU, takes them from bf_sm_limits_of(cc). */
#ifndef BANKFREE_SM_LIMITS_H
#define BANKFREE_SM_LIMITS_H

#include "common/hostdev.h"

/* Resident threads an SM on the architecture of this compilation pass. The
 * host pass never reaches ptxas: any value does there. */
#if !defined(__CUDA_ARCH__)
#define BF_SM_THREADS 2048
#elif __CUDA_ARCH__ < 800
#define BF_SM_THREADS 1024 /* sm_75 */
#elif __CUDA_ARCH__ == 800 || (__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1100)
#define BF_SM_THREADS 2048 /* sm_80, sm_90, sm_100, sm_103 */
#else
#define BF_SM_THREADS 1536 /* sm_86, sm_87, sm_89, sm_110, sm_120, sm_121 */
#endif

/* 1 in a pass that may use sm_80's instructions (cp.async, mma.sync
 * m16n8k16) and in the host pass; 0 for sm_75, where a kernel that needs
 * them compiles to a trap its launcher never starts (bf_kernel_built_for). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define BF_SM80 1
#else
#define BF_SM80 0
#endif

/* `want` blocks of `threads`, or as many as this architecture holds. */
#define BF_MIN_BLOCKS(threads, want)                                                               \
    ((threads) * (want) <= BF_SM_THREADS ? (want) : BF_SM_THREADS / (threads))

/* One SM's limits. Bytes of shared memory: `shared` an SM, `block_shared` the
 * most one block may ask for (cudaDevAttrMaxSharedMemoryPerBlockOptin), and
 * `reserved` that the system takes of an SM's for each block. */
struct bf_sm_limits {
    int cc; /* compute capability, 10 x major + minor: 90 */
    int threads, blocks;
    int shared, block_shared, reserved;
};

/* The limits of compute capability cc (75 ... 121), by the guide's table;
 * {0} for one it does not list. */
static BF_HD struct bf_sm_limits bf_sm_limits_of(int cc)
{
    struct bf_sm_limits l = {cc, 0, 0, 0, 0, 0};
    const int k = 1024;
    switch (cc) {
    case 75: /* T4, RTX 20xx */
        l.threads = 1024, l.blocks = 16, l.shared = 64 * k, l.block_shared = 64 * k;
        break;
    case 80: /* A100 */
    case 87: /* Jetson Orin */
        l.threads = cc == 80 ? 2048 : 1536, l.blocks = cc == 80 ? 32 : 16, l.shared = 164 * k;
        l.block_shared = 163 * k, l.reserved = k;
        break;
    case 86: /* RTX 30xx, A10, A40 */
    case 89: /* RTX 40xx, L4, L40 */
        l.threads = 1536, l.blocks = cc == 86 ? 16 : 24, l.shared = 100 * k;
        l.block_shared = 99 * k, l.reserved = k;
        break;
    case 90:  /* H100, H200 */
    case 100: /* B200 */
    case 103:
        l.threads = 2048, l.blocks = 32, l.shared = 228 * k, l.block_shared = 227 * k;
        l.reserved = k;
        break;
    case 120: /* RTX 50xx; shared memory taken as sm_86/89's, not checked on a GPU */
    case 121:
        l.threads = 1536, l.blocks = 32, l.shared = 100 * k, l.block_shared = 99 * k;
        l.reserved = k;
        break;
    default:
        break;
    }
    return l;
}

/* Blocks of `threads` threads and `shared` bytes of shared memory an SM
 * runs at once, at most `want` (the kernel's __launch_bounds__ asks registers
 * for that many, so registers never set the count); 0 if one does not fit. */
static BF_HD int bf_blocks_fit(struct bf_sm_limits l, int threads, int shared, int want)
{
    int n = want;
    if (threads * n > l.threads)
        n = l.threads / threads;
    if (n > l.blocks)
        n = l.blocks;
    if (shared > 0) {
        if (shared > l.block_shared)
            return 0;
        const int by_shared = l.shared / (shared + l.reserved);
        if (n > by_shared)
            n = by_shared;
    }
    return n;
}

#endif

/* With the CUDA runtime's header (nvcc, or a C file that included it first;
 * include this header again after it): the limits of a device. */
#if (defined(__CUDACC__) || defined(CUDART_VERSION)) && !defined(BANKFREE_SM_LIMITS_QUERY)
#define BANKFREE_SM_LIMITS_QUERY
#include <cuda_runtime_api.h>

/* The limits of CUDA device `device`, as its driver gives them. */
static inline cudaError_t bf_sm_limits_query(int device, struct bf_sm_limits *l)
{
    int major = 0, minor = 0;
    cudaError_t err;
    if ((err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device)) ||
        (err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device)) ||
        (err =
             cudaDeviceGetAttribute(&l->threads, cudaDevAttrMaxThreadsPerMultiProcessor, device)) ||
        (err = cudaDeviceGetAttribute(&l->blocks, cudaDevAttrMaxBlocksPerMultiprocessor, device)) ||
        (err = cudaDeviceGetAttribute(&l->shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                      device)) ||
        (err = cudaDeviceGetAttribute(&l->block_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                      device)) ||
        (err =
             cudaDeviceGetAttribute(&l->reserved, cudaDevAttrReservedSharedMemoryPerBlock, device)))
        return err;
    l->cc = 10 * major + minor;
    return cudaSuccess;
}

/* 1 when the code `kernel` runs on the current device was compiled for
 * compute capability `cc` or later (a build's PTX for an older target,
 * compiled by the driver for a newer GPU, is still the older target's code:
 * its sm_80-only parts are absent); 0 when not. */
static inline cudaError_t bf_kernel_built_for(const void *kernel, int cc, int *yes)
{
    struct cudaFuncAttributes a;
    const cudaError_t err = cudaFuncGetAttributes(&a, kernel);
    *yes = err == cudaSuccess && a.ptxVersion >= cc;
    return err;
}
#endif
