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
                               .throttle_fraction = 0.60,
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
            err = bf_l2_flush(o->flush, o->flush_bytes, stream);
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

/* One piece of work being timed, and where its reps stand. */
struct timed_job {
    void *arg;
    double *ms, *mhz; /* the reps kept */
    int n, throttled, keep_all, done;
    double rep_s; /* a warm-up's wall time */
    double spent; /* wall time of its own batches, stats and pauses so far */
};

/* One batch of job j's reps, and whether it is now done (bf_time's rules). */
static cudaError_t job_batch(struct timed_job *j, bf_launch_fn fn, cudaStream_t stream,
                             const struct bf_timing_opts *o, cudaEvent_t *ev,
                             struct bf_clock_stamp *stamp, double *scratch, struct bf_timing *out)
{
    double batch_ms[BATCH], batch_mhz[BATCH];
    int count = o->max_reps - j->n < BATCH ? o->max_reps - j->n : BATCH;
    double left = o->max_seconds - j->spent;
    if (j->rep_s > 0 && count * j->rep_s > left) /* slow reps: no batch far past the cap */
        count = left > j->rep_s ? (int)(left / j->rep_s) : 1;
    struct timespec start;
    timespec_get(&start, TIME_UTC);
    cudaError_t err = time_batch(fn, j->arg, stream, o, ev, stamp, count, batch_ms, batch_mhz);
    if (err != cudaSuccess)
        return err;
    /* a throttled rep is dropped, and a pause follows unless done */
    int dropped = 0;
    for (int i = 0; i < count; ++i) {
        if (!j->keep_all && bf_timing_throttled(o, batch_mhz[i])) {
            ++dropped;
            continue;
        }
        j->ms[j->n] = batch_ms[i];
        j->mhz[j->n++] = batch_mhz[i];
    }
    j->throttled += dropped;
    j->spent += bf_seconds_since(&start);
    timespec_get(&start, TIME_UTC); /* its stats and pause: counted at its next check */
    if (j->n >= o->min_reps || (j->spent >= o->max_seconds && j->n > 0)) {
        for (int i = 0; i < j->n; ++i)
            scratch[i] = j->ms[i];
        bf_timing_stats(scratch, j->n, out);
        if (out->noise <= o->noise_target || j->spent >= o->max_seconds)
            j->done = 1;
    }
    if (j->spent >= 4 * o->max_seconds) { /* throttled all along */
        if (j->n > 0)
            j->done = 1;
        j->keep_all = 1; /* else the next batch as it comes: its clock shows it */
    }
    if (j->n >= o->max_reps)
        j->done = 1;
    if (dropped > 0 && !j->done) {
        double whole = floor(o->recovery_s);
        struct timespec pause = {(time_t)whole, (long)(1e9 * (o->recovery_s - whole))};
        nanosleep(&pause, NULL);
    }
    j->spent += bf_seconds_since(&start);
    return cudaSuccess;
}

cudaError_t bf_time_together(int jobs, bf_launch_fn fn, void *const *args, cudaStream_t stream,
                             const struct bf_timing_opts *o, struct bf_timing *out)
{
    cudaEvent_t ev[2 * BATCH];
    struct bf_clock_stamp *stamp = NULL; /* pinned, written by the GPU */
    int made = 0;
    cudaError_t err = cudaSuccess;
    size_t cap = (size_t)o->max_reps + BATCH;
    struct timed_job *job = calloc(jobs > 0 ? (size_t)jobs : 1, sizeof *job);
    double *scratch = malloc(cap * sizeof *scratch);
    if (job == NULL || scratch == NULL)
        err = cudaErrorMemoryAllocation;
    for (int j = 0; j < jobs && err == cudaSuccess; ++j) {
        job[j].arg = args[j];
        job[j].ms = malloc(cap * sizeof *job[j].ms);
        job[j].mhz = malloc(cap * sizeof *job[j].mhz);
        if (job[j].ms == NULL || job[j].mhz == NULL)
            err = cudaErrorMemoryAllocation;
    }
    if (err == cudaSuccess && o->max_mhz > 0)
        err = cudaHostAlloc((void **)&stamp, 2 * BATCH * sizeof *stamp, cudaHostAllocMapped);
    for (; made < 2 * BATCH && err == cudaSuccess; made += err == cudaSuccess)
        err = cudaEventCreate(&ev[made]);

    /* Warm-ups, each job's in turn, a quarter of its time cap at most; they
     * also tell how long a rep takes, so a batch of slow ones can stop at
     * the cap. */
    for (int j = 0; j < jobs && err == cudaSuccess; ++j) {
        struct timespec start;
        timespec_get(&start, TIME_UTC);
        int warmed = 0;
        while (err == cudaSuccess && warmed < o->warmup &&
               (warmed == 0 || bf_seconds_since(&start) < 0.25 * o->max_seconds)) {
            err = fn(job[j].arg, stream);
            if (err == cudaSuccess)
                err = cudaStreamSynchronize(stream);
            ++warmed;
        }
        job[j].rep_s = warmed > 0 ? bf_seconds_since(&start) / warmed : 0;
    }

    /* The reps in turns: a batch of each job not yet done, round and round
     * (each round starting one job further on, so none always follows the
     * same one), so that a clock or temperature that drifts meets them all
     * alike while they run. */
    for (int j = 0; j < jobs && err == cudaSuccess; ++j)
        job[j].done = o->max_reps <= 0;
    for (int round = 0, left = jobs; err == cudaSuccess && left > 0; ++round) {
        left = 0;
        for (int i = 0; i < jobs && err == cudaSuccess; ++i) {
            struct timed_job *j = &job[(round + i) % jobs];
            if (j->done)
                continue;
            err = job_batch(j, fn, stream, o, ev, stamp, scratch, &out[j - job]);
            left += !j->done;
        }
    }
    for (int j = 0; j < jobs && err == cudaSuccess; ++j) {
        out[j].mhz = median_clock(job[j].mhz, job[j].n, scratch);
        out[j].throttled = job[j].throttled;
        bf_timing_stats(job[j].ms, job[j].n, &out[j]);
    }
    for (int i = 0; i < made; ++i)
        cudaEventDestroy(ev[i]);
    if (stamp != NULL)
        cudaFreeHost(stamp);
    for (int j = 0; job != NULL && j < jobs; ++j) {
        free(job[j].ms);
        free(job[j].mhz);
    }
    free(job);
    free(scratch);
    return err;
}

cudaError_t bf_time(bf_launch_fn fn, void *arg, cudaStream_t stream, const struct bf_timing_opts *o,
                    struct bf_timing *out)
{
    return bf_time_together(1, fn, &arg, stream, o, out);
}
