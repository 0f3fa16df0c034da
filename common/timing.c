#include "common/timing.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

struct bf_timing_opts bf_timing_defaults(void)
{
    struct bf_timing_opts o = {3, 20, 1000, 2.0, 0.01, NULL, 0};
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

/* Times `count` launches, each between its own pair of events. */
static cudaError_t time_batch(bf_launch_fn fn, void *arg, cudaStream_t stream,
                              const struct bf_timing_opts *o, cudaEvent_t *ev, int count,
                              double *ms)
{
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < count && err == cudaSuccess; ++i) {
        if (o->flush != NULL)
            err = cudaMemsetAsync(o->flush, i & 0xff, o->flush_bytes, stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(ev[2 * i], stream);
        if (err == cudaSuccess)
            err = fn(arg, stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(ev[2 * i + 1], stream);
    }
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(stream);
    for (int i = 0; i < count && err == cudaSuccess; ++i) {
        float t;
        err = cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]);
        ms[i] = t;
    }
    return err;
}

cudaError_t bf_time(bf_launch_fn fn, void *arg, cudaStream_t stream, const struct bf_timing_opts *o,
                    struct bf_timing *out)
{
    enum { BATCH = 10 };
    cudaEvent_t ev[2 * BATCH];
    int made = 0;
    cudaError_t err = cudaSuccess;
    double *ms = malloc((size_t)(o->max_reps + BATCH) * sizeof *ms);
    double *scratch = malloc((size_t)(o->max_reps + BATCH) * sizeof *scratch);
    if (ms == NULL || scratch == NULL)
        err = cudaErrorMemoryAllocation;
    for (; made < 2 * BATCH && err == cudaSuccess; ++made)
        err = cudaEventCreate(&ev[made]);

    for (int i = 0; i < o->warmup && err == cudaSuccess; ++i)
        err = fn(arg, stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(stream);

    int n = 0;
    struct timespec start, now;
    timespec_get(&start, TIME_UTC);
    while (err == cudaSuccess && n < o->max_reps) {
        int count = o->max_reps - n < BATCH ? o->max_reps - n : BATCH;
        err = time_batch(fn, arg, stream, o, ev, count, ms + n);
        if (err != cudaSuccess)
            break;
        n += count;
        if (n < o->min_reps)
            continue;
        for (int i = 0; i < n; ++i)
            scratch[i] = ms[i];
        bf_timing_stats(scratch, n, out);
        timespec_get(&now, TIME_UTC);
        double spent =
            (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec);
        if (out->noise <= o->noise_target || spent >= o->max_seconds)
            break;
    }
    if (err == cudaSuccess)
        bf_timing_stats(ms, n, out);
    for (int i = 0; i < made; ++i)
        cudaEventDestroy(ev[i]);
    free(ms);
    free(scratch);
    return err;
}
