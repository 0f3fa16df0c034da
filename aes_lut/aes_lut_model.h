/* The AES kernels' table reads, replayed through the bank model with the
 * kernels' own index functions (aes_lut_layout.h) on the very key, counter
 * and plaintext they encrypt (aes_lut_data.h). */
#ifndef BANKFREE_AES_LUT_MODEL_H
#define BANKFREE_AES_LUT_MODEL_H

#include "aes_lut/aes_lut_data.h"
#include "aes_lut/aes_lut_layout.h"
#include "common/bank_model.h"
#include "common/size.h"

/* CTR's lookups never repeat (they follow the counter, not the plaintext),
 * and a replay costs about 20 us a group of 32 blocks. So CTR messages of up
 * to AES_LUT_MODEL_EXACT groups (4 MiB) are replayed whole, exactly; longer
 * ones on AES_LUT_MODEL_SAMPLE groups spread evenly over the message, the
 * wavefronts scaled (the sites' names say "sampled"; requests stay exact).
 * ECB is exact at any size: its plaintext repeats. */
#define AES_LUT_MODEL_EXACT  (1 << 13)
#define AES_LUT_MODEL_SAMPLE (1 << 10)

/* One warp's request of a table read in `layout`: lane l reads T_table[x[l]]
 * (the S-box word if `sbox`) if bit l of active is set. Adds it to `site`
 * (4-byte loads). */
void aes_lut_model_request(const struct bf_bank_rules *rules, enum aes_lut_layout layout, int table,
                           int sbox, const uint32_t x[32], uint32_t active, struct bf_site *site);

/* The sites of one launch over n bytes of case c: the set-up (st.128, every
 * block), the lookups of round 1, of the middle rounds and of the last round
 * (ld). The constant variant has no set-up, and its lookups are ldc sites:
 * each warp-wide read costs its distinct addresses (the constant cache
 * serves them one after another), ideally 1. A launch that does not happen
 * (n = 0, or ECB of a partial block) has the sites with no request. Returns
 * the number of sites. `variant` in the layout the launcher takes on the GPU
 * the rules replay (aes_lut_layout_of, by rules->cc's limits: replicated's
 * T0T1 on sm_90, T0 on sm_89); the _layout form in the layout given. */
int aes_lut_model_launch(enum aes_lut_variant variant, const struct aes_lut_case *c, int64_t n,
                         const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES]);
int aes_lut_model_launch_layout(enum aes_lut_layout layout, const struct aes_lut_case *c, int64_t n,
                                const struct bf_bank_rules *rules,
                                struct bf_site sites[BF_MAX_SITES]);

#endif
