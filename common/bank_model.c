#include "common/bank_model.h"

#include <string.h>

/* sms: H100 SXM has 132; for the older rules a representative GPU of the
 * generation (GTX 280 and Tesla C1060, 30 SMs; Tesla K40, 15 SMX). */
const struct bf_bank_rules bf_rules_sm90 = {"sm_90", 32, 4, 32, 16, 16, 8, 132, 90};
const struct bf_bank_rules bf_rules_cc1x = {"compute 1.x", 16, 4, 16, 16, 16, 16, 30, 90};
const struct bf_bank_rules bf_rules_kepler8 = {
    "compute 3.x, 8-byte banks", 32, 8, 32, 32, 32, 32, 15, 90};

const char *bf_op_name(enum bf_op op)
{
    switch (op) {
    case BF_LOAD:
        return "ld";
    case BF_STORE:
        return "st";
    case BF_RED:
        return "red";
    case BF_LDMATRIX:
        return "ldmatrix";
    case BF_CP_ASYNC:
        return "ldgsts";
    case BF_LDC:
        return "ldc";
    case BF_WGMMA:
        return "gmma";
    case BF_TMA:
        return "tma";
    case BF_ST_ASYNC:
        return "stas";
    }
    return "?";
}

/* Lanes that one part of the warp holds, and how many lanes take part at all. */
static int part_lanes(const struct bf_bank_rules *r, struct bf_access a, int *lanes_used)
{
    if (a.op == BF_LDC || a.op == BF_TMA) { /* no banks: the warp is one part */
        *lanes_used = BF_WARP;
        return BF_WARP;
    }
    *lanes_used = BF_WARP;
    if (a.op == BF_LDMATRIX || a.op == BF_WGMMA) {
        *lanes_used = 8 * a.matrices;
        return 8;
    }
    if (a.bytes == 16)
        return a.op == BF_LOAD ? r->ld16_lanes : r->st16_lanes;
    if (a.bytes == 8 && (a.op == BF_STORE || a.op == BF_ST_ASYNC))
        return r->st8_lanes;
    return r->part_lanes;
}

int bf_part_lanes(const struct bf_bank_rules *r, struct bf_access a)
{
    int used;
    return part_lanes(r, a, &used);
}

/* The most distinct words any one bank holds for a part, that bank (the
 * first to reach the most), and the number of distinct words. Each of the n
 * lanes touches `span` words from first[lane], aligned to span (its width is
 * its alignment), so two lanes touch the same words or none in common: a
 * lane's first word is compared with every lane's before it, a loop without
 * branches the compiler vectorises. */
/* Whether word[i] is among word[0..i-1]; slots is 8, 16 or 32, a constant
 * where it is inlined. */
static inline int seen_before(const uint32_t *word, int i, int slots)
{
    int seen = 0;
    for (int j = 0; j < slots; ++j)
        seen |= (word[j] == word[i]) & (j < i);
    return seen;
}

static void count_part(const struct bf_bank_rules *r, const uint32_t *first, int n, int span,
                       int *max_per_bank, int *busiest, int *distinct)
{
    int per_bank[64];
    for (int b = 0; b < r->banks; ++b)
        per_bank[b] = 0;
    *max_per_bank = 0;
    *distinct = 0;
    /* Banks are a power of two in every rule: a mask, not a division a word. */
    const uint32_t banks = (uint32_t)r->banks, mask = (banks & (banks - 1u)) == 0 ? banks - 1u : 0;
    /* A lane's first word against 8, 16 or 32 slots, those from the lane on
     * masked off: loops of fixed length, vectorised without a remainder. */
    uint32_t word_of[BF_WARP] = {0};
    memcpy(word_of, first, (size_t)n * sizeof *first);
    for (int i = 0; i < n; ++i) {
        const int seen = n <= 8    ? seen_before(word_of, i, 8)
                         : n <= 16 ? seen_before(word_of, i, 16)
                                   : seen_before(word_of, i, BF_WARP);
        if (seen)
            continue; /* the same words: broadcast */
        *distinct += span;
        for (int w = 0; w < span; ++w) {
            const uint32_t word = first[i] + (uint32_t)w;
            const int b = (int)(mask ? word & mask : word % banks);
            if (++per_bank[b] > *max_per_bank) {
                *max_per_bank = per_bank[b];
                *busiest = b;
            }
        }
    }
}

/* The constant cache's cost of one warp request: its distinct addresses. */
static int ldc_requests(struct bf_access a, const uint32_t addr[BF_WARP], uint32_t active,
                        struct bf_wavefronts *out)
{
    for (int lane = 0; lane < BF_WARP; ++lane) {
        if (!(active >> lane & 1u))
            continue;
        if (addr[lane] % (uint32_t)a.bytes != 0)
            return -1;
        int seen = 0;
        for (int before = 0; before < lane && !seen; ++before)
            seen = (active >> before & 1u) && addr[before] == addr[lane];
        out->wavefronts += !seen;
    }
    out->ideal = out->wavefronts > 0;
    return 0;
}

int bf_bank_wavefronts(const struct bf_bank_rules *r, struct bf_access a,
                       const uint32_t addr[BF_WARP], uint32_t active, struct bf_wavefronts *out)
{
    int busiest;
    return bf_bank_wavefronts_busiest(r, a, addr, active, out, &busiest);
}

int bf_bank_wavefronts_busiest(const struct bf_bank_rules *r, struct bf_access a,
                               const uint32_t addr[BF_WARP], uint32_t active,
                               struct bf_wavefronts *out, int *busiest)
{
    int most_in_a_bank = 0;
    *busiest = -1;
    out->wavefronts = 0;
    out->ideal = 0;
    if (a.bytes != 1 && a.bytes != 2 && a.bytes != 4 && a.bytes != 8 && a.bytes != 16)
        return -1;
    if ((a.op == BF_LDMATRIX || a.op == BF_WGMMA) && a.matrices != 1 && a.matrices != 2 &&
        a.matrices != 4)
        return -1;
    if (a.op == BF_TMA)
        return -1; /* no lanes: bf_site_add_tma */
    if (r->banks > 64 || r->bank_bytes < 1)
        return -1;

    if (a.op == BF_LDC) /* no banks: one distinct address at a time */
        return ldc_requests(a, addr, active, out);

    int used;
    int part = part_lanes(r, a, &used);
    /* A lane touches the bank words from its first byte to its last. */
    int words_per_lane = a.bytes > r->bank_bytes ? a.bytes / r->bank_bytes : 1;
    const uint32_t bank_bytes = (uint32_t)r->bank_bytes, width = (uint32_t)a.bytes;
    for (int first = 0; first < used; first += part) {
        uint32_t first_word[BF_WARP];
        int n = 0;
        for (int lane = first; lane < first + part && lane < used; ++lane) {
            if (!(active >> lane & 1u))
                continue;
            if ((addr[lane] & (width - 1u)) != 0) /* a width is a power of two (checked) */
                return -1;
            first_word[n++] = bank_bytes == 4 ? addr[lane] >> 2 : addr[lane] / bank_bytes;
        }
        if (n == 0)
            continue;
        int most = 0, bank = 0, distinct = 0; /* set by count_part; some gcc cannot tell */
        count_part(r, first_word, n, words_per_lane, &most, &bank, &distinct);
        if (most > most_in_a_bank) {
            most_in_a_bank = most;
            *busiest = bank;
        }
        out->wavefronts += most;
        out->ideal += (distinct + r->banks - 1) / r->banks;
    }
    return 0;
}

/* One request's count into its site (none when no lane was active). */
static void site_count(struct bf_site *s, struct bf_wavefronts w)
{
    if (w.wavefronts == 0)
        return;
    s->requests += 1;
    s->wavefronts += (uint64_t)w.wavefronts;
    s->ideal += (uint64_t)w.ideal;
    if (w.wavefronts > s->worst)
        s->worst = w.wavefronts;
}

/* Keeps the request as the site's worst when it took more than any before. */
static void keep_worst(struct bf_site *s, int wavefronts, const uint32_t addr[BF_WARP],
                       uint32_t active)
{
    if (active == 0 || (s->worst_active != 0 && wavefronts <= s->worst))
        return;
    memcpy(s->worst_addr, addr, sizeof s->worst_addr);
    s->worst_active = active;
}

int bf_site_add(struct bf_site *s, const struct bf_bank_rules *r, const uint32_t addr[BF_WARP],
                uint32_t active)
{
    struct bf_wavefronts w;
    int busiest;
    return bf_site_add_request(s, r, addr, active, &w, &busiest);
}

int bf_site_add_request(struct bf_site *s, const struct bf_bank_rules *r,
                        const uint32_t addr[BF_WARP], uint32_t active, struct bf_wavefronts *w,
                        int *busiest)
{
    if (bf_bank_wavefronts_busiest(r, s->access, addr, active, w, busiest) != 0)
        return -1;
    keep_worst(s, w->wavefronts, addr, active);
    site_count(s, *w);
    return 0;
}

int bf_most_words_per_bank(const uint32_t word[BF_WARP], uint32_t active, uint32_t banks)
{
    /* A word seen in this call carries its number: no table to clear. */
    static uint32_t stamp[BF_STAMPED_WORDS], now;
    uint32_t high = 0;
    for (int lane = 0; lane < BF_WARP; ++lane)
        high |= active >> lane & 1u ? word[lane] : 0u;
    if (high >= BF_STAMPED_WORDS || banks == 0 || (banks & (banks - 1u)) != 0)
        return -1; /* BF_STAMPED_WORDS a power of two: no active word reaches it */
    const uint32_t bank_mask = banks - 1u; /* w % banks, without a division a lane */
    if (++now == 0) {                      /* wrapped: forget every stamp */
        memset(stamp, 0, sizeof stamp);
        now = 1;
    }
    uint8_t per_bank[BF_WARP] = {0};
    int most = 0;
    for (int lane = 0; lane < BF_WARP; ++lane) {
        const uint32_t w = word[lane];
        if (!(active >> lane & 1u) || stamp[w] == now)
            continue; /* idle, or a word a lane before took: served together */
        stamp[w] = now;
        const int k = ++per_bank[w & bank_mask];
        most = k > most ? k : most;
    }
    return most;
}

int bf_site_add_words(struct bf_site *s, const struct bf_bank_rules *r,
                      const uint32_t word[BF_WARP], uint32_t active)
{
    const int fast = r->banks == 32 && r->bank_bytes == 4 && r->part_lanes == 32 &&
                     s->access.bytes == 4 && s->access.op != BF_LDMATRIX;
    /* ldc: the distinct words, as if in one bank */
    const int w = fast ? bf_most_words_per_bank(word, active, s->access.op == BF_LDC ? 1 : 32) : -1;
    if (w < 0) { /* other rules, or words past the stamps: the general count */
        uint32_t addr[BF_WARP];
        for (int lane = 0; lane < BF_WARP; ++lane)
            addr[lane] = 4u * word[lane];
        return bf_site_add(s, r, addr, active);
    }
    if (w == 0)
        return 0; /* no active lane */
    if (s->worst_active == 0 || w > s->worst) {
        uint32_t addr[BF_WARP];
        for (int lane = 0; lane < BF_WARP; ++lane)
            addr[lane] = 4u * word[lane];
        keep_worst(s, w, addr, active);
    }
    s->requests += 1;
    s->wavefronts += (uint64_t)w;
    s->ideal += 1; /* at most 32 distinct words: one wavefront could serve them */
    if (w > s->worst)
        s->worst = w;
    return 0;
}

int bf_ldgsts_wavefronts(const uint64_t global[BF_WARP], const uint32_t shared[BF_WARP],
                         uint32_t active, uint32_t zero_fill, struct bf_wavefronts *out)
{
    out->wavefronts = 0;
    out->ideal = 0;
    int done[BF_WARP] = {0}, lanes = 0;
    for (int l = 0; l < BF_WARP; ++l) {
        if (!(active >> l & 1u))
            continue;
        if (global[l] % 16 != 0 || shared[l] % 16 != 0)
            return -1;
        ++lanes;
    }
    out->ideal = (lanes + 7) / 8;
    if ((active & ~zero_fill) == 0) { /* every lane zero-fills: the ideal, in any layout */
        out->wavefronts = out->ideal;
        return 0;
    }
    for (int l = 0; l < BF_WARP; ++l) {
        if (!(active >> l & 1u) || done[l])
            continue;
        /* Lane l's group: the lanes reading its global line (or, zero-filling,
         * writing its shared line). */
        const int zero = zero_fill >> l & 1u;
        const uint64_t key = zero ? shared[l] / 128u : global[l] / 128u;
        uint32_t segments[BF_WARP], slots = 0; /* slots: the 16-byte chunks of l's shared line */
        int nseg = 0, one_line = 1, slot_of[8] = {0}; /* a global chunk's 32 shared bytes */
        for (int j = l; j < BF_WARP; ++j) {
            if (!(active >> j & 1u) || done[j] || (int)(zero_fill >> j & 1u) != zero ||
                (zero ? shared[j] / 128u : global[j] / 128u) != key)
                continue;
            done[j] = 1;
            one_line &= shared[j] / 128u == shared[l] / 128u;
            slot_of[global[j] % 128u / 16u] = (int)(shared[j] % 128u / 32u);
            slots |= 1u << (shared[j] % 128u / 16u);
            int seen = 0;
            for (int s = 0; s < nseg && !seen; ++s)
                seen = segments[s] == shared[j] / 64u;
            if (!seen)
                segments[nseg++] = shared[j] / 64u;
        }
        /* A whole line whose global 32-byte sectors each stay in one aligned
         * 32 bytes of the shared line (any order) costs 1; split (rotated by
         * an odd number of chunks), 2. */
        int whole = 1;
        for (int m = 0; m < 4; ++m)
            whole &= zero || slot_of[2 * m] == slot_of[2 * m + 1];
        out->wavefronts += one_line && slots == 0xffu ? (whole ? 1 : 2) : nseg;
    }
    return 0;
}

int bf_site_add_ldgsts(struct bf_site *s, const uint64_t global[BF_WARP],
                       const uint32_t shared[BF_WARP], uint32_t active, uint32_t zero_fill)
{
    struct bf_wavefronts w;
    if (bf_ldgsts_wavefronts(global, shared, active, zero_fill, &w) != 0)
        return -1;
    keep_worst(s, w.wavefronts, shared, active);
    site_count(s, w);
    return 0;
}

int bf_site_add_matrices(struct bf_site *s, const struct bf_bank_rules *r, const uint32_t *addr,
                         int matrices)
{
    struct bf_wavefronts sum = {0, 0};
    uint32_t first[BF_WARP] = {0}, first_active = 0;
    for (int m = 0; m < matrices; m += 4) { /* four matrices (32 addresses) at a time */
        const int now = matrices - m < 4 ? matrices - m : 4;
        struct bf_access a = s->access;
        a.matrices = now == 3 ? 4 : now; /* 3: as 4 with the last matrix idle */
        uint32_t lanes[BF_WARP] = {0};
        memcpy(lanes, addr + 8 * m, (size_t)(8 * now) * sizeof *lanes);
        const uint32_t active = now == 4 ? ~0u : (1u << (8 * now)) - 1u;
        struct bf_wavefronts w;
        if (bf_bank_wavefronts(r, a, lanes, active, &w) != 0)
            return -1;
        sum.wavefronts += w.wavefronts;
        sum.ideal += w.ideal;
        if (m == 0) {
            memcpy(first, lanes, sizeof first);
            first_active = active;
        }
    }
    keep_worst(s, sum.wavefronts, first, first_active);
    site_count(s, sum);
    return 0;
}

void bf_site_add_tma(struct bf_site *s, uint64_t bytes)
{
    const int lines = (int)((bytes + 127u) / 128u);
    site_count(s, (struct bf_wavefronts){lines, lines});
}

void bf_site_merge(struct bf_site *s, const struct bf_site *o, uint64_t count)
{
    s->requests += o->requests * count;
    s->wavefronts += o->wavefronts * count;
    s->ideal += o->ideal * count;
    if (count > 0 && o->worst_active != 0 && (s->worst_active == 0 || o->worst > s->worst)) {
        memcpy(s->worst_addr, o->worst_addr, sizeof s->worst_addr);
        s->worst_active = o->worst_active;
    }
    if (count > 0 && o->worst > s->worst)
        s->worst = o->worst;
}

enum bf_op_class bf_op_class(enum bf_op op)
{
    switch (op) {
    case BF_STORE:
    case BF_CP_ASYNC:
    case BF_ST_ASYNC:
        return BF_CLASS_ST;
    case BF_RED:
        return BF_CLASS_ATOM;
    case BF_LDC:
        return BF_CLASS_LDC;
    case BF_TMA:
        return BF_CLASS_NONE;
    case BF_LOAD:
    case BF_LDMATRIX:
    case BF_WGMMA:
        break;
    }
    return BF_CLASS_LD;
}

struct bf_launch_ways bf_sites_ways(const struct bf_site *sites, int n)
{
    uint64_t wf[BF_CLASS_NONE] = {0}, ideal[BF_CLASS_NONE] = {0};
    for (int i = 0; i < n; ++i) {
        enum bf_op_class k = bf_op_class(sites[i].access.op);
        if (k == BF_CLASS_NONE)
            continue;
        wf[k] += sites[i].wavefronts;
        ideal[k] += sites[i].ideal;
    }
    double ways[BF_CLASS_NONE];
    for (int k = 0; k < BF_CLASS_NONE; ++k)
        ways[k] = ideal[k] ? (double)wf[k] / (double)ideal[k] : 0;
    struct bf_launch_ways w = {.ld = ways[BF_CLASS_LD],
                               .st = ways[BF_CLASS_ST],
                               .atom = ways[BF_CLASS_ATOM],
                               .ldc = ways[BF_CLASS_LDC],
                               .ld_wavefronts = wf[BF_CLASS_LD],
                               .st_wavefronts = wf[BF_CLASS_ST],
                               .atom_wavefronts = wf[BF_CLASS_ATOM]};
    return w;
}
