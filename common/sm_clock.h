/* The SM clock over a stretch of GPU work, read as NVIDIA's nvbench reads it
 * (its gpu_frequency): a kernel of one thread a block, one block for each SM,
 * whose block on SM 0 writes SM 0's cycle counter (clock64) and the global
 * nanosecond timer; two stamps in a stream bracket the work, and cycles /
 * nanoseconds between them is SM 0's mean clock. */
#ifndef BANKFREE_SM_CLOCK_H
#define BANKFREE_SM_CLOCK_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bf_clock_stamp {
    unsigned long long ns;     /* %globaltimer */
    unsigned long long cycles; /* clock64() on SM 0 */
};

/* Writes *stamp when the launch runs (stamp: memory the GPU can write, e.g.
 * mapped pinned host memory; left as it was if no block ran on SM 0). */
cudaError_t bf_clock_stamp(struct bf_clock_stamp *stamp, int sms, cudaStream_t stream);

/* SM 0's mean clock in MHz between two stamps; 0 when it cannot be told (a
 * stamp not written, or less than min_ns between them: the timer's steps are
 * coarse next to a few microseconds). */
double bf_clock_mhz(const struct bf_clock_stamp *start, const struct bf_clock_stamp *stop,
                    double min_ns);

#ifdef __cplusplus
}
#endif

#endif
