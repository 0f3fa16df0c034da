#include "gemm_tile/gemm_tile_model.h"

void gemm_tile_model_sites(struct bf_site sites[GEMM_TILE_SITES])
{
    sites[GEMM_TILE_SITE_COPY_A] = bf_site_new("cp.async 16 B to A tile", bf_cp_async(16));
    sites[GEMM_TILE_SITE_COPY_B] = bf_site_new("cp.async 16 B to B tile", bf_cp_async(16));
    sites[GEMM_TILE_SITE_LDSM_A] = bf_site_new("ldmatrix.x4 A fragments", bf_ldmatrix(4));
    sites[GEMM_TILE_SITE_LDSM_B] = bf_site_new("ldmatrix.x4 B fragments", bf_ldmatrix(4));
}

/* One warp's copies into one tile: lane l of copy `copy` reads chunk
 * gemm_tile_copy_chunk of row gemm_tile_copy_row (of A, or of B's columns),
 * as copy_tile does, and writes it at the layout's offset. */
static void add_copies(enum gemm_tile_variant variant, uint32_t base, int copies, int warp,
                       int64_t first, int64_t rows, const struct gemm_tile_block_at *at,
                       struct bf_site *site)
{
    uint64_t global[BF_WARP];
    uint32_t shared[BF_WARP];
    for (int copy = 0; copy < copies; ++copy) {
        uint32_t zero = 0;
        for (int lane = 0; lane < BF_WARP; ++lane) {
            const int t = warp * BF_WARP + lane, row = gemm_tile_copy_row(at->bn, t, copy);
            const int64_t kc = at->kt * GEMM_TILE_BK + 8 * gemm_tile_copy_chunk(at->bn, t, copy);
            shared[lane] =
                base + gemm_tile_copy_offset(variant, at->bn, t, 0) +
                (uint32_t)copy * gemm_tile_copy_stride(variant, at->bn); /* as the kernel */
            global[lane] = 2u * (uint64_t)((first + row) * at->k + kc);
            if (first + row >= rows || kc >= at->k)
                zero |= 1u << lane;
        }
        bf_site_add_ldgsts(site, global, shared, ~0u, zero);
    }
}

void gemm_tile_model_ktile(enum gemm_tile_variant variant, int stage,
                           const struct gemm_tile_block_at *at, const struct bf_bank_rules *rules,
                           struct bf_site sites[GEMM_TILE_SITES])
{
    const int bn = at->bn;
    const uint32_t a_base = gemm_tile_a_base(variant, bn, stage),
                   b_base = gemm_tile_b_base(variant, bn, stage);
    uint32_t addr[BF_WARP];
    for (int warp = 0; warp < GEMM_TILE_THREADS_OF(bn) / BF_WARP; ++warp) {
        add_copies(variant, a_base, GEMM_TILE_COPIES_A_OF(bn), warp, at->row0, at->m, at,
                   &sites[GEMM_TILE_SITE_COPY_A]);
        add_copies(variant, b_base, GEMM_TILE_COPIES_B_OF(bn), warp, at->col0, at->n, at,
                   &sites[GEMM_TILE_SITE_COPY_B]);
        /* as the kernel: each lane's offset for tile 0 at step 0, stepped
         * to kk, then a tile stride a tile */
        const uint32_t tile = gemm_tile_ldmatrix_tile_stride(variant);
        for (int kk = 0; kk < GEMM_TILE_KK; ++kk) {
            for (int mi = 0; mi < GEMM_TILE_MI; ++mi) {
                for (int lane = 0; lane < BF_WARP; ++lane)
                    addr[lane] =
                        a_base + (uint32_t)mi * tile +
                        gemm_tile_ldmatrix_step(
                            variant, gemm_tile_ldmatrix_a(variant, bn, warp, 0, 0, lane), kk);
                bf_site_add(&sites[GEMM_TILE_SITE_LDSM_A], rules, addr, ~0u);
            }
            for (int nj = 0; nj < GEMM_TILE_NJ; ++nj) {
                for (int lane = 0; lane < BF_WARP; ++lane)
                    addr[lane] =
                        b_base + (uint32_t)nj * tile +
                        gemm_tile_ldmatrix_step(
                            variant, gemm_tile_ldmatrix_b(variant, bn, warp, 0, 0, lane), kk);
                bf_site_add(&sites[GEMM_TILE_SITE_LDSM_B], rules, addr, ~0u);
            }
        }
    }
}

/* Blocks differ only at the edges (the last block row and column copy zeros
 * past m and n), K tiles only in the last (zeros past k): of n tiles along
 * one direction, tile 0 stands for the n - 1 before the last, and the last
 * for itself. kind_next walks the kinds (0, then n - 1), kind_count says how
 * many tiles one stands for. */
static int64_t kind_next(int64_t i, int64_t n)
{
    return i == 0 && n > 2 ? n - 1 : i + 1;
}
static uint64_t kind_count(int64_t i, int64_t n)
{
    return i < n - 1 ? (uint64_t)(n - 1) : 1u;
}

static void wgmma_model_sites(int bn, struct bf_site sites[GEMM_TILE_WGMMA_SITES])
{
    sites[GEMM_TILE_SITE_TMA_A] = bf_site_new("TMA box to A tile", bf_tma());
    sites[GEMM_TILE_SITE_TMA_B] = bf_site_new("TMA box to B tile", bf_tma());
    sites[GEMM_TILE_SITE_WGMMA_A] = bf_site_new("wgmma A operand (64 x k16)", bf_wgmma());
    sites[GEMM_TILE_SITE_WGMMA_B] =
        bf_site_new(bn == GEMM_TILE_WGMMA_BN        ? "wgmma B operand (256 x k16)"
                    : bn == GEMM_TILE_WGMMA_BN_176  ? "wgmma B operand (176 x k16: 176 tile)"
                    : bn == GEMM_TILE_WGMMA_BN_168  ? "wgmma B operand (168 x k16: 168 tile)"
                    : bn == GEMM_TILE_WGMMA_BN_MID  ? "wgmma B operand (128 x k16: middle tile)"
                    : bn == GEMM_TILE_WGMMA_BN_96   ? "wgmma B operand (96 x k16: 96 tile)"
                    : bn == GEMM_TILE_WGMMA_BN_THIN ? "wgmma B operand (32 x k16: thin tile)"
                                                    : "wgmma B operand (64 x k16: narrow tile)",
                    bf_wgmma());
    sites[GEMM_TILE_SITE_C_STAGE] = bf_site_new("C pairs to the staging buffer", bf_st(8));
    sites[GEMM_TILE_SITE_C_TMA] = bf_site_new("TMA store of a C box", bf_tma());
    sites[GEMM_TILE_SITE_SPLIT_STORE] =
        bf_site_new("split K: partials pushed to the other block", bf_st_async(16));
    sites[GEMM_TILE_SITE_SPLIT_READ] =
        bf_site_new("split K: the other block's partials read", bf_ld(16));
}

/* One wgmma's read of an operand: `rows` rows, two 16-byte chunks a row, as
 * 8-row core matrices at the addresses the descriptor gives. */
static void add_operand(uint64_t desc, int rows, const struct bf_bank_rules *rules,
                        struct bf_site *site)
{
    uint32_t addr[GEMM_TILE_WGMMA_BN * 2];
    int n = 0;
    for (int group = 0; group < rows / 8; ++group)
        for (int half = 0; half < 2; ++half)
            for (int r = 0; r < 8; ++r)
                addr[n++] = gemm_tile_wgmma_read(desc, 8 * group + r, half);
    bf_site_add_matrices(site, rules, addr, n / 8);
}

void gemm_tile_model_wgmma_ktile(enum gemm_tile_variant variant, int64_t m, int bn, int stage,
                                 const struct bf_bank_rules *rules,
                                 struct bf_site sites[GEMM_TILE_WGMMA_SITES])
{
    const uint32_t a = gemm_tile_wgmma_a_base(stage, bn), b = gemm_tile_wgmma_b_base(stage, bn);
    const int slabs = gemm_tile_wgmma_slabs(variant);
    const uint32_t w = gemm_tile_wgmma_slab_bytes(variant);
    for (int s = 0; s < slabs; ++s) { /* as produce(): one box a slab of each */
        /* each box into every block that shares it */
        bf_site_add_tma(&sites[GEMM_TILE_SITE_TMA_A], (uint64_t)gemm_tile_wgmma_a_load_rows(m, bn) *
                                                          w * (uint64_t)gemm_tile_wgmma_cn(m, bn));
        bf_site_add_tma(&sites[GEMM_TILE_SITE_TMA_B], (uint64_t)gemm_tile_wgmma_b_box_rows(m, bn) *
                                                          w * (uint64_t)gemm_tile_wgmma_cm(m, bn));
    }
    for (int consumer = 0; consumer < GEMM_TILE_WGMMA_CONSUMERS; ++consumer)
        for (int kk = 0; kk < GEMM_TILE_WGMMA_KK; ++kk) { /* as consume() */
            const int row0 = GEMM_TILE_WGMMA_M * consumer;
            add_operand(gemm_tile_wgmma_desc(
                            variant, GEMM_TILE_WGMMA_BM,
                            a + gemm_tile_wgmma_step_offset(variant, GEMM_TILE_WGMMA_BM, row0, kk)),
                        GEMM_TILE_WGMMA_M, rules, &sites[GEMM_TILE_SITE_WGMMA_A]);
            add_operand(gemm_tile_wgmma_desc(variant, bn,
                                             b + gemm_tile_wgmma_step_offset(variant, bn, 0, kk)),
                        bn, rules, &sites[GEMM_TILE_SITE_WGMMA_B]);
        }
}

void gemm_tile_model_wgmma_epilogue(int out_bytes, int bn, const struct bf_bank_rules *rules,
                                    struct bf_site sites[GEMM_TILE_WGMMA_SITES])
{
    const int tiles = 128 / (8 * out_bytes); /* n8 tiles a box */
    uint32_t addr[BF_WARP];
    sites[GEMM_TILE_SITE_C_STAGE].access = bf_st(2 * out_bytes);
    for (int consumer = 0; consumer < GEMM_TILE_WGMMA_CONSUMERS; ++consumer)
        for (int box = 0; box < bn / 8 / tiles; ++box) { /* as store_staged() */
            const uint32_t buffer = gemm_tile_wgmma_c_base(consumer, box % 2);
            for (int warp = 0; warp < 4; ++warp)
                for (int step = 0; step < 2 * tiles; ++step) {
                    for (int lane = 0; lane < BF_WARP; ++lane) {
                        const int t = 32 * warp + lane, row = 16 * warp + lane / 4;
                        int j = step / 2, half = step % 2; /* fp16: in order */
                        if (out_bytes == 4)
                            gemm_tile_wgmma_c_pair(step, row % 2, &j, &half);
                        const uint32_t at = 2u * (uint32_t)out_bytes * (uint32_t)(t % 4) +
                                            8u * (uint32_t)out_bytes * (uint32_t)j;
                        addr[lane] = buffer + gemm_tile_wgmma_c_offset(row + 8 * half, at);
                    }
                    bf_site_add(&sites[GEMM_TILE_SITE_C_STAGE], rules, addr, ~0u);
                }
            bf_site_add_tma(&sites[GEMM_TILE_SITE_C_TMA], GEMM_TILE_WGMMA_C_BYTES);
        }
}

void gemm_tile_model_wgmma_split(const struct bf_bank_rules *rules,
                                 struct bf_site sites[GEMM_TILE_WGMMA_SITES])
{
    for (int consumer = 0; consumer < GEMM_TILE_WGMMA_CONSUMERS; ++consumer)
        for (int warp = 0; warp < 4; ++warp)
            for (int i = 0; i < GEMM_TILE_WGMMA_BN_NARROW / 16; ++i) {
                uint32_t addr[BF_WARP];
                for (int lane = 0; lane < BF_WARP; ++lane)
                    addr[lane] = gemm_tile_wgmma_partial(consumer, i, 32 * warp + lane);
                /* the other block's buffer, at the offsets it reads */
                bf_site_add(&sites[GEMM_TILE_SITE_SPLIT_STORE], rules, addr, ~0u);
                bf_site_add(&sites[GEMM_TILE_SITE_SPLIT_READ], rules, addr, ~0u);
            }
}

/* Adds one launch over `cols` of C's n columns in tiles bn wide: one K
 * tile and one epilogue replayed, counted as often as its blocks run them. */
static void wgmma_model_columns(enum gemm_tile_variant variant, int64_t m, int64_t n, int64_t cols,
                                int64_t k, int bn, int out_bytes, const struct bf_bank_rules *rules,
                                struct bf_site sites[GEMM_TILE_WGMMA_SITES])
{
    struct bf_site once[GEMM_TILE_WGMMA_SITES];
    wgmma_model_sites(bn, once);
    /* Stages start on 1024-byte boundaries: a K tile's requests do not depend on its stage. */
    gemm_tile_model_wgmma_ktile(variant, m, bn, 0, rules, once);
    /* Split K (the narrow tile's, stored from registers) or the staged epilogue. */
    const int split = gemm_tile_wgmma_split(m, cols, k, rules->sms);
    if (split > 1)
        gemm_tile_model_wgmma_split(rules, once);
    else if (gemm_tile_wgmma_staged(0, n, out_bytes, bn)) /* C from cudaMalloc: on 16 bytes */
        gemm_tile_model_wgmma_epilogue(out_bytes, bn, rules, once);
    const uint64_t tiles = (uint64_t)gemm_tile_wgmma_cluster_tiles(
                               gemm_tile_wgmma_tiles_m(m), gemm_tile_wgmma_tiles_n(cols, bn),
                               gemm_tile_wgmma_cm(m, bn), gemm_tile_wgmma_cn(m, bn)) *
                           (uint64_t)gemm_tile_wgmma_cluster(m, bn);
    for (int s = 0; s < GEMM_TILE_WGMMA_SITES; ++s) {
        /* K tiles: every tile's, whichever block of its cluster takes each. */
        const uint64_t times = s == GEMM_TILE_SITE_C_STAGE || s == GEMM_TILE_SITE_C_TMA ? tiles
                               : s == GEMM_TILE_SITE_SPLIT_STORE || s == GEMM_TILE_SITE_SPLIT_READ
                                   ? tiles * (uint64_t)split
                                   : tiles * (uint64_t)gemm_tile_wgmma_tiles_k(k);
        bf_site_merge(&sites[s], &once[s], times);
    }
}

/* The B operand's site where two launches take tiles of two widths (the
 * first launch's is wide or middle: gemm_tile_wgmma_first_columns). */
static const char *wgmma_b_two_launches(int first_bn, int rest_bn)
{
    if (first_bn == GEMM_TILE_WGMMA_BN)
        return rest_bn == GEMM_TILE_WGMMA_BN_176
                   ? "wgmma B operand (256 then 176 x k16: two launches)"
               : rest_bn == GEMM_TILE_WGMMA_BN_168
                   ? "wgmma B operand (256 then 168 x k16: two launches)"
               : rest_bn == GEMM_TILE_WGMMA_BN_MID
                   ? "wgmma B operand (256 then 128 x k16: two launches)"
               : rest_bn == GEMM_TILE_WGMMA_BN_96
                   ? "wgmma B operand (256 then 96 x k16: two launches)"
                   : "wgmma B operand (256 then 64 x k16: two launches)";
    return rest_bn == GEMM_TILE_WGMMA_BN ? "wgmma B operand (128 then 256 x k16: two launches)"
           : rest_bn == GEMM_TILE_WGMMA_BN_176
               ? "wgmma B operand (128 then 176 x k16: two launches)"
           : rest_bn == GEMM_TILE_WGMMA_BN_168
               ? "wgmma B operand (128 then 168 x k16: two launches)"
           : rest_bn == GEMM_TILE_WGMMA_BN_96 ? "wgmma B operand (128 then 96 x k16: two launches)"
                                              : "wgmma B operand (128 then 64 x k16: two launches)";
}

static int wgmma_model_launch(enum gemm_tile_variant variant, int64_t m, int64_t n, int64_t k,
                              int out_bytes, const struct bf_bank_rules *rules,
                              struct bf_site sites[BF_MAX_SITES])
{
    /* The tiles the launcher picks on this GPU (the rules' SMs): one
     * launch, or whole rounds of first_bn over n1 columns and the rest. */
    int first_bn = 0;
    const int64_t n1 = gemm_tile_wgmma_plan(m, n, k, rules->sms, &first_bn);
    wgmma_model_sites(first_bn, sites);
    sites[GEMM_TILE_SITE_C_STAGE].access = bf_st(2 * out_bytes);
    if (m < 1 || n < 1 || k < 1 || k % 8 != 0 || rules->cc != 90)
        return GEMM_TILE_WGMMA_SITES; /* refused, or not a Hopper GPU: no launch */
    wgmma_model_columns(variant, m, n, n1 > 0 ? n1 : n, k, first_bn, out_bytes, rules, sites);
    if (n1 > 0) {
        const int rest_bn = gemm_tile_wgmma_bn(m, n - n1, rules->sms);
        wgmma_model_columns(variant, m, n, n - n1, k, rest_bn, out_bytes, rules, sites);
        if (rest_bn != first_bn) /* the first launch's tile is wide or middle */
            sites[GEMM_TILE_SITE_WGMMA_B].name = wgmma_b_two_launches(first_bn, rest_bn);
    }
    return GEMM_TILE_WGMMA_SITES;
}

int gemm_tile_model_launch(enum gemm_tile_variant variant, int64_t m, int64_t n, int64_t k,
                           int out_bytes, const struct bf_bank_rules *rules,
                           struct bf_site sites[BF_MAX_SITES])
{
    if (variant >= GEMM_TILE_MMA_SYNC_VARIANTS)
        return wgmma_model_launch(variant, m, n, k, out_bytes, rules, sites);
    gemm_tile_model_sites(sites);
    if (m < 1 || n < 1 || k < 1 || k % 8 != 0)
        return GEMM_TILE_SITES; /* refused: no launch */
    /* the tile the launcher picks on this GPU */
    const int bn =
        gemm_tile_bn_fitting(variant, m, n, rules->sms, bf_sm_limits_of(rules->cc).block_shared);
    if (bn == 0 || rules->cc < 80)
        return GEMM_TILE_SITES; /* this GPU cannot run it: no launch */
    const int64_t tiles_m = gemm_tile_tiles_m(m), tiles_n = gemm_tile_tiles_n(n, bn),
                  ktiles = gemm_tile_tiles_k(k);
    /* Stages start on the same bank: a K tile's requests do not depend on its stage. */
    for (int64_t by = 0; by < tiles_m; by = kind_next(by, tiles_m))
        for (int64_t bx = 0; bx < tiles_n; bx = kind_next(bx, tiles_n))
            for (int64_t kt = 0; kt < ktiles; kt = kind_next(kt, ktiles)) {
                struct bf_site tile[GEMM_TILE_SITES];
                gemm_tile_model_sites(tile);
                const struct gemm_tile_block_at at = {m, n, k, by * GEMM_TILE_BM, bx * bn, kt, bn};
                gemm_tile_model_ktile(variant, gemm_tile_stage_of(kt), &at, rules, tile);
                const uint64_t times =
                    kind_count(by, tiles_m) * kind_count(bx, tiles_n) * kind_count(kt, ktiles);
                for (int s = 0; s < GEMM_TILE_SITES; ++s)
                    bf_site_merge(&sites[s], &tile[s], times);
            }
    return GEMM_TILE_SITES;
}
