/* The CPU reference: AES as FIPS-197 writes it, byte by byte (SubBytes,
 * ShiftRows, MixColumns with xtime, AddRoundKey), no T-tables, so that it
 * shares nothing with the kernels but the standard; CTR and ECB as NIST SP
 * 800-38A. Slow (tens of MB/s) and plain. */
#ifndef BANKFREE_AES_LUT_REF_H
#define BANKFREE_AES_LUT_REF_H

#include <stddef.h>
#include <stdint.h>

/* The S-box of FIPS-197 section 5.1.1. */
extern const uint8_t aes_lut_ref_sbox[256];

/* An expanded key: 4 (Nr + 1) words of 4 bytes, w[i] as FIPS-197's w[i]. */
struct aes_lut_ref_key {
    uint8_t w[60][4];
    int rounds; /* Nr: 10, 12, 14 */
};

/* FIPS-197 section 5.2 (KeyExpansion). key_bytes 16, 24 or 32; returns 0,
 * or -1 for another length. */
int aes_lut_ref_expand(struct aes_lut_ref_key *k, const uint8_t *key, int key_bytes);

/* Cipher (FIPS-197 section 5.1): one block. out may be in. */
void aes_lut_ref_block(const struct aes_lut_ref_key *k, const uint8_t in[16], uint8_t out[16]);

/* The states the T-table kernels look up: state[r] is the state entering
 * round r + 1's SubBytes (after round r's AddRoundKey), r < Nr, as 16 bytes
 * in FIPS-197's order (byte 4c + i is row i of column c). */
void aes_lut_ref_states(const struct aes_lut_ref_key *k, const uint8_t in[16],
                        uint8_t state[14][16]);

/* counter += blocks, as a 128-bit big-endian number (mod 2^128). */
void aes_lut_ref_ctr_add(uint8_t counter[16], uint64_t blocks);

/* CTR (SP 800-38A section 6.5): out[i] = in[i] ^ keystream[i], i < n, from
 * the counter block `counter`; a partial last block takes the first bytes of
 * its keystream block. out may be in. */
void aes_lut_ref_ctr(const struct aes_lut_ref_key *k, const uint8_t counter[16], uint8_t *out,
                     const uint8_t *in, size_t n);

/* ECB (SP 800-38A section 6.1): n / 16 whole blocks (a partial block left
 * untouched). out may be in. */
void aes_lut_ref_ecb(const struct aes_lut_ref_key *k, uint8_t *out, const uint8_t *in, size_t n);

#endif
