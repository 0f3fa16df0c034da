/* Where the histogram kernels count, and how an input is split among them.
 * The kernels in histogram.cu call these functions for every shared-memory
 * access; the bank model calls the very same functions for every lane of
 * every warp, on the same input, so the model cannot drift from the code.
 *
 * A warp counts 32 samples at a time, one per lane, with atomicAdd(&s[w], 1)
 * (its result unused: ATOMS.POPC.INC). Lanes on one word share a wavefront;
 * lanes on different words of one bank take one wavefront each
 * (measured by histogram/probes/rules.cu; docs/notes/histogram/). Where
 * the word w of a bin lies is the whole difference between the variants:
 *
 *   shared      one copy, w = bin: bin b in bank b % 32. Uniform bytes cost
 *               about 3.15 wavefronts a request (16-bit samples 3.5); bytes
 *               from {0, 32, ... 224} all land in bank 0: up to 8-way (256
 *               bins), 32-way (4096).
 *   replicated  copies interleaved word by word, w = bin * copies + copy.
 *               256 bins: 32 copies, copy = lane: every counter of lane l
 *               lies in bank l, one wavefront a request on any input.
 *               4096 bins: 32 copies would need 512 KiB; 8 fit (128 KiB),
 *               copy = lane % 8, in banks copy, copy + 8, copy + 16, copy + 24
 *               (which of them: 2 bits of the bin). Only the 4 lanes of one
 *               copy can collide: at most 4 wavefronts on any input. The 2
 *               bits are the bin's bits 0-1 XOR bits 5-6 (histogram_swizzle),
 *               so that bins 32 apart, the one bank of a one-copy histogram,
 *               still spread over the 4 banks. Where each block counts little
 *               (histogram_copies), 4 copies (64 KiB), at most 8-way: the
 *               clear and the merge of the copies cost more there than the
 *               conflicts that 8 copies save.
 */
#ifndef BANKFREE_HISTOGRAM_LAYOUT_H
#define BANKFREE_HISTOGRAM_LAYOUT_H

#include <stdint.h>

#include "common/hostdev.h"
#include "common/sm_limits.h"
#include "histogram/histogram.h"

#define HISTOGRAM_LOADS 4 /* 16-byte loads a thread keeps in flight */

/* Threads a block: 512 for 8-bit samples, 1024 for 16-bit (measured best). */
static BF_HD int histogram_threads(int bins)
{
    return bins == HISTOGRAM_U8_BINS ? 512 : 1024;
}

/* The replicated layouts keep `copies` copies of each bin, interleaved word
 * by word: lane l counts into copy l % copies, and the 32 / copies lanes
 * of a copy meet in its 32 / copies banks (copy, copy + copies, ...): at
 * most 32 / copies wavefronts a request on any input. Which of them a bin
 * takes: its low bits, XORed with its bits 5 and up, a permutation of the
 * bins (as CuTe's Swizzle<b,0,5>), so that bins 32 apart, the one bank of a
 * one-copy histogram, still spread over the copy's banks. 256 bins: 32
 * copies, one bank each, nothing to swizzle. */
static BF_HD uint32_t histogram_swizzle(uint32_t bin, int copies)
{
    return bin ^ (bin >> 5 & (32u / (uint32_t)copies - 1u));
}

/* The word of shared memory that lane `lane` increments for `bin` is the sum
 * of a part that depends only on the lane (its copy) and a part that depends
 * only on the bin: a kernel adds the lane's part once, and a sample then
 * costs about what it costs with one copy (histogram.cu). One copy (the
 * shared variant): w = bin, no swizzle. */
static BF_HD uint32_t histogram_lane_word(int copies, int lane)
{
    return (uint32_t)lane % (uint32_t)copies;
}

static BF_HD uint32_t histogram_bin_word(int copies, uint32_t bin)
{
    return copies == 1 ? bin : histogram_swizzle(bin, copies) * (uint32_t)copies;
}

static BF_HD uint32_t histogram_word(int copies, uint32_t bin, int lane)
{
    return histogram_bin_word(copies, bin) + histogram_lane_word(copies, lane);
}

/* The most vectors a block of the 4096-bin replicated kernel counts with 4
 * copies (4 tiles: 256 KiB of samples, 131072 of them); more, and it keeps 8
 * where the GPU lets a block have them (histogram_copies).
 * A block clears and merges its copies once: 8 copies are 1024 wavefronts of
 * stores (128 KiB) and 1024 of loads, 4 copies half that, whatever it counts;
 * in the count, 4 copies cost more a request, by the model 3.29 wavefronts
 * against 2.96 on uniform bins, 3.14 against 2.90 on one-bank data, 1 and 1
 * on one bin (and at most 8 against 4 on any input). Measured on the H100
 * (histogram/probes/phases.cu): the clear and merge of 8 copies take
 * 0.65 us more than of 4, and the count of 4 copies at most 7.6% longer (L2
 * warm, 16-bit uniform, 15888 vectors a block); where the samples come from
 * memory the count is the same either way. So 4 copies are ahead wherever a
 * block counts under about 18000 vectors while shared memory keeps the
 * pace, and never more than 0.4% behind where memory sets it: 16384, a
 * power of two below. A block counts at most 16384 exactly where the input
 * holds at most 16384 x SMs aligned vectors (one block an SM at most,
 * histogram_blocks): on the H100's 132 SMs, 33 MiB of samples from a 16-byte
 * boundary. */
#define HISTOGRAM_FEW_COPIES_SHARE 16384

/* The shared memory a block may ask for on the H100 (sm_90), in bytes:
 * cudaDevAttrMaxSharedMemoryPerBlockOptin, 227 KiB (the tests' GPU). The
 * launcher passes histogram_copies the GPU's own; the model the one of the
 * GPU it replays (bf_sm_limits_of, common/sm_limits.h). */
#define HISTOGRAM_H100_SMEM_OPTIN (227 * 1024)

/* Copies of each bin a block keeps: 1 (global, shared), or replicated: 32
 * (256 bins, 32 KiB), or for 4096 bins
 *   8 (128 KiB) where a block counts more than HISTOGRAM_FEW_COPIES_SHARE
 *     vectors and the GPU lets a block have 128 KiB (smem_optin, bytes:
 *     cudaDevAttrMaxSharedMemoryPerBlockOptin; H100 227 KiB), and
 *   4 (64 KiB) where a block counts at most HISTOGRAM_FEW_COPIES_SHARE
 *     vectors, or at any share where smem_optin is under 128 KiB (sm_86 and
 *     sm_89: 99 KiB): still exact, at most 8-way, and then whether a launch
 *     fits does not depend on n.
 * `share`: the vectors each block counts (histogram_share). The one rule:
 * the launcher takes the kernel of the value it returns, the model replays
 * that layout, the tests check both sides of each threshold. */
static BF_HD int histogram_copies(enum histogram_variant variant, int bins, int64_t share,
                                  int smem_optin)
{
    if (variant != HISTOGRAM_REPLICATED)
        return 1;
    if (bins == HISTOGRAM_U8_BINS)
        return 32;
    if (smem_optin < 4 * HISTOGRAM_U16_BINS * 8)
        return 4;
    return share <= HISTOGRAM_FEW_COPIES_SHARE ? 4 : 8;
}

/* The replicated kernels histogram.cu builds: 32 copies of 256 bins, 4 or 8
 * of 4096 (a macro, for its `if constexpr`). Its launcher switches on the
 * value histogram_copies returns and takes the kernel of that many copies;
 * the CPU test checks that every value the rule returns is one of these. */
#define HISTOGRAM_REPLICATED_BUILT(bins, copies)                                                   \
    ((bins) == HISTOGRAM_U8_BINS ? (copies) == 32 : (copies) == 4 || (copies) == 8)

/* Words of shared memory a block counts in (0: none, global atomics). */
static BF_HD uint32_t histogram_words(enum histogram_variant variant, int bins, int copies)
{
    return variant == HISTOGRAM_GLOBAL ? 0u : (uint32_t)bins * (uint32_t)copies;
}

/* The word the merge reads at step i (of copies) for `bin`, in the lane
 * `lane` of a warp that merges 32 consecutive bins: copy
 * (i + lane / (32 / copies)) % copies, so that the 32 lanes hit 32 banks. The
 * copy of lane l is the one lane l (mod copies) counted into. */
static BF_HD uint32_t histogram_merge_word(int copies, uint32_t bin, int i, int lane)
{
    const uint32_t c = (uint32_t)copies;
    return histogram_word(copies, bin, (int)(((uint32_t)i + (uint32_t)lane / (32u / c)) % c));
}

/* Blocks an SM runs at once, as measured on the H100 (shared memory and
 * registers; GPUs of fewer threads or less shared memory an SM run fewer:
 * histogram_blocks_per_sm): the grid is this times the SMs, each block counting an equal
 * share of the input, so the set-up and merge are paid once a block. A
 * macro, for the kernels' __launch_bounds__ too. One copy: 512 or 1024
 * threads of 32 registers, 4 or 2 blocks. Replicated, with the registers to
 * load ahead: 256 bins 2 blocks (32 KiB of counters each); 4096 bins 1. With
 * 8 copies (128 KiB) shared memory allows only one; with 4 (64 KiB) it would
 * hold 3, and the one block comes from the registers: 1024 threads of 56-61
 * registers (cuobjdump --dump-resource-usage, sm_90) take 56-61 Ki of the
 * SM's 64 Ki. Global: as replicated (its atomics in L2 are its limit; more
 * blocks would spill). */
#define HISTOGRAM_BLOCKS_PER_SM(variant, bins)                                                     \
    ((variant) == HISTOGRAM_SHARED ? ((bins) == HISTOGRAM_U8_BINS ? 4 : 2)                         \
                                   : ((bins) == HISTOGRAM_U8_BINS ? 2 : 1))
/* Those that a GPU of limits `sm` holds: fewer where their threads or the
 * shared memory of their most copies (histogram_copies at any share) do not
 * fit (sm_86, sm_89: 1536 threads; sm_75: 1024). */
static BF_HD int histogram_blocks_per_sm(enum histogram_variant variant, int bins,
                                         struct bf_sm_limits sm)
{
    const int copies = histogram_copies(variant, bins, INT64_MAX, sm.block_shared);
    const int fit = bf_blocks_fit(sm, histogram_threads(bins),
                                  (int)(4u * histogram_words(variant, bins, copies)),
                                  HISTOGRAM_BLOCKS_PER_SM(variant, bins));
    return fit > 0 ? fit : 1;
}

/* How n samples starting at byte address `start` are read: `head` samples
 * singly, then `vectors` aligned 16-byte vectors of `per_vector` samples from
 * the first 16-byte boundary, then `tail` samples singly. For 16-bit samples
 * at an odd address (`straddle`), vector v holds the 8 samples that start in
 * it, the last one finishing in the next vector's first byte. */
struct histogram_split {
    int64_t head, vectors, tail;
    int per_vector;
    int straddle;
    uint64_t first_vector; /* byte address of vector 0 */
};

static BF_HD struct histogram_split histogram_split_input(uint64_t start, int sample_bytes,
                                                          int64_t n)
{
    struct histogram_split s;
    uint64_t q = (start + 15u) / 16u * 16u, gap = q - start;
    int64_t bytes = n * sample_bytes;
    s.per_vector = 16 / sample_bytes;
    s.straddle = sample_bytes == 2 && start % 2u != 0;
    s.first_vector = q;
    /* samples starting before q; a straddling sample starting at q - 1 too */
    s.head = (int64_t)((gap + (uint64_t)sample_bytes - 1u) / (uint64_t)sample_bytes);
    if (s.head > n)
        s.head = n;
    int64_t left = bytes - (int64_t)gap; /* bytes from q on */
    if (left <= 0)
        s.vectors = 0;
    else if (s.straddle)
        s.vectors = (left - 1) / 16; /* each needs the next vector's first byte */
    else
        s.vectors = left / 16;
    s.tail = n - s.head - s.vectors * s.per_vector;
    return s;
}

/* The grid on a GPU of `sms` SMs of limits `sm`: enough blocks for the
 * vectors, at most blocks_per_sm * sms; one block at least (for the head and
 * tail). */
static BF_HD int64_t histogram_blocks(enum histogram_variant variant, int bins, int64_t vectors,
                                      int sms, struct bf_sm_limits sm)
{
    int64_t tile = (int64_t)histogram_threads(bins) * HISTOGRAM_LOADS;
    int64_t need = (vectors + tile - 1) / tile,
            most = (int64_t)sms * histogram_blocks_per_sm(variant, bins, sm);
    return need < 1 ? 1 : need < most ? need : most;
}

/* The vectors each block counts: an equal share of them, rounded up to
 * whole groups of 32 (block b counts [b * share, (b + 1) * share)). */
static BF_HD int64_t histogram_share(int64_t vectors, int64_t blocks)
{
    return ((vectors + blocks - 1) / blocks + 31) / 32 * 32;
}

#endif
