/* Histograms of 8-bit samples into 256 bins and of 16-bit samples into 4096
 * bins (bin = sample >> 4, as for 12-bit image and sensor data), any length,
 * any alignment, exact: three variants that differ in where the counting
 * happens, from global atomics to a shared-memory layout whose lanes never
 * collide on a bank (256 bins) or collide at most 4-way on any input (4096;
 * 8-way where each block counts at most 256 KiB, or where the GPU lets a
 * block have less than 128 KiB of shared memory: 4 copies of the bins there,
 * cheaper to clear and merge).
 *
 *     histogram_u8(HISTOGRAM_REPLICATED, d_hist, d_bytes, n, stream);
 *
 * hist (device memory, 256 or 4096 words) is overwritten on the stream: no
 * need to clear it first, and no workspace.
 *
 * Counts are 32-bit and wrap modulo 2^32: a bin that receives 2^32 + k samples
 * reads k, exactly as an uint32_t counter that was incremented that often
 * would (the tests check it with 2^32 + 5 equal bytes). Sum counts yourself in
 * wider integers over calls of fewer than 2^32 samples if you need more. */
#ifndef BANKFREE_HISTOGRAM_H
#define BANKFREE_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HISTOGRAM_U8_BINS  256
#define HISTOGRAM_U16_BINS 4096

enum histogram_variant {
    HISTOGRAM_GLOBAL,     /* atomicAdd on the output in global memory, per sample */
    HISTOGRAM_SHARED,     /* one shared copy per block: lanes collide on banks */
    HISTOGRAM_REPLICATED, /* copies laid out per lane: 1-way (256 bins), <= 4- or 8-way (4096) */
    HISTOGRAM_VARIANTS
};

/* hist[b] = number of in[i] == b, i < n (mod 2^32). in may start at any byte
 * address. Returns cudaErrorInvalidValue for a bad variant, n < 0 or n >= 2^62, or a null
 * pointer (in may be NULL when n is 0), else the launches' error. */
cudaError_t histogram_u8(enum histogram_variant variant, uint32_t *hist, const uint8_t *in,
                         int64_t n, cudaStream_t stream);

/* hist[b] = number of samples s with (s >> 4) == b, for the n little-endian
 * 16-bit samples that start at `in`, at any byte address, odd ones too (a
 * void pointer: an odd uint16_t pointer is not valid C); the kernel then
 * reads aligned 16-byte vectors and reassembles the samples that straddle
 * them. HISTOGRAM_REPLICATED keeps 4 or 8 copies of the 4096 bins a block
 * (64 or 128 KiB of shared memory; histogram_copies in histogram_layout.h):
 *   - 4 where each block counts at most 16384 aligned 16-byte vectors, that
 *     is where the input holds at most 16384 x SMs of them (n up to about
 *     131072 x SMs samples: 33 MiB, 17301504 samples, from a 16-byte
 *     boundary on the H100's 132 SMs);
 *   - 8 above that, where the GPU lets a block have 128 KiB
 *     (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on sm_90);
 *   - 4 at every n where it lets a block have less (sm_86 and sm_89: 99 KiB):
 *     still exact, at most 8-way. Where it grants less than 64 KiB, every
 *     call with n > 0 returns the same error (cudaFuncSetAttribute's).
 * Errors otherwise as histogram_u8. */
cudaError_t histogram_u16(enum histogram_variant variant, uint32_t *hist, const void *in, int64_t n,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
