/* Where the AES kernels find a T-table entry, and how the blocks of a message
 * are shared among threads. The kernels in aes_lut.cu call these functions
 * for every table read; the bank model calls the very same functions for
 * every lane of every warp, on the same key and data, so the model cannot
 * drift from the code.
 *
 * A round looks up each of the 16 state bytes x once: T_i[x] for the byte in
 * row i (FIPS-197's state; T_i is T_0 rotated right by 8i bits, T_0[x] the
 * bytes {02}.S[x], S[x], S[x], {03}.S[x]). The last round needs S[x] alone:
 * it reads T_0[x] and keeps its byte S[x], in every variant. A warp looks up
 * 32 blocks' bytes at once, one block a lane; the words of one request are
 * data-dependent, and where they lie decides the cost:
 *
 *   shared      the 4 tables, one copy (4 KiB): T_i[x] is word 256 i + x, in
 *               bank x % 32. 32 random bytes land 3 or 4 to the fullest of
 *               the 32 banks; bytes from {0, 32, ..., 224} all in bank 0:
 *               up to 8 words of one bank, 8-way.
 *   constant    the 4 tables in constant memory, same index: not shared
 *               memory; the constant cache serves a warp's distinct
 *               addresses one after another (the CUDA C++ Programming
 *               Guide, "Constant Memory"): about 30 of 32 on random bytes.
 *   replicated  32 copies of each table it holds, interleaved word by word:
 *               lane j reads bank j whatever x is, one wavefront a request
 *               on any data (C. Tezcan, "Optimization of Advanced Encryption
 *               Standard on Graphics Processing Units", IEEE Access, 2021).
 *               Two layouts, the GPU's shared memory picking one
 *               (aes_lut_layout_of):
 *     T0T1      T_0 and T_1 (T_0 rotated right by 8 bits), 64 KiB: T_i[x]
 *               for lane j is word 64 x + 32 (i % 2) + j. T_2 and T_3 are
 *               T_0 and T_1 rotated by 16 bits: a column XORs its T_2 and
 *               T_3 entries and rotates once (__byte_perm). The byte address
 *               256 x + 128 (i % 2) + 4 j is x in byte 1 and the lane's part
 *               in byte 0: one PRMT of the state word and the lane's part
 *               addresses a lookup (aes_lut_byte_perm_address).
 *     T0        T_0 alone, 32 KiB (Tezcan's): T_i[x] for lane j is word
 *               32 x + j, T_1..T_3 T_0 rotated: three rotations a column,
 *               and a PRMT and an IMAD a lookup's address.
 */
#ifndef BANKFREE_AES_LUT_LAYOUT_H
#define BANKFREE_AES_LUT_LAYOUT_H

#include <stdint.h>

#include "aes_lut/aes_lut.h"
#include "common/hostdev.h"
#include "common/sm_limits.h"

/* Why aes_lut_ctr and aes_lut_ecb refuse n bytes with cudaErrorInvalidValue
 * (NULL: they run them; they refuse a bad variant, key or pointer too): ECB
 * encrypts whole blocks only; lengths of 2^62 bytes or more are refused (no
 * GPU holds them; the launcher's block counts would overflow near 2^63).
 * The launcher, the model and the runner's refusals all ask this. */
static inline const char *aes_lut_refusal(int ecb, int64_t n)
{
    if (n < 0)
        return "a negative length";
    if (n >= (int64_t)1 << 62)
        return "a length of 2^62 bytes or more";
    if (ecb && n % 16 != 0)
        return "ECB of a partial 16-byte block";
    return 0;
}

#define AES_LUT_THREADS    256 /* threads a block */
#define AES_LUT_PER_THREAD 4   /* 16-byte blocks a thread encrypts at once (its loads in flight) */
#define AES_LUT_TILE       (AES_LUT_THREADS * AES_LUT_PER_THREAD) /* AES blocks a tile */

/* Where a kernel keeps its tables: a variant's layout; `replicated` has two
 * (T0T1 where a GPU's shared memory holds 3 blocks of it, T0 elsewhere:
 * aes_lut_layout_of). The first three are the variants' numbers. */
enum aes_lut_layout {
    AES_LUT_LAYOUT_SHARED = AES_LUT_SHARED,
    AES_LUT_LAYOUT_CONSTANT = AES_LUT_CONSTANT,
    AES_LUT_LAYOUT_T0T1 = AES_LUT_REPLICATED, /* replicated: 32 copies of T_0 and T_1 */
    AES_LUT_LAYOUT_T0,                        /* replicated: 32 copies of T_0 */
    AES_LUT_LAYOUTS
};

/* The word (of shared memory, or of the constant table) that lane `lane`
 * reads for T_table[x] is the sum of a part that depends only on the lane
 * and one that depends only on the entry: a kernel adds its lane's part to
 * its table address once, and a lookup then costs about what it costs with
 * one copy (aes_lut.cu). */
static BF_HD uint32_t aes_lut_lane_word(enum aes_lut_layout layout, int lane)
{
    return layout == AES_LUT_LAYOUT_T0T1 || layout == AES_LUT_LAYOUT_T0 ? (uint32_t)lane : 0u;
}

/* T0: the word of T_0[x] for every table (the kernel rotates what it reads). */
static BF_HD uint32_t aes_lut_entry_word(enum aes_lut_layout layout, int table, uint32_t x)
{
    if (layout == AES_LUT_LAYOUT_T0T1)
        return x * 64u + 32u * ((uint32_t)table % 2u); /* T_2, T_3: T_0, T_1 rotated */
    if (layout == AES_LUT_LAYOUT_T0)
        return x * 32u;
    return (uint32_t)table * 256u + x;
}

static BF_HD uint32_t aes_lut_word(enum aes_lut_layout layout, int table, uint32_t x, int lane)
{
    return aes_lut_entry_word(layout, table, x) + aes_lut_lane_word(layout, lane);
}

/* T0T1: 4 x the word lane `lane` reads for T_table[x] is x in byte 1 and its
 * lane's part, 4 * aes_lut_word(layout, table, 0, lane) < 256, in byte 0:
 * the kernel's one __byte_perm(w, part, 0x7604 + 16 k) for x byte k of w
 * (test_aes_lut.c holds every table, x and lane to it). */
static BF_HD uint32_t aes_lut_byte_perm_address(uint32_t x, uint32_t part)
{
    return (x & 0xffu) << 8 | (part & 0xffu);
}

/* The word of the last round's S[x]: T_0[x], whose byte 2 (bits 16-23) is S[x]. */
static BF_HD uint32_t aes_lut_sbox_word(enum aes_lut_layout layout, uint32_t x, int lane)
{
    return aes_lut_word(layout, 0, x, lane);
}

/* Words of shared memory a block holds (0: none, constant memory). A macro
 * for the kernels' array size too. */
#define AES_LUT_WORDS(layout)                                                                      \
    ((layout) == AES_LUT_LAYOUT_SHARED ? 1024u                                                     \
     : (layout) == AES_LUT_LAYOUT_T0T1 ? 16384u                                                    \
     : (layout) == AES_LUT_LAYOUT_T0   ? 8192u                                                     \
                                       : 0u)
static BF_HD uint32_t aes_lut_words(enum aes_lut_layout layout)
{
    return AES_LUT_WORDS(layout);
}

/* What word w of a block's shared tables holds: T_table[x] (for the set-up,
 * which writes word w from T_0[x] rotated by `table` bytes). */
static BF_HD void aes_lut_entry(enum aes_lut_layout layout, uint32_t w, int *table, uint32_t *x)
{
    if (layout == AES_LUT_LAYOUT_T0T1) {
        *table = (int)(w / 32u % 2u);
        *x = w / 64u;
    } else if (layout == AES_LUT_LAYOUT_T0) {
        *table = 0;
        *x = w / 32u;
    } else {
        *table = (int)(w / 256u);
        *x = w % 256u;
    }
}

/* Blocks an SM runs at once, for the grid and the kernels' __launch_bounds__
 * (no spills in any kernel, by nvcc -Xptxas -v): 4 x 256 threads (at most
 * 64 registers a thread); T0T1 3 x 256 threads (at most 80), the 3 x 65 KiB
 * of tables (with the 1 KiB each block's system share) that 228 KiB an SM
 * holds on sm_90. */
#define AES_LUT_BLOCKS_PER_SM(layout) ((layout) == AES_LUT_LAYOUT_T0T1 ? 3 : 4)

/* Those a GPU of limits `sm` holds: fewer where its shared memory holds
 * fewer tables (T0: sm_86, 89, 120 3, sm_75 2). */
static BF_HD int aes_lut_blocks_per_sm(enum aes_lut_layout layout, struct bf_sm_limits sm)
{
    const uint32_t words = AES_LUT_WORDS(layout) > 0u ? AES_LUT_WORDS(layout) : 4u;
    const int fit =
        bf_blocks_fit(sm, AES_LUT_THREADS, (int)(4u * words), AES_LUT_BLOCKS_PER_SM(layout));
    return fit > 0 ? fit : 1;
}

/* The layout `variant` takes on a GPU of limits `sm`, the one rule: the
 * launchers ask it of the GPU at hand (bf_sm_limits_query), the model of
 * the GPU it replays (bf_sm_limits_of). replicated holds T_0 and T_1 where 3
 * blocks of them fit an SM (sm_90, sm_100, sm_103), the occupancy at which
 * they bind the H100's shared pipe (docs/notes/aes_lut/shared-pipe.md).
 * Elsewhere their 64 KiB leave 2 blocks an SM (sm_80) or 1 (sm_75, its
 * whole 64 KiB; sm_86, 89, 120), where T_0 alone (32 KiB) runs 4, 2 and 3:
 * T_0 alone there. */
static BF_HD enum aes_lut_layout aes_lut_layout_of(enum aes_lut_variant variant,
                                                   struct bf_sm_limits sm)
{
    if (variant != AES_LUT_REPLICATED)
        return (enum aes_lut_layout)variant;
    const int want = AES_LUT_BLOCKS_PER_SM(AES_LUT_LAYOUT_T0T1),
              fit = bf_blocks_fit(sm, AES_LUT_THREADS,
                                  (int)(4u * AES_LUT_WORDS(AES_LUT_LAYOUT_T0T1)), want);
    return fit == want ? AES_LUT_LAYOUT_T0T1 : AES_LUT_LAYOUT_T0;
}

/* The grid on a GPU of `sms` SMs of limits `sm`: enough blocks for the
 * tiles, at most blocks_per_sm * sms. */
static BF_HD int64_t aes_lut_grid(enum aes_lut_layout layout, int64_t aes_blocks, int sms,
                                  struct bf_sm_limits sm)
{
    const int64_t tiles = (aes_blocks + AES_LUT_TILE - 1) / AES_LUT_TILE,
                  most = (int64_t)sms * aes_lut_blocks_per_sm(layout, sm);
    return tiles < most ? tiles : most;
}

/* The tiles each block encrypts: an equal share (block b: tiles [b * share,
 * (b + 1) * share)). Thread t of a tile takes its AES blocks t, t + THREADS,
 * ...: a warp's lanes take 32 consecutive blocks, so a warp's request is
 * always one aligned group of 32 blocks (the model's unit). */
static BF_HD int64_t aes_lut_share(int64_t aes_blocks, int64_t grid)
{
    const int64_t tiles = (aes_blocks + AES_LUT_TILE - 1) / AES_LUT_TILE;
    return grid > 0 ? (tiles + grid - 1) / grid : 0;
}

#ifdef __CUDACC__
/* Lets `kernel` (the cipher's or the ceiling's, of layout L) take its
 * tables' shared memory at launch where that is past the 48 KiB a launch
 * gets without asking (T0 and T1: 64 KiB). */
template <enum aes_lut_layout L, typename Kernel>
static cudaError_t aes_lut_allow_tables(Kernel kernel)
{
    const size_t bytes = 4u * AES_LUT_WORDS(L);
    return bytes > 48 * 1024 ? cudaFuncSetAttribute(
                                   kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes)
                             : cudaSuccess;
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* aes_lut_ctr (ctr 1) or aes_lut_ecb (ctr 0) in `layout`, whatever the GPU
 * would pick (aes_lut.cu): for the suite, which tests and times T0 on a GPU
 * that takes T0T1. Refuses what those refuse, and a layout past the last. */
cudaError_t aes_lut_run_layout(enum aes_lut_layout layout, int ctr, const uint8_t *key,
                               int key_bytes, const uint8_t *counter, uint8_t *out,
                               const uint8_t *in, int64_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
