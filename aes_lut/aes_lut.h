/* AES-128, AES-192 and AES-256 encryption (FIPS-197) in CTR mode (NIST SP
 * 800-38A) and ECB, with the round computed from T-tables: 4 tables of 256
 * 32-bit words, one lookup per state byte a round. Where the tables live is
 * the whole difference between the variants:
 *
 *     aes_lut_ctr(AES_LUT_REPLICATED, key, 16, counter, d_out, d_in, n, stream);
 *
 * The key (16, 24 or 32 bytes: AES-128, -192, -256) is expanded on the host
 * at every call and passed to the kernel as a parameter, where every lane
 * reads the same word at once (the constant bank: a broadcast). The output is
 * what OpenSSL's EVP_aes_*_ctr / EVP_aes_*_ecb (no padding) give for the same
 * key, counter and input. */
#ifndef BANKFREE_AES_LUT_H
#define BANKFREE_AES_LUT_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum aes_lut_variant {
    AES_LUT_SHARED,     /* the 4 T-tables in shared memory, one copy: lanes collide on banks */
    AES_LUT_CONSTANT,   /* the 4 T-tables in constant memory: distinct addresses serialise */
    AES_LUT_REPLICATED, /* T_0 and T_1 (T_0 alone on GPUs of less shared memory: aes_lut_layout.h),
                         * 32 copies: lane j reads bank j only (after Tezcan) */
    AES_LUT_VARIANTS
};

/* CTR: out[i] = in[i] ^ keystream[i], i < n bytes, the keystream being the
 * encryptions of the 16-byte big-endian counter blocks counter, counter + 1,
 * ... (mod 2^128: the carry runs across all 128 bits). Any n (a partial last
 * block uses the first bytes of its keystream block), any alignment of in
 * and out (16-byte aligned buffers take the fast path), out == in (in place)
 * allowed; other overlaps are not. counter is host memory, read at the call.
 * Returns cudaErrorInvalidValue for a bad variant, key_bytes not 16, 24 or
 * 32, n < 0 or n >= 2^62, or a null pointer (in and out may be NULL when n is 0), else
 * the launch's error. */
cudaError_t aes_lut_ctr(enum aes_lut_variant variant, const uint8_t *key, int key_bytes,
                        const uint8_t counter[16], uint8_t *out, const uint8_t *in, int64_t n,
                        cudaStream_t stream);

/* ECB: each 16-byte block of in encrypted on its own. n must be a multiple of
 * 16 (as OpenSSL with padding off); else cudaErrorInvalidValue, as for the
 * other faults aes_lut_ctr lists. */
cudaError_t aes_lut_ecb(enum aes_lut_variant variant, const uint8_t *key, int key_bytes,
                        uint8_t *out, const uint8_t *in, int64_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
