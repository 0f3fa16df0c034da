/* The families the runner knows: families.c, made by tests/CMakeLists.txt
 * from the families bankfree_add_family registered. */
#ifndef BANKFREE_FAMILIES_H
#define BANKFREE_FAMILIES_H

#include "common/registry.h"

#define BF_MAX_FAMILIES 8

extern const struct bf_family *const bf_families[];
extern const int bf_nfamilies;

#endif
