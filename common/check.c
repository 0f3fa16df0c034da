#include "common/check.h"

#include <stdio.h>
#include <stdlib.h>

void bf_check_cuda(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "bankfree: %s:%d: %s: %s: %s\n", file, line, call, cudaGetErrorName(err),
            cudaGetErrorString(err));
    exit(1);
}

void bf_check_status(int ok, const char *call, const char *why, const char *file, int line)
{
    if (ok)
        return;
    fprintf(stderr, "bankfree: %s:%d: %s: %s\n", file, line, call, why);
    exit(1);
}
