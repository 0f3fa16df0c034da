// One warp, one shared atomic instruction: which SASS it becomes and how many
// wavefronts it costs (ncu SASS/pipe op_atom counters), plus a throughput timing.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e) {                                                                                   \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

enum {
    P_DISTINCT,
    P_STRIDE2,
    P_ONEBANK32,
    P_ONEADDR,
    P_PAIRS,
    P_8ADDR_1BANK,
    P_HALF16,
    P_GROUP8,
    P_2BANK_PAIRS,
    NP
};
static const char *pname[NP] = {"distinct banks (stride 1)",
                                "stride 2 (2-way)",
                                "32 words in one bank",
                                "all lanes one word",
                                "pairs of lanes one word",
                                "8 words in one bank, 4 lanes each",
                                "lanes 0-15 only, stride 1",
                                "lanes 0-7 only, each in its own 4-bank group",
                                "lanes l, l+16: 2 banks, different words"};
enum { O_INC, O_RET, O_VAR, O_HALF, NO };
static const char *oname[NO] = {"atomicAdd(p,1) unused", "atomicAdd(p,1) result used",
                                "atomicAdd(p,lane+1) unused",
                                "atomicAdd(p,1<<16*(lane&1)) unused (same value per word)"};

__device__ __forceinline__ bool active(int p, int lane)
{
    if (p == P_HALF16)
        return lane < 16;
    if (p == P_GROUP8)
        return lane < 8;
    return true;
}
__device__ __forceinline__ int word(int p, int lane)
{
    switch (p) {
    case P_DISTINCT:
        return lane;
    case P_STRIDE2:
        return 2 * lane;
    case P_ONEBANK32:
        return 32 * lane;
    case P_ONEADDR:
        return 0;
    case P_PAIRS:
        return lane / 2;
    case P_8ADDR_1BANK:
        return 32 * (lane % 8);
    case P_HALF16:
        return lane;
    case P_GROUP8:
        return 4 * lane + 32 * (lane % 3);
    default:
        return (lane % 16) * 2 + 32 * (lane / 16) + (lane / 16); /* lane l -> bank 2l%32.. */
    }
}
template <int P, int O> __global__ void probe_one(uint32_t *out, int reps)
{
    __shared__ uint32_t s[2048];
    int lane = threadIdx.x;
    for (int i = lane; i < 2048; i += 32)
        s[i] = 0;
    __syncwarp();
    uint32_t acc = 0;
    int w = word(P, lane);
    for (int r = 0; r < reps; ++r) {
        if (active(P, lane)) {
            if (O == O_INC)
                atomicAdd(&s[w], 1u);
            else if (O == O_RET)
                acc += atomicAdd(&s[w], 1u);
            else if (O == O_VAR)
                atomicAdd(&s[w], (uint32_t)lane + 1);
            else
                atomicAdd(&s[w], 1u << (16 * (w & 1)));
        }
    }
    __syncwarp();
    out[lane] = s[lane] + s[32 * lane % 2048] + acc;
}
typedef void (*kfn)(uint32_t *, int);
template <int P> static void fill(kfn *k)
{
    k[0] = probe_one<P, 0>;
    k[1] = probe_one<P, 1>;
    k[2] = probe_one<P, 2>;
    k[3] = probe_one<P, 3>;
}

int main(int argc, char **argv)
{
    (void)argv;
    int timing = argc > 1;
    kfn k[NP][NO];
    fill<0>(k[0]);
    fill<1>(k[1]);
    fill<2>(k[2]);
    fill<3>(k[3]);
    fill<4>(k[4]);
    fill<5>(k[5]);
    fill<6>(k[6]);
    fill<7>(k[7]);
    fill<8>(k[8]);
    uint32_t *out;
    CK(cudaMalloc(&out, 4096 * 32 * 4));
    int clk;
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int p = 0; p < NP; ++p)
        for (int o = 0; o < NO; ++o) {
            if (!timing) {
                k[p][o]<<<1, 32>>>(out, 1);
                CK(cudaGetLastError());
                CK(cudaDeviceSynchronize());
                continue;
            }
            const int reps = 4096;
            float best1 = 1e9, bestn = 1e9;
            for (int t = 0; t < 5; ++t) {
                float ms;
                CK(cudaEventRecord(a));
                k[p][o]<<<1, 32>>>(out, reps);
                CK(cudaEventRecord(b));
                CK(cudaEventSynchronize(b));
                CK(cudaEventElapsedTime(&ms, a, b));
                if (ms < best1)
                    best1 = ms;
                CK(cudaEventRecord(a));
                k[p][o]<<<sms * 64, 32>>>(out, reps);
                CK(cudaEventRecord(b));
                CK(cudaEventSynchronize(b));
                CK(cudaEventElapsedTime(&ms, a, b));
                if (ms < bestn)
                    bestn = ms;
            }
            double ns1 = best1 * 1e6 / reps;
            double per_clk_sm = (double)sms * 64 * reps / ((double)bestn * 1e-3 * clk * 1e3) / sms;
            printf("%-62s | %-45s | one warp %6.2f ns/instr | 64 warps/SM: %.3f instr/clk/SM\n",
                   oname[o], pname[p], ns1, per_clk_sm);
        }
    return 0;
}
