#include "common/check.h"

#include <stdarg.h>
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

int bf_fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}
