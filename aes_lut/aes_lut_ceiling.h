/* The bench's ceiling for the table ciphers: the shared-memory bound of
 * their lookups. AES from T-tables is bound by its table reads, not by
 * memory (the replicated kernel moves about 0.4 of what a copy does), so its
 * rows are held to a kernel that makes the same reads a 16-byte block (16 a
 * round), conflict-free, with nothing else to do: each lane walks its own
 * copy of a 256-word table (word x * 32 + lane, so in bank `lane`), each
 * word holding the address of the next, so a lookup is one ld.shared of one
 * wavefront; four chains a block and four blocks a thread keep 16 reads in
 * flight. It reads and writes the same bytes as the cipher. Not part of the
 * kernel library (the suite's own); it runs outside BF_PROFILED, so ncu's
 * hw test and --counters never profile it. */
#ifndef BANKFREE_AES_LUT_CEILING_H
#define BANKFREE_AES_LUT_CEILING_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = in[i] xor the ends of the chains started from it, for the `blocks`
 * 16-byte blocks at `in` and `out` (16-byte aligned device memory), `rounds`
 * (10, 12 or 14) x 16 lookups a block, on a grid of up to 4 blocks an SM as
 * the cipher's. Returns cudaErrorInvalidValue for other rounds, blocks < 0,
 * sms < 1, or a misaligned or null pointer (blocks > 0), else the launch's
 * error. */
cudaError_t aes_lut_lookup_ceiling(void *out, const void *in, int64_t blocks, int rounds, int sms,
                                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
