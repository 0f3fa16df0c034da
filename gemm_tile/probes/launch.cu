/* What a launch costs before any work: an empty kernel of the wgmma
 * kernel's shape (384 threads, one block an SM), event-timed after an L2
 * flush as the bench times, at 0 to 227 KiB of dynamic shared memory,
 * launched plainly (cluster 0 below: no cluster attribute, as the library
 * launches blocks that run alone) and in clusters of 1 and 2, with 8 and
 * 128 blocks. If a big shared-memory
 * request costs time of its own (the SM's L1 / shared split set again after
 * the flush, which needs none), a small GEMM pays it on every call.
 *   launch   (no arguments) */
#include <algorithm>
#include <cstdio>
#include <vector>

#include "gemm_tile/probes/check.h"

__global__ void __launch_bounds__(384, 1) empty_kernel(int *never)
{
    extern __shared__ int smem[];
    if (never != nullptr) /* the launch passes NULL: nothing runs */
        never[threadIdx.x] = smem[threadIdx.x];
}

static double time_launch(int blocks, int cluster, int smem, void *flush, size_t flush_bytes)
{
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = (unsigned)cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)blocks);
    config.blockDim = dim3(384);
    config.dynamicSmemBytes = (size_t)smem;
    config.attrs = &attr;
    config.numAttrs = cluster > 0 ? 1 : 0;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<double> times;
    for (int rep = -3; rep < 50; ++rep) {
        CHECK(cudaMemset(flush, rep & 0xff, flush_bytes));
        CHECK(cudaEventRecord(start));
        CHECK(cudaLaunchKernelEx(&config, empty_kernel, (int *)nullptr));
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (rep >= 0)
            times.push_back(1e6 * ms);
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

int main(void)
{
    const size_t flush_bytes = 256u << 20;
    void *flush;
    CHECK(cudaMalloc(&flush, flush_bytes));
    CHECK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               227 * 1024));
    const int smems[] = {0, 48 * 1024, 100 * 1024, 164 * 1024, 200 * 1024, 227 * 1024};
    printf("empty kernel, 384 threads, L2 flushed: event time (ns, median of 50)\n");
    printf("%8s %8s", "blocks", "cluster");
    for (int s : smems)
        printf(" %7dK", s / 1024);
    printf("\n");
    for (int blocks = 8; blocks <= 128; blocks *= 16)
        for (int cluster = 0; cluster <= 2; ++cluster) {
            printf("%8d %8d", blocks, cluster);
            for (int s : smems)
                printf(" %8.0f", time_launch(blocks, cluster, s, flush, flush_bytes));
            printf("\n");
        }
    CHECK(cudaFree(flush));
    return 0;
}
