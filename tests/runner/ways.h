/* `bankfree ways EXPR`: the bank model on a reader's own index expression,
 * and what it shares with `bankfree model --lanes`: a site's worst request as
 * rows a lane, and as a picture. */
#ifndef BANKFREE_WAYS_H
#define BANKFREE_WAYS_H

#include <stdio.h>

#include "common/bank_model.h"
#include "common/report.h"
#include "tests/runner/cli.h"

/* The columns bf_lane_cells fills, in order. */
#define BF_LANE_COLUMNS                                                                            \
    "site", "op", "bytes", "worst", "lane", "part", "active", "address", "bank", "banks"

/* One lane of the site's worst request, from the site column on: its part
 * (the lanes served together), its byte address, its first bank and how many
 * banks it spans (a 16-byte lane, 4 of 4-byte banks). */
void bf_lane_cells(struct bf_table *t, const struct bf_site *site,
                   const struct bf_bank_rules *rules, int lane);

/* The site's worst request as text: banks across, lanes down, in each bank's
 * column the distinct words of a part lettered A, B, C... in lane order. */
void bf_lanes_picture(FILE *f, const struct bf_site *site, const struct bf_bank_rules *rules);

/* The rules as the model's meta line says them: what the rules have (the
 * ldmatrix and wgmma parts only for sm_90's), and with `launches` the GPU
 * the launches are laid out for. */
void bf_rules_meta(struct bf_table *t, const struct bf_bank_rules *rules, int launches);

/* Runs `bankfree ways`; returns the exit code (2 after one line of why, two
 * for a syntax error: the line and a caret under the place). */
int bf_ways(const struct bf_options *o, const char *cmdline);

#endif
