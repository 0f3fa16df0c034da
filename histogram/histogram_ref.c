#include "histogram/histogram_ref.h"

#include <string.h>

/* Four partial histograms, so that runs of one value do not wait on each
 * other's increments; then summed (uint32_t: modulo 2^32 throughout). */
void histogram_ref_add_u8(uint32_t *hist, const uint8_t *in, size_t n)
{
    uint32_t part[4][256];
    memset(part, 0, sizeof part);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        ++part[0][in[i]];
        ++part[1][in[i + 1]];
        ++part[2][in[i + 2]];
        ++part[3][in[i + 3]];
    }
    for (; i < n; ++i)
        ++part[0][in[i]];
    for (int b = 0; b < 256; ++b)
        hist[b] += part[0][b] + part[1][b] + part[2][b] + part[3][b];
}

void histogram_ref_add_u16(uint32_t *hist, const uint8_t *bytes, size_t n)
{
    static uint32_t part[2][4096];
    memset(part, 0, sizeof part);
    for (size_t i = 0; i < n; ++i)
        ++part[i & 1][(bytes[2 * i] | (uint32_t)bytes[2 * i + 1] << 8) >> 4];
    for (int b = 0; b < 4096; ++b)
        hist[b] += part[0][b] + part[1][b];
}
