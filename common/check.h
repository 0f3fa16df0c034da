/* CUDA error handling for the runner and the tests: a failed call prints
 * "file:line: call: error name: error string" and ends the program. (The
 * kernel library itself returns cudaError_t and never exits.) */
#ifndef BANKFREE_CHECK_H
#define BANKFREE_CHECK_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BF_CHECK(call) bf_check_cuda((call), #call, __FILE__, __LINE__)

/* After every launch: the error of the launch itself. */
#define BF_CHECK_LAUNCH() bf_check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/* For libraries with their own status type (cuBLAS, CUB): ok or not, and why. */
#define BF_CHECK_STATUS(ok, call, why) bf_check_status((ok), call, why, __FILE__, __LINE__)

/* Writes one line of why (printf-style) and returns -1: how the parsers and
 * the counters say what went wrong. */
int bf_fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void bf_check_cuda(cudaError_t err, const char *call, const char *file, int line);
void bf_check_status(int ok, const char *call, const char *why, const char *file, int line);

#ifdef __cplusplus
}
#endif

#endif
