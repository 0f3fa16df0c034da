/* A problem size, as the runner parses it and a family's model replays it:
 * "8192x8192" is {2, {8192, 8192}}. A leaf header: the models include it
 * without the runner's. */
#ifndef BANKFREE_SIZE_H
#define BANKFREE_SIZE_H

#include <stdint.h>

#define BF_MAX_DIMS 3

struct bf_size {
    int ndims;
    int64_t dim[BF_MAX_DIMS];
};

#endif
