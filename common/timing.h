/* Timing device work with CUDA events: warm-up, then repetitions until the
 * noise is under a bound or a cap is hit; median, min, max. Several pieces
 * of work can be timed side by side, their repetitions in turns. An optional L2
 * flush (bf_l2_flush) runs between repetitions, outside the timed region. As nvbench does,
 * the SM clock is read around every repetition (common/sm_clock.h), and one
 * taken while the GPU throttled (clock under a fraction of its maximum) is
 * discarded, counted, and retaken after a pause. */
#ifndef BANKFREE_TIMING_H
#define BANKFREE_TIMING_H

#include <stddef.h>
#include <time.h>

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
    void *flush;         /* if not NULL, read before every launch (bf_l2_flush) */
    size_t flush_bytes;
    int sms;                  /* the GPU's SMs, for the clock stamps */
    double max_mhz;           /* the SM clock's maximum; 0: no clock check */
    double throttle_fraction; /* a rep under this fraction of max_mhz is discarded */
    double recovery_s;        /* and the next one waits this long */
};

struct bf_timing {
    double median_ms, min_ms, max_ms;
    double noise; /* median absolute deviation / median */
    int reps;
    int throttled; /* reps discarded for a throttled clock (not in reps) */
    double mhz;    /* median SM clock over the kept reps; 0: not read */
};

/* Reads bytes of buf (device memory of at least twice L2's size, written
 * once with equal bytes) so that L2 holds only its lines, all clean: the
 * launch after it starts with nothing of its own cached and nothing to
 * write back. */
cudaError_t bf_l2_flush(const void *buf, size_t bytes, cudaStream_t stream);

/* Defaults: 3 warm-ups, 20..1000 reps, 2 s, 1% noise, no flush; no clock
 * check until sms and max_mhz are set, then reps under 60% of max_mhz are
 * retaken after 50 ms. nvbench drops reps under 75%; here that cut through
 * the steady clock of a long GEMM (72-78% of max on the H100 and H200 at
 * 8192^3), keeping 1 rep of 313 or 428 for three rows of one run. */
struct bf_timing_opts bf_timing_defaults(void);

cudaError_t bf_time(bf_launch_fn fn, void *arg, cudaStream_t stream,
                    const struct bf_timing_opts *opts, struct bf_timing *out);

/* Times `jobs` pieces of work side by side: fn(args[j]) is job j. Each is
 * warmed up in turn; then their reps are taken in turns, a batch of up to 10
 * of each job not yet done, round and round, so that an SM clock, a
 * temperature or a power cap that drifts during the run (a long GEMM's does)
 * meets every job alike while they run. Each job stops on bf_time's rules
 * (noise, reps, its own time), so one that is done early is not timed in the
 * later rounds; out[j] is job j's. Jobs that want L2 warm should read the
 * same data: a batch's first rep follows another job's. bf_time is this with
 * one job. */
cudaError_t bf_time_together(int jobs, bf_launch_fn fn, void *const *args, cudaStream_t stream,
                             const struct bf_timing_opts *opts, struct bf_timing *out);

/* The statistics of n samples (pure C; sorts ms in place; leaves throttled
 * and mhz as they were). */
void bf_timing_stats(double *ms, int n, struct bf_timing *out);

/* Wall-clock seconds since `start` (timespec_get, TIME_UTC). */
double bf_seconds_since(const struct timespec *start);

/* Whether a rep at `mhz` counts as throttled (mhz 0: not read, never). */
int bf_timing_throttled(const struct bf_timing_opts *opts, double mhz);

#ifdef __cplusplus
}
#endif

#endif
