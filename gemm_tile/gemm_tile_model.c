#include "gemm_tile/gemm_tile_model.h"

void gemm_tile_model_sites(struct bf_site sites[GEMM_TILE_SITES])
{
    sites[GEMM_TILE_SITE_COPY_A] =
        (struct bf_site){"cp.async 16 B to A tile", bf_cp_async(16), 0, 0, 0, 0};
    sites[GEMM_TILE_SITE_COPY_B] =
        (struct bf_site){"cp.async 16 B to B tile", bf_cp_async(16), 0, 0, 0, 0};
    sites[GEMM_TILE_SITE_LDSM_A] =
        (struct bf_site){"ldmatrix.x4 A fragments", bf_ldmatrix(4), 0, 0, 0, 0};
    sites[GEMM_TILE_SITE_LDSM_B] =
        (struct bf_site){"ldmatrix.x4 B fragments", bf_ldmatrix(4), 0, 0, 0, 0};
}

void gemm_tile_model_ktile(enum gemm_tile_variant variant, int stage,
                           const struct bf_bank_rules *rules, struct bf_site sites[GEMM_TILE_SITES])
{
    const uint32_t a_base = gemm_tile_a_base(variant, stage),
                   b_base = gemm_tile_b_base(variant, stage);
    uint32_t addr[BF_WARP];
    for (int warp = 0; warp < GEMM_TILE_THREADS / BF_WARP; ++warp) {
        for (int copy = 0; copy < GEMM_TILE_COPIES; ++copy) {
            for (int lane = 0; lane < BF_WARP; ++lane)
                addr[lane] = a_base + gemm_tile_copy_offset(variant, warp * BF_WARP + lane, copy);
            bf_site_add(&sites[GEMM_TILE_SITE_COPY_A], rules, addr, ~0u);
            for (int lane = 0; lane < BF_WARP; ++lane)
                addr[lane] = b_base + gemm_tile_copy_offset(variant, warp * BF_WARP + lane, copy);
            bf_site_add(&sites[GEMM_TILE_SITE_COPY_B], rules, addr, ~0u);
        }
        for (int kk = 0; kk < GEMM_TILE_KK; ++kk) {
            for (int mi = 0; mi < GEMM_TILE_MI; ++mi) {
                for (int lane = 0; lane < BF_WARP; ++lane)
                    addr[lane] = a_base + gemm_tile_ldmatrix_a(variant, warp, mi, kk, lane);
                bf_site_add(&sites[GEMM_TILE_SITE_LDSM_A], rules, addr, ~0u);
            }
            for (int nj = 0; nj < GEMM_TILE_NJ; ++nj) {
                for (int lane = 0; lane < BF_WARP; ++lane)
                    addr[lane] = b_base + gemm_tile_ldmatrix_b(variant, warp, nj, kk, lane);
                bf_site_add(&sites[GEMM_TILE_SITE_LDSM_B], rules, addr, ~0u);
            }
        }
    }
}

int gemm_tile_model_launch(enum gemm_tile_variant variant, int64_t m, int64_t n, int64_t k,
                           const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    gemm_tile_model_sites(sites);
    if (m < 1 || n < 1 || k < 1 || k % 8 != 0)
        return GEMM_TILE_SITES; /* refused: no launch */
    struct bf_site block[GEMM_TILE_SITES];
    gemm_tile_model_sites(block);
    const int64_t ktiles = gemm_tile_tiles_k(k);
    for (int64_t kt = 0; kt < ktiles; ++kt)
        gemm_tile_model_ktile(variant, gemm_tile_stage_of(kt), rules, block);
    const uint64_t blocks = (uint64_t)(gemm_tile_tiles_m(m) * gemm_tile_tiles_n(n));
    for (int s = 0; s < GEMM_TILE_SITES; ++s)
        bf_site_merge(&sites[s], &block[s], blocks);
    return GEMM_TILE_SITES;
}
