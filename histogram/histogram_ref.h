/* The CPU reference: counts in uint32_t, wrapping modulo 2^32 as the kernels'
 * counters do. Call it on consecutive chunks of an input to count the whole. */
#ifndef BANKFREE_HISTOGRAM_REF_H
#define BANKFREE_HISTOGRAM_REF_H

#include <stddef.h>
#include <stdint.h>

/* hist[256] += the bytes' counts. */
void histogram_ref_add_u8(uint32_t *hist, const uint8_t *in, size_t n);

/* hist[4096] += the counts of n 16-bit samples >> 4, read little-endian from
 * bytes (2n of them; any alignment). */
void histogram_ref_add_u16(uint32_t *hist, const uint8_t *bytes, size_t n);

#endif
