#include "tests/families.h"

const struct bf_family *const bf_families[] = {&transpose_family, &reduction_family};
const int bf_nfamilies = sizeof bf_families / sizeof *bf_families;
