/* The transpose kernels' shared-memory accesses, replayed through the bank
 * model with the kernels' own index functions (transpose_layout.h,
 * transpose_packed_layout.h). */
#ifndef BANKFREE_TRANSPOSE_MODEL_H
#define BANKFREE_TRANSPOSE_MODEL_H

#include <stdint.h>

#include "common/bank_model.h"
#include "common/size.h"
#include "transpose/transpose_layout.h"
#include "transpose/transpose_packed_layout.h"

/* The two sites of a launch, empty: the tile written in the load phase (a
 * cell's store; cp.async copies where packed takes the cells or the
 * lines kernel, transpose_cells_shape, transpose_lines_shape, on a GPU
 * of compute capability cc of 80 or more) and read in the store phase. */
int transpose_model_sites(enum transpose_variant variant, int elem_bytes, int64_t rows,
                          int64_t cols, int cc, struct bf_site sites[2]);

/* Adds the requests of one tile's block to its two sites: `write` (the tile
 * filled in the load phase, by every lane of the steps that exist) and
 * `read` (the tile read in the store phase, by the lanes whose cell is
 * inside the matrix), for a launch whose `out` lies out_phase elements past
 * a 32-byte sector. Where packed takes the cells or the lines
 * kernel the tile is that kernel's (tile_row, tile_col of its grid),
 * `write` its copies and `read` its 16-byte reads. */
void transpose_model_tile(enum transpose_variant variant, int elem_bytes, int64_t rows,
                          int64_t cols, int out_phase, int64_t tile_row, int64_t tile_col,
                          const struct bf_bank_rules *rules, struct bf_site *write,
                          struct bf_site *read);

/* The family's model hook: the sites of one launch of `variant` on a rows x
 * cols matrix of elem_bytes elements (none for the naive kernel, which has
 * no shared memory, and none for a launch transpose_refusal_elem refuses). */
int transpose_model(int variant, int elem_bytes, const struct bf_size *size,
                    const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES]);

#endif
