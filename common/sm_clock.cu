#include "common/sm_clock.h"

static __global__ void bf_clock_stamp_kernel(struct bf_clock_stamp *stamp)
{
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    if (sm != 0)
        return;
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    stamp->cycles = clock64();
    stamp->ns = ns;
}

extern "C" cudaError_t bf_clock_stamp(struct bf_clock_stamp *stamp, int sms, cudaStream_t stream)
{
    const unsigned blocks = sms > 0 ? (unsigned)sms : 1u;
    bf_clock_stamp_kernel<<<blocks, 1, 0, stream>>>(stamp);
    return cudaGetLastError();
}

extern "C" double bf_clock_mhz(const struct bf_clock_stamp *start,
                               const struct bf_clock_stamp *stop, double min_ns)
{
    if (start->ns == 0 || stop->ns <= start->ns || (double)(stop->ns - start->ns) < min_ns ||
        stop->cycles <= start->cycles)
        return 0;
    return 1e3 * (double)(stop->cycles - start->cycles) / (double)(stop->ns - start->ns);
}
