/* XOR swizzle, Swizzle<B, M, S> of CuTe (NVIDIA CUTLASS,
 * include/cute/swizzle.hpp): the B bits of an offset that start at bit M + S
 * are XORed into the B bits that start at bit M. With rows of 2^S units of 2^M
 * elements, unit u of row y moves to unit u ^ (y % 2^B): every row and every
 * column of a 2^B x 2^B block of units is a permutation. */
#ifndef BANKFREE_SWIZZLE_H
#define BANKFREE_SWIZZLE_H

#include <stdint.h>

#include "common/hostdev.h"

static BF_HD uint32_t bf_swizzle(int bits, int base, int shift, uint32_t offset)
{
    uint32_t row_bits = ((1u << bits) - 1u) << (base + shift);
    return offset ^ ((offset & row_bits) >> shift);
}

#endif
