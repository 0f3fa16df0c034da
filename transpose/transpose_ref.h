/* CPU reference for the transpose family. */
#ifndef BANKFREE_TRANSPOSE_REF_H
#define BANKFREE_TRANSPOSE_REF_H

#include <stdint.h>

/* out (cols x rows) = in^T, in (rows x cols), both row-major, elements of
 * elem_bytes bytes (any size) moved bit for bit. */
void transpose_ref(void *out, const void *in, int elem_bytes, int64_t rows, int64_t cols);

/* transpose_ref of floats. */
void transpose_ref_f32(float *out, const float *in, int64_t rows, int64_t cols);

#endif
