/* A kernel that does nothing, to ask the runtime whether this build has code
 * the GPU can run. */
#include <cuda_runtime_api.h>

static __global__ void bf_probe_kernel(void) {}

extern "C" cudaError_t bf_probe_kernel_image(void)
{
    cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, bf_probe_kernel);
}
