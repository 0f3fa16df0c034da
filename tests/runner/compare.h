/* bankfree compare A.json B.json: two bench runs side by side. */
#ifndef BANKFREE_COMPARE_H
#define BANKFREE_COMPARE_H

#include "common/report.h"

/* Reads the two runs (`bankfree bench --format json`), matches their rows by
 * family, type, size and variant, and prints per row A's and B's median
 * times, the change and its verdict. Returns 0 when no row got slower beyond
 * the noise, 1 when one did, 2 (after one line on stderr) when a file cannot
 * be read as a bench run. */
int bf_compare(const char *path_a, const char *path_b, enum bf_format format, const char *cmdline);

#endif
