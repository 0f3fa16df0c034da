/* The reduction kernels' shared-memory accesses, replayed through the bank
 * model with the kernels' own index functions (reduction_layout.h). */
#ifndef BANKFREE_REDUCTION_MODEL_H
#define BANKFREE_REDUCTION_MODEL_H

#include "common/bank_model.h"
#include "common/size.h"
#include "reduction/reduction_layout.h"

/* The sites of one block, whichever pass it is in (every block makes the
 * same shared accesses). The tree kernels: the fill, then per level its
 * loads (two, or one 8-byte load of an aligned pair) and its store (sites
 * 1 + 2 * level and 2 + 2 * level), then the read of the result. The tuned kernel: the warp sums
 * stored, then loaded. */
int reduction_model_block(enum reduction_variant variant, const struct bf_bank_rules *rules,
                          struct bf_site sites[BF_MAX_SITES]);

/* The family's model hook: the sites of one sum of n = size->dim[0] elements,
 * every pass (fp32 and int32 alike: both 4-byte words; the addresses do not
 * depend on the data, so `seed` is unused). */
int reduction_model(int variant, int type, const struct bf_size *size, uint64_t seed,
                    const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES]);

#endif
