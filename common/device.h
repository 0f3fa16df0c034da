/* Finding the GPU and describing it for reports. */
#ifndef BANKFREE_DEVICE_H
#define BANKFREE_DEVICE_H

#include <stddef.h>

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
};

/* Opens device 0. Returns 0 when it is ready; BF_EXIT_NO_DEVICE after printing
 * "no CUDA device" when there is none; BF_EXIT_FAIL after one line saying so
 * when this build has no code for the GPU. */
int bf_device_open(struct bf_device *dev);

/* The SM clock right now in MHz, read through NVML if the driver has it, else -1. */
int bf_sm_clock_now_mhz(const struct bf_device *dev);

/* The architectures this build has GPU code for, as CMake was given them. */
const char *bf_built_archs(void);

#ifdef __cplusplus
}
#endif

#endif
