/* The lines-kernel probes' harness: contenders timed side by side on each
 * shape, their reps interleaved, as `bankfree bench` times (L2 flushed by a
 * read where the data is under 4x L2, else cold; medians of
 * PROBE_REPS), each as a fraction of contender 0 (the copy kernel); every
 * contender from 2 on compared in full with contender 1 (the library),
 * outputs poisoned first. */
#ifndef BANKFREE_TRANSPOSE_PROBES_CONTENDERS_H
#define BANKFREE_TRANSPOSE_PROBES_CONTENDERS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transpose/probes/check.h"

enum { PROBE_REPS = 60, PROBE_MOST_CONTENDERS = 8 };

/* Launches contender k on a shape into `out`; false where it does not run there. */
typedef bool (*probe_launch_fn)(int k, void *out, const void *in, int64_t rows, int64_t cols,
                                int e);

/* Runs `count` cases (only: one case's index, or -1 for all) and prints a
 * row each: every contender's median us and fraction of the copy, and
 * whether the compared ones wrote the library's bytes. Returns 1 if all
 * did, else 0. */
static inline int probe_contenders(const struct probe_case *cases, size_t count, int only,
                                   const char *const *names, int contenders, probe_launch_fn launch)
{
    if (contenders > PROBE_MOST_CONTENDERS)
        return 0;
    const size_t most = probe_most_bytes(cases, count);
    int l2 = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    unsigned char *host = (unsigned char *)malloc(most), *mine = (unsigned char *)malloc(most);
    if (host == NULL || mine == NULL)
        exit(1);
    uint32_t x = 12345u;
    for (size_t i = 0; i < most; ++i) {
        x = x * 1664525u + 1013904223u;
        host[i] = (unsigned char)(x >> 24);
    }
    void *in, *out, *ref, *flush;
    CHECK(cudaMalloc(&in, most));
    CHECK(cudaMalloc(&out, most));
    CHECK(cudaMalloc(&ref, most));
    CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
    CHECK(cudaMemset(flush, 1, 2 * (size_t)l2));
    CHECK(cudaMemcpy(in, host, most, cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    printf("%2s %-11s %8s", "e", "shape", "l2");
    for (int k = 0; k < contenders; ++k)
        printf(" %11s us  of copy", names[k]);
    printf("  same bytes\n");
    int all_same = 1;
    for (size_t c = 0; c < count; ++c) {
        if (only >= 0 && (size_t)only != c)
            continue;
        const int e = cases[c].e;
        const int64_t rows = cases[c].rows, cols = cases[c].cols;
        const size_t bytes = (size_t)(rows * cols * e);
        const bool flushed = 2 * bytes < 4 * (size_t)l2;
        static float ms[PROBE_MOST_CONTENDERS][PROBE_REPS];
        bool ran[PROBE_MOST_CONTENDERS] = {false};
        for (int rep = -3; rep < PROBE_REPS; ++rep)
            for (int k = 0; k < contenders; ++k) {
                if (flushed)
                    flush_l2(flush, 2 * (size_t)l2, rep);
                CHECK(cudaEventRecord(start, 0));
                ran[k] = launch(k, out, in, rows, cols, e);
                CHECK(cudaEventRecord(stop, 0));
                CHECK(cudaEventSynchronize(stop));
                if (rep >= 0)
                    CHECK(cudaEventElapsedTime(&ms[k][rep], start, stop));
            }
        int same = 1;
        CHECK(cudaMemset(ref, 0xa5, bytes));
        launch(1, ref, in, rows, cols, e);
        CHECK(cudaMemcpy(host, ref, bytes, cudaMemcpyDeviceToHost));
        for (int k = 2; k < contenders; ++k) {
            CHECK(cudaMemset(out, 0x5a, bytes));
            if (!launch(k, out, in, rows, cols, e))
                continue;
            CHECK(cudaMemcpy(mine, out, bytes, cudaMemcpyDeviceToHost));
            same &= memcmp(host, mine, bytes) == 0;
        }
        all_same &= same;
        printf("%2d %5lldx%-5lld %8s", e, (long long)rows, (long long)cols,
               flushed ? "flushed" : "cold");
        for (int k = 0; k < contenders; ++k) {
            if (!ran[k]) {
                printf(" %14s  %8s", "-", "-");
                continue;
            }
            qsort(ms[k], PROBE_REPS, sizeof(float), by_value);
            printf(" %14.1f  %8.3f", ms[k][PROBE_REPS / 2] * 1e3,
                   ms[0][PROBE_REPS / 2] / ms[k][PROBE_REPS / 2]);
        }
        printf("  %s\n", same ? "yes" : "NO");
    }
    return all_same;
}

#endif
