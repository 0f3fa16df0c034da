/* BF_HD marks a function that both the kernels (nvcc) and the host-side bank
 * model (a C compiler) call: __host__ __device__ under nvcc, nothing in C. */
#ifndef BANKFREE_HOSTDEV_H
#define BANKFREE_HOSTDEV_H

#ifdef __CUDACC__
#define BF_HD __host__ __device__ __forceinline__
#else
#define BF_HD inline
#endif

#endif
