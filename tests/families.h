/* The families the runner knows. To add one: define its struct bf_family in
 * <family>/<family>_suite.c, declare it here, list it in families.c. */
#ifndef BANKFREE_FAMILIES_H
#define BANKFREE_FAMILIES_H

#include "common/registry.h"

#define BF_MAX_FAMILIES 8

extern const struct bf_family transpose_family;
extern const struct bf_family reduction_family;

extern const struct bf_family *const bf_families[];
extern const int bf_nfamilies;

#endif
