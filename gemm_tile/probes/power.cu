/* Why cuBLAS gets a higher clock than our kernel under the power cap: each
 * GEMM run back to back for some seconds (ours, cublasGemmEx, ours,
 * cublasGemmEx, so that a board warming up meets both), while nvidia-smi
 * samples the board's power and SM clock every 50 ms. Per phase: GEMMs a
 * second, the mean power and median clock of the samples after its first
 * second, the energy and SM cycles a GEMM. Same inputs for both (fp16 in
 * [1/16, 1/8), as probes/timeline.cu), L2 not flushed: the steady state a
 * long run of one size reaches. Compile with
 * -gencode=arch=compute_90a,code=sm_90a and link cuBLAS.
 * nvidia-smi is asked for the GPU of the same index as CUDA's device (one
 * GPU, or CUDA_DEVICE_ORDER=PCI_BUS_ID).
 *   power [--seconds S] [M N K]   (default 5 s a phase, 8192 8192 8192) */
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gemm_tile/gemm_tile_wgmma.cu"
#include "gemm_tile/probes/check.h"
#include "gemm_tile/probes/cublas_tn.h"

struct sample {
    double ms; /* of the day, local time, as nvidia-smi stamps it */
    double watts, mhz;
};

static std::vector<sample> samples; /* the reader's until it is joined */

static double now_ms_of_day(void)
{
    struct timeval tv;
    gettimeofday(&tv, nullptr);
    struct tm t;
    localtime_r(&tv.tv_sec, &t);
    return 1e3 * (t.tm_hour * 3600.0 + t.tm_min * 60.0 + t.tm_sec) + tv.tv_usec / 1e3;
}

/* nvidia-smi's lines, "YYYY/MM/DD HH:MM:SS.mmm, W, MHz", read as they come. */
static void read_samples(FILE *in)
{
    char line[256];
    while (fgets(line, sizeof line, in) != nullptr) {
        int y, mo, d, h, mi;
        double s, w, mhz;
        if (sscanf(line, "%d/%d/%d %d:%d:%lf, %lf, %lf", &y, &mo, &d, &h, &mi, &s, &w, &mhz) != 8)
            continue;
        samples.push_back({1e3 * (h * 3600.0 + mi * 60.0 + s), w, mhz});
    }
}

/* nvidia-smi sampling the GPU every 50 ms into a pipe; its pid to stop it. */
static pid_t start_sampling(int device, FILE **out)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    const pid_t pid = fork();
    if (pid == 0) {
        char id[16];
        snprintf(id, sizeof id, "%d", device);
        dup2(fd[1], 1);
        close(fd[0]);
        /* line-buffered through stdbuf where it exists, so lines come as taken */
        execlp("stdbuf", "stdbuf", "-oL", "nvidia-smi", "-i", id,
               "--query-gpu=timestamp,power.draw,clocks.sm", "--format=csv,noheader,nounits",
               "-lms", "50", (char *)nullptr);
        execlp("nvidia-smi", "nvidia-smi", "-i", id, "--query-gpu=timestamp,power.draw,clocks.sm",
               "--format=csv,noheader,nounits", "-lms", "50", (char *)nullptr);
        _exit(127);
    }
    close(fd[1]);
    *out = pid > 0 ? fdopen(fd[0], "r") : nullptr;
    return pid;
}

static cublasHandle_t cublas;

static cudaError_t cublas_gemm(float *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                               int64_t k)
{
    if (cublas_tn(cublas, c, a, b, m, n, k) != CUBLAS_STATUS_SUCCESS)
        return cudaErrorUnknown;
    return cudaGetLastError();
}

static cudaError_t ours_gemm(float *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                             int64_t k)
{
    return gemm_tile_wgmma_launch(GEMM_TILE_WGMMA_SW128, c, 0, a, b, m, n, k, 0);
}

typedef cudaError_t (*gemm_fn)(float *, const uint16_t *, const uint16_t *, int64_t, int64_t,
                               int64_t);

/* One phase: GEMMs back to back for `seconds`; what the samples say is
 * read once sampling has stopped. */
struct phase {
    const char *name;
    double from, to; /* ms of the day */
    double ms;       /* GPU time of the GEMMs, events */
    long gemms;
};

static struct phase run_phase(const char *name, gemm_fn gemm, float *c, const uint16_t *a,
                              const uint16_t *b, int64_t m, int64_t n, int64_t k, double seconds)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    struct phase p = {name, now_ms_of_day(), 0, 0, 0};
    CHECK(cudaEventRecord(start));
    while (now_ms_of_day() - p.from < 1e3 * seconds) {
        for (int i = 0; i < 10; ++i, ++p.gemms)
            CHECK(gemm(c, a, b, m, n, k));
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
    }
    p.to = now_ms_of_day();
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    p.ms = ms;
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return p;
}

static void report(const struct phase &p, int64_t m, int64_t n, int64_t k)
{
    std::vector<double> watts, mhz;
    for (const sample &s : samples)
        if (s.ms >= p.from + 1e3 && s.ms <= p.to) { /* the first second: the board settling */
            watts.push_back(s.watts);
            mhz.push_back(s.mhz);
        }
    double mean_w = 0;
    for (double w : watts)
        mean_w += w / (double)watts.size();
    const double gemm_s = 1e-3 * p.ms / (double)p.gemms;
    printf("%-13s %6ld GEMMs in %6.0f ms: %8.1f us each, %7.1f TFLOP/s | %3zu samples: %6.1f W, "
           "%5.0f MHz | %6.3f J, %6.2f M SM cycles a GEMM\n",
           p.name, p.gemms, p.ms, 1e6 * gemm_s, 2.0 * (double)(m * n) * (double)k / gemm_s / 1e12,
           watts.size(), mean_w, median(mhz), mean_w * gemm_s, median(mhz) * gemm_s);
}

int main(int argc, char **argv)
{
    double seconds = 5;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--seconds") == 0) {
        seconds = atof(argv[2]);
        first = 3;
    }
    const int64_t m = argc - first >= 3 ? atoll(argv[first]) : 8192;
    const int64_t n = argc - first >= 3 ? atoll(argv[first + 1]) : 8192;
    const int64_t k = argc - first >= 3 ? atoll(argv[first + 2]) : 8192;
    int device;
    CHECK(cudaGetDevice(&device));
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    uint16_t *a, *b;
    float *c;
    CHECK(cudaMalloc(&a, (size_t)(m * k) * 2));
    CHECK(cudaMalloc(&b, (size_t)(n * k) * 2));
    CHECK(cudaMalloc(&c, (size_t)(m * n) * 4));
    std::vector<uint16_t> h((size_t)std::max(m, n) * k);
    fill_inputs(h.data(), h.size());
    CHECK(cudaMemcpy(a, h.data(), (size_t)(m * k) * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, h.data(), (size_t)(n * k) * 2, cudaMemcpyHostToDevice));

    /* Ours against cuBLAS's C, once: a probe of a wrong kernel measures nothing. */
    const size_t cn = (size_t)(m * n);
    std::vector<float> ours(cn), theirs(cn);
    CHECK(ours_gemm(c, a, b, m, n, k));
    CHECK(cudaMemcpy(ours.data(), c, cn * 4, cudaMemcpyDeviceToHost));
    CHECK(cublas_gemm(c, a, b, m, n, k));
    CHECK(cudaMemcpy(theirs.data(), c, cn * 4, cudaMemcpyDeviceToHost));
    if (!gemm_matches(ours.data(), theirs.data(), cn, m, n, k))
        return 1;

    FILE *in = nullptr;
    const pid_t smi = start_sampling(device, &in);
    if (smi <= 0 || in == nullptr) {
        fprintf(stderr, "power: nvidia-smi could not be started\n");
        return 1;
    }
    std::thread reader(read_samples, in);
    printf("%lldx%lldx%lld, fp16 A and B, fp32 C, %.0f s a phase (the first second's samples "
           "left out)\n",
           (long long)m, (long long)n, (long long)k, seconds);
    std::vector<struct phase> phases;
    for (int round = 0; round < 2; ++round) {
        phases.push_back(run_phase("wgmma_sw128", ours_gemm, c, a, b, m, n, k, seconds));
        phases.push_back(run_phase("cublasGemmEx", cublas_gemm, c, a, b, m, n, k, seconds));
    }
    usleep(300000); /* the last samples taken */
    kill(smi, SIGINT);
    waitpid(smi, nullptr, 0);
    reader.join();
    fclose(in);
    if (samples.empty())
        fprintf(stderr, "power: no samples from nvidia-smi\n");
    for (const struct phase &p : phases)
        report(p, m, n, k);
    cublasDestroy(cublas);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    return 0;
}
