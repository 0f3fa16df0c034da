#include "common/timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/sm_clock.h"

struct bf_timing_opts bf_timing_defaults(void)
{
    struct bf_timing_opts o = {.warmup = 3,
                               .min_reps = 20,
                               .max_reps = 1000,
                               .max_seconds = 2.0,
                               .noise_target = 0.01,
                               .throttle_fraction = 0.75,
                               .recovery_s = 0.05};
    return o;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bf_timing_stats(double *ms, int n, struct bf_timing *out)
{
    out->reps = n;
    if (n <= 0) {
        out->median_ms = out->min_ms = out->max_ms = out->noise = 0;
        return;
    }
    qsort(ms, (size_t)n, sizeof *ms, by_value);
    out->min_ms = ms[0];
    out->max_ms = ms[n - 1];
    out->median_ms = median_sorted(ms, n);
    double *dev = malloc((size_t)n * sizeof *dev);
    if (dev == NULL) {
        out->noise = NAN;
        return;
    }
    for (int i = 0; i < n; ++i)
        dev[i] = fabs(ms[i] - out->median_ms);
    qsort(dev, (size_t)n, sizeof *dev, by_value);
    out->noise = out->median_ms > 0 ? median_sorted(dev, n) / out->median_ms : 0;
    free(dev);
}

/* A rep's clock is read from a stamp before its L2 flush to a stamp after
 * it: the flush makes the stretch long next to the timer's steps. Shorter
 * stretches are not judged. */
enum { BATCH = 10, MIN_CLOCK_NS = 10000 };

int bf_timing_throttled(const struct bf_timing_opts *o, double mhz)
{
    return mhz > 0 && o->max_mhz > 0 && mhz < o->throttle_fraction * o->max_mhz;
}

/* Times `count` launches, each between its own pair of events, with the SM
 * clock around each (mhz[i], 0 if not read). */
static cudaError_t time_batch(bf_launch_fn fn, void *arg, cudaStream_t stream,
                              const struct bf_timing_opts *o, cudaEvent_t *ev,
                              struct bf_clock_stamp *stamp, int count, double *ms, double *mhz)
{
    cudaError_t err = cudaSuccess;
    int clock = o->max_mhz > 0;
    if (clock)
        memset(stamp, 0, 2 * (size_t)count * sizeof *stamp);
    for (int i = 0; i < count && err == cudaSuccess; ++i) {
        if (clock)
            err = bf_clock_stamp(&stamp[2 * i], o->sms, stream);
        if (err == cudaSuccess && o->flush != NULL)
            err = cudaMemsetAsync(o->flush, i & 0xff, o->flush_bytes, stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(ev[2 * i], stream);
        if (err == cudaSuccess)
            err = fn(arg, stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(ev[2 * i + 1], stream);
        if (err == cudaSuccess && clock)
            err = bf_clock_stamp(&stamp[2 * i + 1], o->sms, stream);
    }
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(stream);
    for (int i = 0; i < count && err == cudaSuccess; ++i) {
        float t;
        err = cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]);
        ms[i] = t;
        mhz[i] = clock ? bf_clock_mhz(&stamp[2 * i], &stamp[2 * i + 1], MIN_CLOCK_NS) : 0;
    }
    return err;
}

double bf_seconds_since(const struct timespec *start)
{
    struct timespec now;
    timespec_get(&now, TIME_UTC);
    return (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}

/* The median of the clocks read (0: none). */
static double median_clock(const double *mhz, int n, double *scratch)
{
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (mhz[i] > 0)
            scratch[k++] = mhz[i];
    if (k == 0)
        return 0;
    qsort(scratch, (size_t)k, sizeof *scratch, by_value);
    return median_sorted(scratch, k);
}

cudaError_t bf_time(bf_launch_fn fn, void *arg, cudaStream_t stream, const struct bf_timing_opts *o,
                    struct bf_timing *out)
{
    cudaEvent_t ev[2 * BATCH];
    struct bf_clock_stamp *stamp = NULL; /* pinned, written by the GPU */
    int made = 0;
    cudaError_t err = cudaSuccess;
    size_t cap = (size_t)o->max_reps + BATCH;
    double *ms = malloc(cap * sizeof *ms), *mhz = malloc(cap * sizeof *mhz);
    double *scratch = malloc(cap * sizeof *scratch);
    double batch_ms[BATCH], batch_mhz[BATCH];
    if (ms == NULL || mhz == NULL || scratch == NULL)
        err = cudaErrorMemoryAllocation;
    if (err == cudaSuccess && o->max_mhz > 0)
        err = cudaHostAlloc((void **)&stamp, 2 * BATCH * sizeof *stamp, cudaHostAllocMapped);
    for (; made < 2 * BATCH && err == cudaSuccess; made += err == cudaSuccess)
        err = cudaEventCreate(&ev[made]);

    /* Warm-ups, a quarter of the time cap at most; they also tell how long a
     * rep takes, so a batch of slow ones can stop at the cap. */
    struct timespec start;
    timespec_get(&start, TIME_UTC);
    int warmed = 0;
    while (err == cudaSuccess && warmed < o->warmup &&
           (warmed == 0 || bf_seconds_since(&start) < 0.25 * o->max_seconds)) {
        err = fn(arg, stream);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(stream);
        ++warmed;
    }
    double rep_s = warmed > 0 ? bf_seconds_since(&start) / warmed : 0;

    /* n reps kept; a throttled one is dropped and the next batch waits. */
    int n = 0, throttled = 0, keep_all = 0;
    timespec_get(&start, TIME_UTC);
    while (err == cudaSuccess && n < o->max_reps) {
        int count = o->max_reps - n < BATCH ? o->max_reps - n : BATCH;
        double left = o->max_seconds - bf_seconds_since(&start);
        if (rep_s > 0 && count * rep_s > left) /* slow reps: no batch far past the cap */
            count = left > rep_s ? (int)(left / rep_s) : 1;
        err = time_batch(fn, arg, stream, o, ev, stamp, count, batch_ms, batch_mhz);
        if (err != cudaSuccess)
            break;
        int dropped = 0;
        for (int i = 0; i < count; ++i) {
            if (!keep_all && bf_timing_throttled(o, batch_mhz[i])) {
                ++dropped;
                continue;
            }
            ms[n] = batch_ms[i];
            mhz[n++] = batch_mhz[i];
        }
        throttled += dropped;
        double spent = bf_seconds_since(&start);
        if (n >= o->min_reps || (spent >= o->max_seconds && n > 0)) {
            for (int i = 0; i < n; ++i)
                scratch[i] = ms[i];
            bf_timing_stats(scratch, n, out);
            if (out->noise <= o->noise_target || spent >= o->max_seconds)
                break;
        }
        if (spent >= 4 * o->max_seconds) { /* throttled all along */
            if (n > 0)
                break;
            keep_all = 1; /* the next batch as it comes: its clock shows it */
        }
        if (dropped > 0) {
            double whole = floor(o->recovery_s);
            struct timespec pause = {(time_t)whole, (long)(1e9 * (o->recovery_s - whole))};
            nanosleep(&pause, NULL);
        }
    }
    if (err == cudaSuccess) {
        out->mhz = median_clock(mhz, n, scratch);
        out->throttled = throttled;
        bf_timing_stats(ms, n, out);
    }
    for (int i = 0; i < made; ++i)
        cudaEventDestroy(ev[i]);
    if (stamp != NULL)
        cudaFreeHost(stamp);
    free(ms);
    free(mhz);
    free(scratch);
    return err;
}
