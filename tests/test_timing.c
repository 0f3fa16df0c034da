/* bf_time_together's schedule, on the CPU: common/timing.c built against
 * stand-ins for the CUDA calls it makes (events that report the duration a
 * job says its launch took, a clock stamp that reports the SM clock it says
 * it ran at), so that CI checks what a GPU run shows only in its figures:
 * the jobs' batches alternate, each job stops on its own rule, throttled reps
 * are dropped and counted, and every event and pinned buffer is given back,
 * also when an event cannot be made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sm_clock.h"
#include "common/timing.h"

static int failures;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

/* ---- stand-ins: an event holds the duration of the launch it follows ---- */

enum { MAX_EVENTS = 64, MAX_LAUNCHES = 4096 };
static float event_ms[MAX_EVENTS];
static int events_made, events_live, events_bad, fail_event_at = -1, pinned_live;
static float last_ms;   /* the duration the last launch reports */
static double last_mhz; /* and its SM clock */
static int launch_log[MAX_LAUNCHES], launches;

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    if (events_made == fail_event_at || events_made == MAX_EVENTS)
        return cudaErrorMemoryAllocation;
    *event = (cudaEvent_t)&event_ms[events_made++];
    ++events_live;
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    float *e = (float *)event;
    if (e < event_ms || e >= event_ms + events_made) {
        ++events_bad;
        return cudaErrorInvalidResourceHandle;
    }
    --events_live;
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    (void)stream;
    *(float *)event = last_ms;
    return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    (void)start;
    *ms = *(float *)end; /* the launch recorded between them */
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream;
    return cudaSuccess;
}
cudaError_t bf_l2_flush(const void *buf, size_t bytes, cudaStream_t stream)
{
    (void)buf, (void)bytes, (void)stream;
    return cudaSuccess;
}
cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned int flags)
{
    (void)flags;
    *p = malloc(bytes);
    pinned_live += *p != NULL;
    return *p != NULL ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFreeHost(void *p)
{
    pinned_live -= p != NULL;
    free(p);
    return cudaSuccess;
}
/* A stamp after a launch holds its clock; one before it, 0 cycles. */
cudaError_t bf_clock_stamp(struct bf_clock_stamp *stamp, int sms, cudaStream_t stream)
{
    (void)sms, (void)stream;
    stamp->ns = 1;
    stamp->cycles = (unsigned long long)last_mhz;
    last_mhz = 0;
    return cudaSuccess;
}
double bf_clock_mhz(const struct bf_clock_stamp *start, const struct bf_clock_stamp *stop,
                    double min_ns)
{
    (void)start, (void)min_ns;
    return (double)stop->cycles;
}

/* ---- the jobs ---- */

struct job {
    int id;
    float ms[2];        /* its launches take ms[0], ms[1], ms[0], ... */
    int throttle_every; /* every n-th launch at 500 MHz (0: never) */
    int launches;
};

static cudaError_t run(void *arg, cudaStream_t stream)
{
    (void)stream;
    struct job *j = arg;
    last_ms = j->ms[j->launches % 2];
    last_mhz = j->throttle_every && j->launches % j->throttle_every == 0 ? 500 : 1900;
    ++j->launches;
    if (launches < MAX_LAUNCHES)
        launch_log[launches++] = j->id;
    return cudaSuccess;
}

static struct bf_timing_opts options(void)
{
    struct bf_timing_opts o = bf_timing_defaults();
    o.max_reps = 60;
    o.sms = 132;
    o.max_mhz = 1980;
    o.recovery_s = 0; /* no pause after a throttled rep: the test runs at once */
    return o;
}

static void reset(void)
{
    events_made = events_live = events_bad = pinned_live = launches = 0;
    fail_event_at = -1;
}

/* Two steady jobs: 3 warm-ups each, then batches of 10 in turns, each round
 * starting one job further on (so job 1 ends round 0 and starts round 1:
 * runs of the log), until each has 20 reps (noise 0). */
static void test_turns(void)
{
    reset();
    struct job a = {0, {1.0f, 1.0f}, 0, 0}, b = {1, {2.0f, 2.0f}, 0, 0};
    void *args[2] = {&a, &b};
    struct bf_timing t[2];
    const struct bf_timing_opts o = options();
    EXPECT(bf_time_together(2, run, args, 0, &o, t) == cudaSuccess, "two jobs run");
    const char *want = "0x3 1x3 0x10 1x20 0x10";
    char got[256] = "";
    for (int i = 0, len = 0; i < launches && len < 200;) {
        int k = i;
        while (k < launches && launch_log[k] == launch_log[i])
            ++k;
        len += snprintf(got + len, sizeof got - (size_t)len, "%s%dx%d", len ? " " : "",
                        launch_log[i], k - i);
        i = k;
    }
    EXPECT(strcmp(got, want) == 0, "launch order: %s (want %s)", got, want);
    EXPECT(t[0].reps == 20 && t[1].reps == 20, "reps %d and %d (want 20 each)", t[0].reps,
           t[1].reps);
    EXPECT(t[0].median_ms == 1.0 && t[1].median_ms == 2.0, "medians %g and %g", t[0].median_ms,
           t[1].median_ms);
    EXPECT(t[0].mhz == 1900 && t[1].mhz == 1900 && t[0].throttled == 0, "clocks %g %g", t[0].mhz,
           t[1].mhz);
    EXPECT(events_live == 0 && events_bad == 0 && pinned_live == 0,
           "given back: %d events live, %d bad, %d pinned", events_live, events_bad, pinned_live);
}

/* A noisy job runs on to max_reps, alone once the steady one is done; a job
 * throttled every 4th launch drops those reps and counts them. */
static void test_own_rules(void)
{
    reset();
    struct job steady = {0, {1.0f, 1.0f}, 0, 0}, noisy = {1, {1.0f, 3.0f}, 0, 0},
               hot = {2, {1.5f, 1.5f}, 4, 0};
    void *args[3] = {&steady, &noisy, &hot};
    struct bf_timing t[3];
    const struct bf_timing_opts o = options();
    EXPECT(bf_time_together(3, run, args, 0, &o, t) == cudaSuccess, "three jobs run");
    EXPECT(t[0].reps == 20 && t[0].noise == 0, "steady: %d reps (want 20)", t[0].reps);
    EXPECT(t[1].reps == 60 && t[1].noise > 0.4, "noisy: %d reps, noise %g (want 60, > 0.4)",
           t[1].reps, t[1].noise);
    EXPECT(t[2].reps >= 20 && t[2].throttled > 0 && t[2].median_ms == 1.5 && t[2].mhz == 1900,
           "throttled: %d reps, %d dropped, median %g, %g MHz", t[2].reps, t[2].throttled,
           t[2].median_ms, t[2].mhz);
    /* hot's launches: 3 warm-ups, then 0, 4, 8, ... of its timed ones at 500 MHz */
    EXPECT(hot.launches == 3 + t[2].reps + t[2].throttled, "hot: %d launches for %d + %d reps",
           hot.launches, t[2].reps, t[2].throttled);
    int last_steady = -1, noisy_after = 0;
    for (int i = 0; i < launches; ++i)
        last_steady = launch_log[i] == 0 ? i : last_steady;
    for (int i = last_steady + 1; i < launches; ++i)
        noisy_after += launch_log[i] == 1;
    EXPECT(noisy_after > 0, "the noisy job runs on after the steady one is done");
    EXPECT(events_live == 0 && pinned_live == 0, "given back: %d events, %d pinned", events_live,
           pinned_live);
}

/* One job: bf_time, the same rules. No reps asked: warm-ups only. An event
 * that cannot be made: the error, and only the made ones destroyed. */
static void test_edges(void)
{
    reset();
    struct job a = {0, {0.5f, 0.5f}, 0, 0};
    struct bf_timing t;
    struct bf_timing_opts o = options();
    EXPECT(bf_time(run, &a, 0, &o, &t) == cudaSuccess && t.reps == 20 && t.median_ms == 0.5,
           "bf_time: %d reps, median %g", t.reps, t.median_ms);
    reset();
    o.max_reps = 0;
    a.launches = 0;
    EXPECT(bf_time(run, &a, 0, &o, &t) == cudaSuccess && t.reps == 0 && a.launches == 3,
           "max_reps 0: %d reps, %d launches (the warm-ups)", t.reps, a.launches);
    reset();
    fail_event_at = 5;
    o = options();
    EXPECT(bf_time(run, &a, 0, &o, &t) == cudaErrorMemoryAllocation, "an event not made: error");
    EXPECT(events_live == 0 && events_bad == 0 && pinned_live == 0,
           "an event not made: %d events live, %d bad destroys, %d pinned", events_live, events_bad,
           pinned_live);
}

int main(void)
{
    test_turns();
    test_own_rules();
    test_edges();
    printf("timing: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
