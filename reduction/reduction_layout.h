/* Where the reduction kernels read and write shared memory, and how a sum is
 * split into passes. The kernels in reduction.cu call these functions for
 * every shared access; the bank model calls the very same functions for every
 * lane of every warp, so the model cannot drift from the code.
 *
 * The two tree kernels (Harris's kernels 2 and 3) give each of 1024 threads
 * one element in sdata[tid], then halve the number of partial sums ten times.
 * They differ only in which words a thread adds at each level:
 *
 *   interleaved  stride s = 1, 2, ... 512; thread tid adds sdata[2*s*tid + s]
 *                into sdata[2*s*tid]. A warp's 32 addresses are 2*s words
 *                apart: the conflict doubles with s, 2-way to 32-way, until
 *                fewer than 32 lanes are left to collide (16, 8, ... 1).
 *   sequential   stride s = 512, 256, ... 1; thread tid adds sdata[tid + s]
 *                into sdata[tid]. Consecutive lanes, consecutive words: one
 *                wavefront, every level.
 *
 * The tuned kernel keeps its partial sums in registers and shuffles; shared
 * memory only carries one word per warp to warp 0. */
#ifndef BANKFREE_REDUCTION_LAYOUT_H
#define BANKFREE_REDUCTION_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hostdev.h"
#include "reduction/reduction.h"

#define REDUCTION_TREE_THREADS 1024 /* one element a thread */
#define REDUCTION_TREE_LEVELS  10   /* log2(REDUCTION_TREE_THREADS) */

#define REDUCTION_TUNED_THREADS 512
#define REDUCTION_TUNED_WARPS   (REDUCTION_TUNED_THREADS / 32)
#define REDUCTION_TUNED_LOADS   4 /* 16-byte loads a thread keeps in flight */
/* Elements a block of the first pass sums: 4 loads of 4 elements a thread
 * (but see reduction_tuned_chunk for smaller sums). */
#define REDUCTION_TUNED_CHUNK   (REDUCTION_TUNED_THREADS * REDUCTION_TUNED_LOADS * 4)
/* Blocks a small first pass may spread over (about one an SM on an H100, but
 * fixed: the order of the additions may depend on n alone). */
#define REDUCTION_TUNED_BLOCKS  128

/* ---- the tree kernels ---- */

/* Where thread tid puts its element before the tree. */
static BF_HD uint32_t reduction_fill_offset(int tid)
{
    return (uint32_t)tid;
}

/* One level of the tree for one thread: if active, sdata[dst] += sdata[src]. */
struct reduction_step {
    uint32_t dst, src; /* word offsets in sdata */
    bool active;
};

/* The only lines that differ between the conflicting tree and its fix. */
static BF_HD struct reduction_step reduction_tree_step(enum reduction_variant variant, int level,
                                                       int tid)
{
    struct reduction_step st;
    if (variant == REDUCTION_INTERLEAVED) { /* s = 1, 2, 4, ...: index = 2*s*tid */
        uint32_t s = 1u << level;
        st.dst = 2u * s * (uint32_t)tid;
        st.src = st.dst + s;
        st.active = st.dst < REDUCTION_TREE_THREADS;
    } else { /* s = 512, 256, ...: index = tid */
        uint32_t s = REDUCTION_TREE_THREADS >> (level + 1);
        st.dst = (uint32_t)tid;
        st.src = st.dst + s;
        st.active = (uint32_t)tid < s;
    }
    return st;
}

/* The stride s of a level, as Harris's loops count it. */
static inline int reduction_tree_stride(enum reduction_variant variant, int level)
{
    return variant == REDUCTION_INTERLEAVED ? 1 << level : REDUCTION_TREE_THREADS >> (level + 1);
}

/* Where the block's sum ends up, read by thread 0 after the last level. */
#define REDUCTION_RESULT_OFFSET 0u

/* ---- the tuned kernel ---- */

/* Lane 0 of each warp stores its warp's sum here; warp 0 reads them back,
 * lane w the word of warp w: consecutive words, one wavefront. */
static BF_HD uint32_t reduction_warp_sum_offset(int warp)
{
    return (uint32_t)warp;
}

/* ---- passes ---- */

#define REDUCTION_MAX_PASSES 8

/* One launch: `blocks` blocks, block b sums elements [b * chunk, (b + 1) * chunk)
 * of the pass's n (the last block fewer), and writes its sum to element b of
 * the next pass's input, or to the result when blocks is 1. */
struct reduction_pass {
    int64_t n, chunk, blocks;
};

/* The chunk of the tuned sum's first pass: REDUCTION_TUNED_CHUNK, halved
 * (to 4096, then 2048: two loads a thread, then one) while the halves still
 * make at most REDUCTION_TUNED_BLOCKS blocks. A small sum is one round trip to
 * memory: spread over more SMs, each pulls fewer bytes. A sum of one chunk
 * stays one block, one pass. Depends on n alone, as the order of additions
 * must. */
static inline int64_t reduction_tuned_chunk(int64_t n)
{
    int64_t chunk = REDUCTION_TUNED_CHUNK;
    while (n > REDUCTION_TUNED_CHUNK && chunk > REDUCTION_TUNED_THREADS * 4 &&
           n <= chunk / 2 * REDUCTION_TUNED_BLOCKS)
        chunk /= 2;
    return chunk;
}

/* The passes a sum of n >= 1 elements takes; returns how many. The tree
 * kernels repeat until one block is left; the tuned kernel needs at most two,
 * the second one block over the first one's partial sums. */
static inline int reduction_plan(enum reduction_variant variant, int64_t n,
                                 struct reduction_pass pass[REDUCTION_MAX_PASSES])
{
    int count = 0;
    while (n > 0 && count < REDUCTION_MAX_PASSES) {
        int64_t chunk = variant != REDUCTION_TUNED ? REDUCTION_TREE_THREADS
                        : count == 0               ? reduction_tuned_chunk(n)
                                                   : n;
        pass[count].n = n;
        pass[count].chunk = chunk;
        pass[count].blocks = (n + chunk - 1) / chunk;
        n = pass[count++].blocks;
        if (n == 1)
            break;
    }
    return count;
}

/* The partial sums a sum of n elements keeps between its passes (the
 * workspace, 4 bytes each), and never fewer than a smaller n keeps: a
 * workspace for the largest n serves every smaller sum. The tree kernels'
 * counts grow with n as they are. The tuned kernel's first pass takes up to
 * REDUCTION_TUNED_BLOCKS blocks of a smaller chunk below 2^19 + 1 elements
 * (reduction_tuned_chunk), and 65 of the next chunk just past each switch, so
 * a sum of two passes keeps room for REDUCTION_TUNED_BLOCKS at least (512
 * bytes where 8193 elements need 20). */
static inline int64_t reduction_workspace_elements(enum reduction_variant variant, int64_t n)
{
    struct reduction_pass pass[REDUCTION_MAX_PASSES];
    int passes = reduction_plan(variant, n, pass);
    int64_t elements = 0;
    for (int p = 0; p + 1 < passes; ++p)
        elements += pass[p].blocks;
    if (variant == REDUCTION_TUNED && passes > 1 && elements < REDUCTION_TUNED_BLOCKS)
        elements = REDUCTION_TUNED_BLOCKS;
    return elements;
}

/* The most additions any element passes through on its way to the result: the
 * fp32 error bound is depth * 2^-24 * sum |x| (to first order). */
static inline int64_t reduction_depth(enum reduction_variant variant, int64_t n)
{
    struct reduction_pass pass[REDUCTION_MAX_PASSES];
    int passes = reduction_plan(variant, n, pass);
    int64_t depth = 0;
    for (int p = 0; p < passes; ++p) {
        if (variant != REDUCTION_TUNED) {
            depth += REDUCTION_TREE_LEVELS;
            continue;
        }
        /* An element of a 16-byte load passes a two-level tree over its 4,
         * then one add per load into the thread's running sum (which starts
         * from the head and tail elements, one add between them); then 5
         * shuffle levels and 4 across the 16 warps. */
        int64_t loads = (pass[p].chunk / 4 + REDUCTION_TUNED_THREADS - 1) / REDUCTION_TUNED_THREADS;
        depth += 2 + loads + 5 + 4;
    }
    return depth;
}

#endif
