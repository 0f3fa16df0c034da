/* The bench's ceiling for the table ciphers: the shared-memory bound of
 * their lookups. AES from T-tables is bound by its table reads, not by
 * memory (the replicated kernel moves about 0.4 of what a copy does), so its
 * rows are held to a kernel that makes the cipher's reads and nothing else:
 * a round of each 16-byte block is 16 lookups, word c of the next state the
 * XOR of entries byte 3 of word c, 2 of c + 1, 1 of c + 2 and 0 of c + 3
 * (the cipher's dependence: 16 independent reads a round, 4 blocks a
 * thread), each lane in its own copies of a 256-word table, laid out and
 * addressed as the replicated cipher's tables in the layout it takes on the
 * GPU (aes_lut_layout_of): T0T1, word x * 64 + 32 (i % 2) + lane for row i,
 * the address one PRMT; T0, word x * 32 + lane, a PRMT and an IMAD; in bank
 * `lane` either way, one wavefront a read. What it leaves out is the
 * cipher's rotations and round keys. It reads and writes the same bytes as
 * the cipher. Not part of the kernel library (the suite's own); it runs
 * outside BF_PROFILED, so ncu's hw test and --counters never profile it. */
#ifndef BANKFREE_AES_LUT_CEILING_H
#define BANKFREE_AES_LUT_CEILING_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = the state the rounds leave from in[i], for the `blocks`
 * 16-byte blocks at `in` and `out` (16-byte aligned device memory), `rounds`
 * (10, 12 or 14) x 16 lookups a block, on the replicated cipher's grid.
 * Returns cudaErrorInvalidValue for other rounds, blocks < 0, sms < 1, or a
 * misaligned or null pointer (blocks > 0), else the launch's error. */
cudaError_t aes_lut_lookup_ceiling(void *out, const void *in, int64_t blocks, int rounds, int sms,
                                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
