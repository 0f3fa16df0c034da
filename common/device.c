#include "common/device.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/check.h"
#include "common/sm_limits.h" /* again, after the runtime: bf_sm_limits_query */

#ifndef BF_CUDA_ARCHS
#define BF_CUDA_ARCHS "unknown"
#endif

cudaError_t bf_probe_kernel_image(void); /* device_probe.cu */

const char *bf_built_archs(void)
{
    return BF_CUDA_ARCHS;
}

/* Why there is no GPU to use, in words a user can act on. */
static int no_gpu(cudaError_t err)
{
    int driver = 0;
    cudaDriverGetVersion(&driver);
    if (driver == 0) {
        fputs("bankfree: no CUDA GPU: this machine has no NVIDIA driver (list, model and ways "
              "work without one)\n",
              stderr);
        return BF_EXIT_NO_DEVICE;
    }
    if (err == cudaErrorInsufficientDriver) {
        int runtime = 0;
        cudaRuntimeGetVersion(&runtime);
        fprintf(stderr,
                "bankfree: the NVIDIA driver supports CUDA %d.%d, older than this build's CUDA "
                "runtime %d.%d: update the driver\n",
                driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
        return BF_EXIT_FAIL;
    }
    fprintf(stderr, "bankfree: no CUDA GPU: the driver finds none (%s)\n",
            err == cudaSuccess ? "0 devices" : cudaGetErrorString(err));
    return BF_EXIT_NO_DEVICE;
}

int bf_device_peek(struct bf_device *d, int id)
{
    int count = 0;
    memset(d, 0, sizeof *d);
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 || id >= count ||
        (id < 0 && cudaGetDevice(&id) != cudaSuccess) ||
        cudaDeviceGetAttribute(&d->cc_major, cudaDevAttrComputeCapabilityMajor, id) !=
            cudaSuccess ||
        cudaDeviceGetAttribute(&d->cc_minor, cudaDevAttrComputeCapabilityMinor, id) !=
            cudaSuccess ||
        bf_sm_limits_query(id, &d->sm) != cudaSuccess) {
        cudaGetLastError(); /* leave no error behind */
        return -1;
    }
    d->id = id;
    return 0;
}

int bf_device_open(struct bf_device *d, int id)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0)
        return no_gpu(err);
    if (id >= count) {
        fprintf(stderr, "bankfree: --device %d: this machine has %d CUDA device%s (0 to %d)\n", id,
                count, count == 1 ? "" : "s", count - 1);
        return BF_EXIT_USAGE;
    }
    memset(d, 0, sizeof *d);
    if (id < 0)
        BF_CHECK(cudaGetDevice(&id));
    d->id = id;
    struct cudaDeviceProp p;
    BF_CHECK(cudaSetDevice(d->id));
    BF_CHECK(cudaGetDeviceProperties(&p, d->id));
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sms = p.multiProcessorCount;
    BF_CHECK(bf_sm_limits_query(d->id, &d->sm));
    /* The model replays a GPU by its compute capability's limits
     * (common/sm_limits.h): say so where this GPU's differ. */
    const struct bf_sm_limits table = bf_sm_limits_of(d->sm.cc);
    if (table.threads != d->sm.threads || table.shared != d->sm.shared ||
        table.block_shared != d->sm.block_shared || table.reserved != d->sm.reserved)
        fprintf(stderr,
                "bankfree: note: sm_%d's limits in common/sm_limits.h (%d threads, %d / %d / %d "
                "bytes of shared memory an SM / a block / reserved) are not this GPU's (%d, %d / "
                "%d / %d): the model's grids may differ from its launches\n",
                d->sm.cc, table.threads, table.shared, table.block_shared, table.reserved,
                d->sm.threads, d->sm.shared, d->sm.block_shared, d->sm.reserved);
    d->l2_bytes = (size_t)p.l2CacheSize;
    d->global_bytes = p.totalGlobalMem;
    int khz = 0;
    BF_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d->id));
    d->max_sm_clock_mhz = khz / 1000;
    BF_CHECK(cudaRuntimeGetVersion(&d->runtime_version));
    BF_CHECK(cudaDriverGetVersion(&d->driver_version));

    err = bf_probe_kernel_image();
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
        fprintf(stderr,
                "bankfree: this build has no GPU code for %s (sm_%d%d; built with "
                "CMAKE_CUDA_ARCHITECTURES=%s): reconfigure with -DCMAKE_CUDA_ARCHITECTURES=%d%d\n",
                d->name, d->cc_major, d->cc_minor, BF_CUDA_ARCHS, d->cc_major, d->cc_minor);
        return BF_EXIT_FAIL;
    }
    BF_CHECK(err);
    return 0;
}

double bf_device_free_bytes(double limit)
{
    size_t free_bytes, total;
    BF_CHECK(cudaMemGetInfo(&free_bytes, &total));
    return limit > 0 && limit < (double)free_bytes ? limit : (double)free_bytes;
}

/* NVML is opened at run time, so that the binary starts on machines whose
 * driver has none (and on machines with no GPU at all). Reads the SM clock
 * now (MHz, or -1) and the driver's version ("580.159.04", or ""). */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_handle_fn)(const char *, void **);
typedef int (*nvml_clock_fn)(void *, int, unsigned *);
typedef int (*nvml_version_fn)(char *, unsigned);

static void nvml_facts(const struct bf_device *d, int *mhz, char *driver, size_t len)
{
    *mhz = -1;
    driver[0] = '\0';
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return;
    nvml_init_fn init = (nvml_init_fn)dlsym(lib, "nvmlInit_v2");
    nvml_init_fn shutdown = (nvml_init_fn)dlsym(lib, "nvmlShutdown");
    nvml_handle_fn by_bus = (nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_clock_fn clock = (nvml_clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
    nvml_version_fn version = (nvml_version_fn)dlsym(lib, "nvmlSystemGetDriverVersion");
    char bus[64];
    if (init && shutdown && by_bus && clock && init() == 0) {
        void *dev;
        unsigned value;
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, d->id) == cudaSuccess &&
            by_bus(bus, &dev) == 0 && clock(dev, 1 /* NVML_CLOCK_SM */, &value) == 0)
            *mhz = (int)value;
        if (version != NULL && version(driver, (unsigned)len) != 0)
            driver[0] = '\0';
        shutdown();
    }
    dlclose(lib);
}

int bf_sm_clock_now_mhz(const struct bf_device *d)
{
    int mhz;
    char driver[96];
    nvml_facts(d, &mhz, driver, sizeof driver);
    return mhz;
}

const char *bf_driver_version(const struct bf_device *d, char *buf, size_t len)
{
    int mhz;
    nvml_facts(d, &mhz, buf, len);
    return buf[0] ? buf : NULL;
}
