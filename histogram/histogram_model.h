/* The histogram kernels' shared-memory accesses, replayed through the bank
 * model with the kernels' own index functions (histogram_layout.h) on the
 * input they count (histogram_data.h). */
#ifndef BANKFREE_HISTOGRAM_MODEL_H
#define BANKFREE_HISTOGRAM_MODEL_H

#include "common/bank_model.h"
#include "common/size.h"
#include "histogram/histogram_data.h"
#include "histogram/histogram_layout.h"

/* One warp's request of the counting site of a layout of `copies` copies
 * (histogram_copies: 1 is the shared variant's): lane l counts bin[l] if bit
 * l of active is set. Adds it to `site` (a red site of 4-byte words). */
void histogram_model_count(const struct bf_bank_rules *rules, int copies, const uint32_t bin[32],
                           uint32_t active, struct bf_site *site);

/* The sites of one launch over n samples of `input` from `seed`, starting at
 * byte address `start` (its alignment decides the head, vectors and tail):
 * the clear (st.128, every block), the counting (red), the merge (ld, every
 * block). The global variant has none. */
int histogram_model_launch(enum histogram_variant variant, int bins, enum histogram_input input,
                           uint64_t seed, int64_t n, uint64_t start,
                           const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES]);

#endif
