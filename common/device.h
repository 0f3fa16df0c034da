/* Finding the GPU and describing it for reports. */
#ifndef BANKFREE_DEVICE_H
#define BANKFREE_DEVICE_H

#include <stddef.h>

#include "common/sm_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BF_EXIT_FAIL      1
#define BF_EXIT_USAGE     2
#define BF_EXIT_NO_DEVICE 77 /* CTest's skip code */

struct bf_device {
    int id;
    char name[256];
    int cc_major, cc_minor;
    int sms;
    size_t l2_bytes;
    size_t global_bytes;
    int runtime_version, driver_version; /* 13000 = 13.0 */
    int max_sm_clock_mhz;
    struct bf_sm_limits sm; /* one SM's limits, from the driver */
};

/* Opens CUDA device `id`, or the current device when id < 0. Returns 0 when
 * it is ready; after one line on stderr, BF_EXIT_NO_DEVICE when the machine
 * has no CUDA GPU (or no NVIDIA driver), BF_EXIT_USAGE when there is no device
 * `id`, BF_EXIT_FAIL when the driver is too old for this build's runtime or
 * the build has no code for the GPU. */
int bf_device_open(struct bf_device *dev, int id);

/* Quietly: fills dev's id, compute capability (cc_major, cc_minor) and SM limits for
 * CUDA device `id` (the current one when id < 0) and returns 0; without
 * such a device (or a driver), returns -1 and prints nothing. For what
 * needs no GPU but says more with one (`bankfree list`). */
int bf_device_peek(struct bf_device *dev, int id);

/* GPU memory free for a run now, in bytes: what the driver says is free, and
 * at most `limit` when limit > 0 (a smaller GPU, simulated). */
double bf_device_free_bytes(double limit);

/* The SM clock right now in MHz, read through NVML if the driver has it, else -1. */
int bf_sm_clock_now_mhz(const struct bf_device *dev);

/* The NVIDIA driver's version, "580.159.04", through NVML; NULL if unknown. */
const char *bf_driver_version(const struct bf_device *dev, char *buf, size_t len);

/* The architectures this build has GPU code for, as CMake was given them. */
const char *bf_built_archs(void);

#ifdef __cplusplus
}
#endif

#endif
