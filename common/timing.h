/* Timing device work with CUDA events: warm-up, then repetitions until the
 * noise is under a bound or a cap is hit; median, min, max. An optional L2
 * flush runs between repetitions, outside the timed region. */
#ifndef BANKFREE_TIMING_H
#define BANKFREE_TIMING_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The work to time: one call launches it once on the stream. */
typedef cudaError_t (*bf_launch_fn)(void *arg, cudaStream_t stream);

struct bf_timing_opts {
    int warmup;          /* untimed launches first */
    int min_reps;        /* at least this many timed launches */
    int max_reps;        /* at most this many */
    double max_seconds;  /* and stop once this much wall time is spent */
    double noise_target; /* stop once noise <= this (0.01 = 1%) */
    void *flush;         /* if not NULL, written before every launch to evict L2 */
    size_t flush_bytes;
};

struct bf_timing {
    double median_ms, min_ms, max_ms;
    double noise; /* median absolute deviation / median */
    int reps;
};

/* Defaults: 3 warm-ups, 20..1000 reps, 2 s, 1% noise, no flush. */
struct bf_timing_opts bf_timing_defaults(void);

cudaError_t bf_time(bf_launch_fn fn, void *arg, cudaStream_t stream,
                    const struct bf_timing_opts *opts, struct bf_timing *out);

/* The statistics of n samples (pure C; sorts ms in place). */
void bf_timing_stats(double *ms, int n, struct bf_timing *out);

#ifdef __cplusplus
}
#endif

#endif
