/* Host-side model of shared-memory bank conflicts (pure C, no GPU).
 *
 * A warp-wide shared-memory instruction is served in wavefronts. Within one
 * part of the warp (the lanes the hardware serves together) a wavefront
 * delivers at most one distinct bank word per bank, and lanes that read the
 * same word share it (broadcast). So a part costs the largest number of
 * distinct words that any one bank holds for it, and the instruction costs the
 * sum over its parts. Ideal is the fewest wavefronts those words could take:
 * per part, ceil(distinct words / banks).
 *
 * On sm_90 (measured on H100 with ncu; docs/bank-rules.md gives the
 * measurements, how they were taken and which counter to compare with)
 * 1/2/4/8-byte loads, 1/2/4-byte stores and shared reductions are one part
 * of 32 lanes, 8-byte stores two parts of 16, 16-byte loads two parts of 16,
 * 16-byte stores four parts of 8 (a store part is 128 bytes of lanes, a load
 * part 256), and ldmatrix and wgmma's reads one part per 8x8 matrix.
 * Banks, bank width and part sizes are parameters, so the same code replays
 * older hardware too (16 banks per half-warp; the 8-byte bank mode of 3.x). */
#ifndef BANKFREE_BANK_MODEL_H
#define BANKFREE_BANK_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BF_WARP 32

/* The most access sites one launch's model records (a family's model fills
 * an array of this many struct bf_site). */
#define BF_MAX_SITES 32

enum bf_op {
    BF_LOAD,     /* ld.shared */
    BF_STORE,    /* st.shared */
    BF_RED,      /* red.shared / atomics without a return value */
    BF_LDMATRIX, /* ldmatrix: each lane gives the address of one 16-byte row */
    BF_CP_ASYNC, /* cp.async (LDGSTS): a global-to-shared copy. Its cost depends on
                  * the global addresses too: bf_ldgsts_wavefronts; without
                  * them, bf_bank_wavefronts serves it as a store of its width
                  * (exact where each 8 lanes copy one aligned global line into
                  * one aligned shared line) */
    BF_LDC,      /* ld.const (LDC): not shared memory. The constant cache serves
                  * a warp's distinct addresses one after another: a request
                  * costs its distinct addresses, ideally 1 (a broadcast) */
    BF_WGMMA,    /* wgmma reading an operand from shared memory (SASS: HGMMA): in
                  * 8-row x 16-byte core matrices, each served on its own as an
                  * ldmatrix matrix is (measured on the H100: docs/bank-rules.md);
                  * a request is one wgmma's operand: bf_site_add_matrices */
    BF_TMA,      /* a TMA box written into shared memory by the copy engine: no LSU
                  * wavefront counter sees it; a request is one box, its
                  * wavefronts the 128-byte lines it fills (bf_site_add_tma) */
    BF_ST_ASYNC  /* st.async: a store into another block's shared memory in the
                  * cluster (distributed shared memory), completing bytes on its
                  * mbarrier; served in that block's banks as a store of its
                  * width, but no wavefront counter of shared memory sees it
                  * (ncu counts its instructions: docs/bank-rules.md) */
};
#define BF_OPS (BF_ST_ASYNC + 1)

struct bf_access {
    enum bf_op op;
    int bytes;    /* per lane: 1, 2, 4, 8 or 16 (16 for ldmatrix rows) */
    int matrices; /* ldmatrix .x1, .x2, .x4; unused otherwise */
};

struct bf_bank_rules {
    const char *name;
    int banks;      /* number of banks */
    int bank_bytes; /* width of a bank word: 4, or 8 in the 8-byte mode of 3.x */
    int part_lanes; /* lanes served together for 1..8-byte accesses and red, but: */
    int st8_lanes;  /* lanes served together by an 8-byte store */
    int ld16_lanes; /* lanes served together by a 16-byte load */
    int st16_lanes; /* lanes served together by a 16-byte store */
    int sms; /* SMs of the GPU the model replays: a kernel whose grid follows the GPU (a persistent
              * grid) launches a multiple of it */
    int cc;  /* its compute capability, 10 x major + minor: the SM's limits (common/sm_limits.h)
              * and the code it runs (no cp.async below 80) */
};

extern const struct bf_bank_rules bf_rules_sm90;    /* Hopper, as measured on H100 */
extern const struct bf_bank_rules bf_rules_cc1x;    /* compute 1.x: 16 banks, half-warps */
extern const struct bf_bank_rules bf_rules_kepler8; /* compute 3.x, 8-byte bank mode */

struct bf_wavefronts {
    int wavefronts;
    int ideal;
};

static inline struct bf_access bf_ld(int bytes)
{
    struct bf_access a = {BF_LOAD, bytes, 0};
    return a;
}
static inline struct bf_access bf_st(int bytes)
{
    struct bf_access a = {BF_STORE, bytes, 0};
    return a;
}
static inline struct bf_access bf_red(int bytes)
{
    struct bf_access a = {BF_RED, bytes, 0};
    return a;
}
static inline struct bf_access bf_cp_async(int bytes)
{
    struct bf_access a = {BF_CP_ASYNC, bytes, 0};
    return a;
}
static inline struct bf_access bf_ldc(int bytes)
{
    struct bf_access a = {BF_LDC, bytes, 0};
    return a;
}
static inline struct bf_access bf_ldmatrix(int matrices)
{
    struct bf_access a = {BF_LDMATRIX, 16, matrices};
    return a;
}

static inline struct bf_access bf_wgmma(void)
{
    struct bf_access a = {BF_WGMMA, 16, 4};
    return a;
}
static inline struct bf_access bf_tma(void)
{
    struct bf_access a = {BF_TMA, 16, 0};
    return a;
}
static inline struct bf_access bf_st_async(int bytes)
{
    struct bf_access a = {BF_ST_ASYNC, bytes, 0};
    return a;
}

/* "ld", "st", "red", "ldmatrix", "ldgsts", "ldc", "gmma", "tma" or "stas", the op
 * column of the model's tables. Which of ncu's counters sees each is
 * bf_op_counters (common/counters.h, `bankfree counters`). */
const char *bf_op_name(enum bf_op op);

/* Where an op's wavefronts are summed in a launch's ways (bf_sites_ways) and
 * the bench's ld/st/atom columns: loads (ld, ldmatrix, wgmma's reads),
 * stores (st, cp.async), shared atomics (red), the constant cache (ldc), or
 * none (tma: the copy engine's, no LSU wavefront). */
enum bf_op_class { BF_CLASS_LD, BF_CLASS_ST, BF_CLASS_ATOM, BF_CLASS_LDC, BF_CLASS_NONE };
enum bf_op_class bf_op_class(enum bf_op op);

/* Wavefronts for one warp-wide instruction. addr holds each lane's byte
 * address in shared memory; lanes outside the active mask take no part (a
 * part with no active lane costs nothing). Returns 0, or -1 if the access is
 * not one the hardware has (bad width, unaligned address, bad matrix count). */
int bf_bank_wavefronts(const struct bf_bank_rules *rules, struct bf_access access,
                       const uint32_t addr[BF_WARP], uint32_t active, struct bf_wavefronts *out);

/* bf_bank_wavefronts, and in *busiest the bank that holds the most distinct
 * words of any one part (the first to reach that many), the bank a picture
 * of the request points at; -1 where no lane is active, and for ldc (no
 * banks). */
int bf_bank_wavefronts_busiest(const struct bf_bank_rules *rules, struct bf_access access,
                               const uint32_t addr[BF_WARP], uint32_t active,
                               struct bf_wavefronts *out, int *busiest);

/* The lanes one part of the warp holds, the lanes served together: 32, 16 or
 * 8 (ldmatrix, wgmma: one matrix); lanes l and m are in the same part when
 * l / parts = m / parts. */
int bf_part_lanes(const struct bf_bank_rules *rules, struct bf_access access);

/* One shared-memory access site of a kernel, summed over the warps that the
 * model replays through it. */
struct bf_site {
    const char *name; /* no commas: scripts read the model's CSV by column */
    struct bf_access access;
    uint64_t requests;   /* warp-wide instructions with at least one active lane */
    uint64_t wavefronts; /* their wavefronts */
    uint64_t ideal;      /* their ideal wavefronts */
    int worst;           /* most wavefronts one request took */
    /* The first request that took `worst`, for pictures (`bankfree model
     * --lanes`): each lane's byte address (cp.async: in shared memory) and
     * the active lanes (0: no request yet). */
    uint32_t worst_addr[BF_WARP];
    uint32_t worst_active;
};

/* A site with nothing counted yet. */
static inline struct bf_site bf_site_new(const char *name, struct bf_access access)
{
    struct bf_site s = {name, access, 0, 0, 0, 0, {0}, 0};
    return s;
}

/* Adds one warp's request to the site (nothing if no lane is active). */
int bf_site_add(struct bf_site *site, const struct bf_bank_rules *rules,
                const uint32_t addr[BF_WARP], uint32_t active);

/* bf_site_add, giving back the request's own count and its busiest bank
 * (bf_bank_wavefronts_busiest): for a reader's own requests, reported one by
 * one (`bankfree ways`). */
int bf_site_add_request(struct bf_site *site, const struct bf_bank_rules *rules,
                        const uint32_t addr[BF_WARP], uint32_t active,
                        struct bf_wavefronts *request, int *busiest);

/* The most distinct words any bank holds among the active lanes' words
 * (bank = word % banks, banks a power of two; banks = 1 gives the distinct
 * words). For families whose addresses follow the data, which replay
 * billions of requests: it stamps a table of BF_STAMPED_WORDS words, and is
 * not thread-safe. Returns -1 if an active word is not below
 * BF_STAMPED_WORDS, or banks is not a power of two. */
#define BF_STAMPED_WORDS 65536u
int bf_most_words_per_bank(const uint32_t word[BF_WARP], uint32_t active, uint32_t banks);

/* bf_site_add for a site of 4-byte accesses, each lane's address given as a
 * word (address = 4 * word): the same count, through bf_most_words_per_bank
 * where the rules serve 32 lanes at once from 32 banks of 4 bytes (sm_90's;
 * several times faster), else through bf_site_add. */
int bf_site_add_words(struct bf_site *site, const struct bf_bank_rules *rules,
                      const uint32_t word[BF_WARP], uint32_t active);

/* cp.async (LDGSTS) as measured on the H100 and the H200
 * (docs/bank-rules.md): the shared writes of one warp's 16-byte copies are
 * grouped by the 128-byte global line each reads. A group costs 1
 * wavefront if it writes one whole aligned 128-byte shared line, each
 * 32-byte global sector's two chunks in one aligned 32 bytes of it (in any
 * order: permuted, swapped, XORed), 2 if it writes a whole line with
 * sectors split (rotated by an odd number of chunks), else 1 for each
 * distinct 64-byte shared segment it writes. So 8 lanes copying one
 * aligned global line into one shared row cost 1, and the same row 16
 * bytes off costs 3. Zero fills (src-size 0, lanes that read nothing): a
 * warp whose lanes all zero-fill costs the ideal in any layout; mixed with
 * copies, zero-filling lanes group by the shared line they write (about
 * what the GEMM kernels cost; one warp alone in a probe costs more:
 * docs/bank-rules.md). global: each lane's global byte address relative to
 * a 128-byte boundary; shared: its shared byte address; zero_fill: lanes
 * that read nothing. Ideal: one wavefront per 128 bytes written. Returns
 * 0, or -1 for an address not 16-byte aligned. */
int bf_ldgsts_wavefronts(const uint64_t global[BF_WARP], const uint32_t shared[BF_WARP],
                         uint32_t active, uint32_t zero_fill, struct bf_wavefronts *out);
/* bf_site_add with bf_ldgsts_wavefronts's count (a site of op BF_CP_ASYNC). */
int bf_site_add_ldgsts(struct bf_site *site, const uint64_t global[BF_WARP],
                       const uint32_t shared[BF_WARP], uint32_t active, uint32_t zero_fill);

/* One request of `matrices` 8 x 16-byte matrices (a wgmma operand: site op
 * BF_WGMMA), addr holding each matrix's 8 row addresses in turn: each matrix
 * is served on its own, as ldmatrix's are, and the request costs their sum.
 * The worst request keeps its first 32 addresses. Returns 0, or -1 for an
 * address not 16-byte aligned. */
int bf_site_add_matrices(struct bf_site *site, const struct bf_bank_rules *rules,
                         const uint32_t *addr, int matrices);

/* One TMA box of `bytes` into shared memory (site op BF_TMA): one request,
 * its 128-byte lines as wavefronts and ideal. */
void bf_site_add_tma(struct bf_site *site, uint64_t bytes);

/* Adds count copies of other (same name and access) to site. */
void bf_site_merge(struct bf_site *site, const struct bf_site *other, uint64_t count);

/* A launch's verdict: wavefronts over ideal, summed over its shared-memory
 * load sites (ld, ldmatrix, wgmma's reads), its store sites (st, and
 * cp.async: it writes), its shared atomics (red), and apart from them its
 * constant-cache loads (ldc: distinct addresses over requests); 0 where it
 * has none. TMA's writes are in none (no LSU wavefront counts them). */
struct bf_launch_ways {
    double ld, st, atom, ldc;
    /* the wavefronts themselves, by bf_op_class: as ncu's SASS counters of
     * the class's ops sum them (the bench's --counters columns) */
    uint64_t ld_wavefronts, st_wavefronts, atom_wavefronts;
};
struct bf_launch_ways bf_sites_ways(const struct bf_site *sites, int n);

#ifdef __cplusplus
}
#endif

#endif
