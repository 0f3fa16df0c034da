#include "gemm_tile/gemm_tile_ref.h"

#include <math.h>
#include <stdlib.h>

#include "common/data.h"

double gemm_tile_ref_half_value(uint16_t bits)
{
    const int sign = bits >> 15, exponent = bits >> 10 & 0x1f, mantissa = bits & 0x3ff;
    double v;
    if (exponent == 0x1f)
        v = mantissa ? NAN : INFINITY;
    else if (exponent == 0) /* subnormal: mantissa x 2^-24 */
        v = ldexp((double)mantissa, -24);
    else
        v = ldexp((double)(mantissa | 0x400), exponent - 25);
    return sign ? -v : v;
}

uint16_t gemm_tile_ref_half_bits(double x)
{
    const uint16_t sign = signbit(x) ? 0x8000u : 0u;
    if (isnan(x))
        return 0x7e00u;
    double a = fabs(x);
    if (a >= 65520.0) /* half of the last step past 65504 rounds up to infinity */
        return sign | 0x7c00u;
    int e;
    frexp(a, &e); /* a = f x 2^e, f in [0.5, 1) */
    /* The step between binary16 values near a: 2^(e - 11) for normals, 2^-24
     * below 2^-14. nearbyint rounds to even in the default rounding mode. */
    const int step_exp = e - 11 < -24 ? -24 : e - 11;
    const double q = nearbyint(ldexp(a, -step_exp)); /* a in steps, rounded */
    const double r = ldexp(q, step_exp);
    if (r == 0)
        return sign;
    int re;
    frexp(r, &re);
    if (re - 1 < -14) /* subnormal: r / 2^-24 */
        return sign | (uint16_t)ldexp(r, 24);
    const uint16_t exponent = (uint16_t)(re - 1 + 15);
    const uint16_t mantissa = (uint16_t)(ldexp(r, 11 - re) - 1024.0);
    return sign | (uint16_t)(exponent << 10) | mantissa;
}

void gemm_tile_ref(double *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n, int64_t k)
{
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (int64_t p = 0; p < k; ++p)
                sum +=
                    gemm_tile_ref_half_value(a[i * k + p]) * gemm_tile_ref_half_value(b[j * k + p]);
            c[i * n + j] = sum;
        }
}

static double rel_l2(const float *got32, const uint16_t *got16, const double *want, size_t n)
{
    double err = 0, norm = 0;
    for (size_t i = 0; i < n; ++i) {
        const double g = got32 ? (double)got32[i] : gemm_tile_ref_half_value(got16[i]);
        if (isnan(g))
            return NAN;
        err += (g - want[i]) * (g - want[i]);
        norm += want[i] * want[i];
    }
    return norm > 0 ? sqrt(err / norm) : sqrt(err);
}

double gemm_tile_ref_rel_l2_f32(const float *got, const double *want, size_t n)
{
    return rel_l2(got, NULL, want, n);
}

double gemm_tile_ref_rel_l2_f16(const uint16_t *got, const double *want, size_t n)
{
    return rel_l2(NULL, got, want, n);
}

uint16_t gemm_tile_ref_random_half(uint64_t seed, uint64_t i)
{
    /* 2048 possible values: their patterns once (the bench draws 10^8). */
    static uint16_t bits[2048];
    if (bits[0] == 0)
        for (int j = 0; j < 2048; ++j)
            bits[j] = gemm_tile_ref_half_bits((2.0 * (j - 1024) + 1.0) / 2048.0);
    return bits[bf_random_bits(seed, i) >> 53]; /* 11 bits: j + 1024 */
}
