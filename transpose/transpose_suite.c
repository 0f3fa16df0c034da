/* The transpose family as the runner sees it: variants, element types, sizes,
 * the model hook, the correctness test and the benchmark with its comparators
 * (device-to-device copy, the bandwidth ceiling; cuBLAS's geam, the vendor's
 * transpose, for the element types it has; where the build found cuTENSOR,
 * its cutensorPermute for every type but bytes, the vendor for halves). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#ifdef BANKFREE_CUTENSOR
#include <cutensor.h>
#endif

#include "common/bench.h"
#include "common/ceilings.h"
#include "common/check.h"
#include "common/data.h"
#include "common/registry.h"
#include "common/validate.h"
#include "transpose/transpose.h"
#include "transpose/transpose_model.h"
#include "transpose/transpose_ref.h"

extern const struct bf_family transpose_family;

static const struct bf_variant variants[TRANSPOSE_VARIANTS] = {
    [TRANSPOSE_NAIVE] = {"naive", "no shared memory: reads coalesced, writes 32 rows apart"},
    [TRANSPOSE_CONFLICTING] = {"conflicting", "tile[64][64] read by column: 32-way conflict"},
    [TRANSPOSE_PADDED] = {"padded", "tile[64][65]: one spare word a row, conflict-free"},
    [TRANSPOSE_SWIZZLED] = {"swizzled", "tile[64][64], column ^ (row % 32): conflict-free"},
    [TRANSPOSE_PACKED] = {"packed", "1 and 2 B: 4x4 / 2x2 blocks in registers, 16 / 8 B a shared "
                                    "access, conflict-free"},
};

/* The element types: what matters to the kernels is the size; the names say
 * what users move. f32 first: the family's type before there were others. */
enum { TYPE_F32, TYPE_U8, TYPE_F16, TYPE_F64, TYPE_C64, TYPE_C128, TYPES };
static const char *const types[TYPES] = {
    [TYPE_F32] = "f32", [TYPE_U8] = "u8",   [TYPE_F16] = "f16",
    [TYPE_F64] = "f64", [TYPE_C64] = "c64", [TYPE_C128] = "c128",
};
static const int elem_bytes[TYPES] = {
    [TYPE_F32] = 4, [TYPE_U8] = 1, [TYPE_F16] = 2, [TYPE_F64] = 8, [TYPE_C64] = 8, [TYPE_C128] = 16,
};
#define TYPE_BIT(t) (1u << (t))

/* Edges of every kind: 1, tile - 1, tile + 1, primes, long thin shapes, and
 * more tile columns than gridDim.y takes (65535), so blocks walk several tiles.
 * Packed bytes and halves take the cells kernel (transpose_cells_shape) at
 * 32x32, 64x96, 1056x1040 (bottom and right edge tiles of 128 x 256 bytes
 * beside whole ones) and 8192x8192, when `in` and `out` are cudaMalloc's;
 * halves stack two tiles a block of the lines kernel at 6050x6001 and
 * 7919x8209 (transpose_lines_stack), at 6050x6001 an odd number of tile
 * rows: the last block has one. */
static const struct bf_size test_sizes[] = {
    {2, {1, 1}},       {2, {1, 31}},      {2, {31, 1}},      {2, {1, 4099}},    {2, {4099, 1}},
    {2, {31, 33}},     {2, {32, 32}},     {2, {33, 31}},     {2, {63, 65}},     {2, {64, 96}},
    {2, {65, 63}},     {2, {33, 4097}},   {2, {4097, 33}},   {2, {257, 509}},   {2, {1021, 1031}},
    {2, {1056, 1040}}, {2, {4096, 4095}}, {2, {2097185, 3}}, {2, {3, 2097185}}, {2, {1, 4194319}},
    {2, {4194319, 1}}, {2, {6050, 6001}}, {2, {7919, 8209}}, {2, {8192, 8192}},
};

/* For the sanitizers, which run each kernel 10-100x slower; still edges, and
 * still a grid that makes blocks loop over tiles (160x272: the cells kernel's
 * edge tiles). */
static const struct bf_size quick_sizes[] = {
    {2, {1, 1}},      {2, {31, 33}},   {2, {160, 272}},
    {2, {129, 4097}}, {2, {257, 509}}, {2, {1, 2097185}},
};

/* The bench: each type at a matrix of at least 256 MiB and at an odd shape,
 * two sizes a type (bench_types); sizes in elements, so bytes and halves
 * take the larger square. */
static const struct bf_size bench_sizes[] = {
    {2, {8192, 8192}}, {2, {16384, 16384}}, {2, {7919, 8209}}};
static const unsigned bench_types[] = {
    TYPE_BIT(TYPE_F32) | TYPE_BIT(TYPE_F64) | TYPE_BIT(TYPE_C64) | TYPE_BIT(TYPE_C128),
    TYPE_BIT(TYPE_U8) | TYPE_BIT(TYPE_F16),
    (1u << TYPES) - 1u,
};

/* For ncu: whole tiles and edge tiles, each in one wave of blocks (256
 * blocks of fp32; an H100 holds 4 x 132), the edge tiles again with output
 * rows off the sectors for every element size (999 rows: the tiles read
 * rows above theirs), packed's cells kernel at edge tiles (1056x1040: its
 * copies' zero fill, a bottom tile, halves' rows off the 128-byte lines),
 * and 16384 blocks, many waves. */
static const struct bf_size hw_sizes[] = {
    {2, {1024, 1024}}, {2, {1000, 999}}, {2, {999, 1000}}, {2, {1056, 1040}}, {2, {8192, 8192}}};

/* The sweep (fp32 alone: sweep_types): squares 64 ... 16384 (x2; 32 KiB to
 * 2 GiB moved) and odd shapes: edge tiles on both sides, a prime pair, and a
 * short wide matrix. */
static const struct bf_size sweep_sizes[] = {
    {2, {64, 64}},       {2, {128, 128}},   {2, {256, 256}},   {2, {512, 512}},
    {2, {1024, 1024}},   {2, {2048, 2048}}, {2, {4096, 4096}}, {2, {8192, 8192}},
    {2, {16384, 16384}}, {2, {1000, 999}},  {2, {2047, 2049}}, {2, {7919, 8209}},
    {2, {64, 1048573}},
};

/* Input and output; the comparators (a copy, geam) write the same output. */
static double device_bytes(int type, const struct bf_size *s)
{
    return 2.0 * (double)s->dim[0] * (double)s->dim[1] * elem_bytes[type];
}

/* Input and output on the device, and host copies for checking. Each device
 * buffer has SPARE bytes to spare, so that a run may start up to SPARE bytes
 * in (one 16-byte element past a sector). */
#define SPARE 16
struct buffers {
    int64_t rows, cols;
    int elem;
    size_t n, bytes;
    unsigned char *d_in, *d_out;
    unsigned char *in, *out, *ref;
};

static void buffers_init(struct buffers *b, int type, const struct bf_size *s, uint64_t seed)
{
    b->rows = s->dim[0];
    b->cols = s->dim[1];
    b->elem = elem_bytes[type];
    b->n = (size_t)(b->rows * b->cols);
    b->bytes = b->n * (size_t)b->elem;
    BF_CHECK(cudaMalloc((void **)&b->d_in, b->bytes + SPARE));
    BF_CHECK(cudaMalloc((void **)&b->d_out, b->bytes + SPARE));
    b->in = malloc(b->bytes);
    b->out = malloc(b->bytes);
    b->ref = malloc(b->bytes);
    BF_CHECK_STATUS(b->in && b->out && b->ref, "malloc", "out of host memory");
    /* Random words over the whole buffer: every byte of every element. */
    BF_CHECK(bf_fill_random_i32((int32_t *)b->d_in, (b->bytes + SPARE) / 4, seed, 0));
    BF_CHECK(cudaMemcpy(b->in, b->d_in, b->bytes, cudaMemcpyDeviceToHost));
    transpose_ref(b->ref, b->in, b->elem, b->rows, b->cols);
}

static void buffers_free(struct buffers *b)
{
    BF_CHECK(cudaFree(b->d_in));
    BF_CHECK(cudaFree(b->d_out));
    free(b->in);
    free(b->out);
    free(b->ref);
}

/* An element as hex, its bytes from the highest. */
static void elem_hex(const unsigned char *e, int bytes, char *buf, size_t len)
{
    size_t n = 0;
    n += (size_t)snprintf(buf, len, "0x");
    for (int i = bytes - 1; i >= 0 && n < len; --i)
        n += (size_t)snprintf(buf + n, len - n, "%02x", e[i]);
}

/* Compares the device output at d_out (cols x rows) with `want`; 0 if every
 * element matches. */
static int check_output_at(const struct buffers *b, const unsigned char *d_out,
                           const unsigned char *want, char *why, size_t len)
{
    size_t first;
    BF_CHECK(cudaMemcpy(b->out, d_out, b->bytes, cudaMemcpyDeviceToHost));
    size_t bad = bf_compare_exact(b->out, want, b->n, (size_t)b->elem, &first);
    if (bad == 0)
        return 0;
    char got_hex[40], want_hex[40];
    elem_hex(b->out + first * (size_t)b->elem, b->elem, got_hex, sizeof got_hex);
    elem_hex(want + first * (size_t)b->elem, b->elem, want_hex, sizeof want_hex);
    snprintf(why, len, "%zu of %zu elements wrong; first out[%lld][%lld] = %s, want %s", bad, b->n,
             (long long)(first / (size_t)b->rows), (long long)(first % (size_t)b->rows), got_hex,
             want_hex);
    return 1;
}
static int check_output(const struct buffers *b, const unsigned char *want, char *why, size_t len)
{
    return check_output_at(b, b->d_out, want, why, len);
}

/* The launcher must refuse with cudaErrorInvalidValue, launch nothing and
 * leave the output alone (small buffers: nothing may be read or written). */
static int expect_refused(enum transpose_variant v, int elem, void *out, const void *in,
                          int64_t rows, int64_t cols, const char *what, char *why, size_t len)
{
    cudaError_t got = transpose(v, elem, out, in, rows, cols, 0);
    BF_CHECK(cudaDeviceSynchronize());
    if (got == cudaErrorInvalidValue)
        return 0;
    snprintf(why, len, "%s: transpose returned %s, want cudaErrorInvalidValue", what,
             cudaGetErrorName(got));
    return 1;
}

/* A case the API refuses (transpose_refusal_elem): refused, nothing written. */
static int test_refused(enum transpose_variant v, int elem, const struct bf_size *s, char *why,
                        size_t len)
{
    unsigned char *d, got[32];
    BF_CHECK(cudaMalloc((void **)&d, 64));
    BF_CHECK(bf_poison(d, 64, 0));
    int bad = expect_refused(v, elem, d, d + 32, s->dim[0], s->dim[1], "refused size", why, len);
    BF_CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < sizeof got && !bad; ++i)
        if (got[i] != 0xff) {
            snprintf(why, len, "refused, yet out[%zu] was written", i);
            bad = 1;
        }
    BF_CHECK(cudaFree(d));
    return bad;
}

/* The bytes of d_out's buffer (b->bytes + SPARE) that lie outside the output,
 * which starts `off` bytes in: still the poison (0xff). */
static int check_spare(const struct buffers *b, const unsigned char *d_out, size_t off, char *why,
                       size_t len)
{
    unsigned char spare[SPARE];
    const size_t after = SPARE - off;
    if (off > 0)
        BF_CHECK(cudaMemcpy(spare, d_out, off, cudaMemcpyDeviceToHost));
    if (after > 0)
        BF_CHECK(cudaMemcpy(spare + off, d_out + off + b->bytes, after, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < SPARE; ++i)
        if (spare[i] != 0xff) {
            long long at = (long long)i - (long long)off + (i < off ? 0 : (long long)b->bytes);
            snprintf(why, len, "out + %lld written, outside the output's %zu bytes", at, b->bytes);
            return 1;
        }
    return 0;
}

/* A run with `in` at in_off bytes into d_out's buffer, copied there from the
 * host, and `out` at out_off into d_in's, poisoned first (each buffer has 4
 * bytes to spare). */
static int transpose_test_at(enum transpose_variant v, const struct buffers *b, size_t in_off,
                             size_t out_off, char *why, size_t len)
{
    unsigned char *in = b->d_out + in_off, *out = b->d_in + out_off;
    BF_CHECK(cudaMemcpy(in, b->in, b->bytes, cudaMemcpyHostToDevice));
    BF_CHECK(bf_poison(b->d_in, b->bytes + SPARE, 0));
    BF_CHECK(transpose(v, b->elem, out, in, b->rows, b->cols, 0));
    BF_CHECK(cudaDeviceSynchronize());
    int bad =
        check_output_at(b, out, b->ref, why, len) || check_spare(b, b->d_in, out_off, why, len);
    if (bad) {
        size_t at = strlen(why);
        snprintf(why + at, len - at, " (in %zu bytes into its buffer, out %zu)", in_off, out_off);
    }
    return bad;
}

/* Every element checked bit for bit, output poisoned first, and the poison
 * around it left alone. Every size runs again with `out` one element past a
 * 32-byte sector (the sector-aligned tiles then start each output row's
 * segment early): 4- to
 * 16-byte elements once, `in` where its buffer starts; elements under 4
 * bytes twice, words no longer aligned (the packed kernel's funnel-shifted
 * words): one element into both buffers, and `in` ending where its buffer
 * ends (memcheck reports a word read past it), `out` at another offset.
 * Only the first run is the one ncu profiles (BF_PROFILED), the launch the
 * model counts. */
static int transpose_test(int variant, int type, const struct bf_size *s, uint64_t seed, char *why,
                          size_t len)
{
    const enum transpose_variant v = (enum transpose_variant)variant;
    const int elem = elem_bytes[type];
    if (transpose_refusal_elem(v, elem, s->dim[0], s->dim[1]) != NULL)
        return test_refused(v, elem, s, why, len);
    struct buffers b;
    buffers_init(&b, type, s, seed);
    int bad = 0;
    if (elem > 1)
        bad =
            expect_refused(v, elem, b.d_out + 1, b.d_in, b.rows, b.cols, "misaligned out", why,
                           len) ||
            expect_refused(v, elem, b.d_out, b.d_in + 1, b.rows, b.cols, "misaligned in", why, len);
    bad = bad || expect_refused(v, 3, b.d_out, b.d_in, b.rows, b.cols, "3-byte elements", why, len);
    if (!bad) {
        BF_CHECK(bf_poison(b.d_out, b.bytes + SPARE, 0));
        BF_CHECK(BF_PROFILED(transpose(v, elem, b.d_out, b.d_in, b.rows, b.cols, 0)));
        BF_CHECK(cudaDeviceSynchronize());
        bad = check_output(&b, b.ref, why, len) || check_spare(&b, b.d_out, 0, why, len);
    }
    if (!bad && elem >= 4)
        bad = transpose_test_at(v, &b, 0, (size_t)elem, why, len);
    if (!bad && elem < 4)
        bad = transpose_test_at(v, &b, (size_t)elem, (size_t)elem, why, len) ||
              transpose_test_at(v, &b, SPARE, (size_t)(4 - elem), why, len);
    buffers_free(&b);
    return bad;
}

/* ---- benchmark ---- */

struct bench {
    struct buffers b;
    int type;
    cublasHandle_t cublas;
#ifdef BANKFREE_CUTENSOR
    cutensorHandle_t cutensor;
    cutensorPlan_t plan; /* NULL: none (no permutation of this type, or cuTENSOR failed) */
    _Alignas(16) unsigned char alpha[16]; /* 1 in the plan's scalar type */
#endif
};

static cudaError_t run_variant(void *arg, int variant, cudaStream_t stream)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return transpose((enum transpose_variant)variant, b->elem, b->d_out, b->d_in, b->rows, b->cols,
                     stream);
}

static cudaError_t run_copy(void *arg, cudaStream_t stream)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return bf_copy_ceiling(b->d_out, b->d_in, b->bytes, stream);
}

static cudaError_t run_copy_kernel(void *arg, cudaStream_t stream)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return bf_copy_kernel_ceiling(b->d_out, b->d_in, b->bytes, stream);
}

/* cuBLAS's transpose for the type, NULL where it has none (bytes, halves). */
static const char *const vendor_names[TYPES] = {
    [TYPE_F32] = "cublasSgeam",
    [TYPE_F64] = "cublasDgeam",
    [TYPE_C64] = "cublasCgeam",
    [TYPE_C128] = "cublasZgeam",
};

/* Row-major in (rows x cols) is column-major A (cols x rows, lda = cols);
 * row-major out (cols x rows) is column-major C (rows x cols, ldc = rows);
 * C = 1 * A^T + 0 * C, in place on C as cuBLAS allows. */
static cudaError_t run_cublas(void *arg, cudaStream_t stream)
{
    const struct bench *j = arg;
    const int m = (int)j->b.rows, n = (int)j->b.cols;
    const cublasOperation_t T = CUBLAS_OP_T, N = CUBLAS_OP_N;
    const void *a = j->b.d_in;
    void *c = j->b.d_out;
    cublasStatus_t st = cublasSetStream(j->cublas, stream);
    if (st == CUBLAS_STATUS_SUCCESS) {
        switch (j->type) {
        case TYPE_F32: {
            const float one = 1.0f, zero = 0.0f;
            st = cublasSgeam(j->cublas, T, N, m, n, &one, a, n, &zero, c, m, c, m);
            break;
        }
        case TYPE_F64: {
            const double one = 1.0, zero = 0.0;
            st = cublasDgeam(j->cublas, T, N, m, n, &one, a, n, &zero, c, m, c, m);
            break;
        }
        case TYPE_C64: {
            const cuComplex one = {1.0f, 0.0f}, zero = {0.0f, 0.0f};
            st = cublasCgeam(j->cublas, T, N, m, n, &one, a, n, &zero, c, m, c, m);
            break;
        }
        default: {
            const cuDoubleComplex one = {1.0, 0.0}, zero = {0.0, 0.0};
            st = cublasZgeam(j->cublas, T, N, m, n, &one, a, n, &zero, c, m, c, m);
            break;
        }
        }
    }
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bankfree: %s: %s\n", vendor_names[j->type], cublasGetStatusString(st));
        return cudaErrorUnknown;
    }
    return cudaGetLastError();
}

#ifdef BANKFREE_CUTENSOR
/* cuTENSOR's data type for the type: 0 where it has no permutation of it
 * (8-bit types). */
static int cutensor_type(int type, cudaDataType_t *dt)
{
    switch (type) {
    case TYPE_F16:
        *dt = CUDA_R_16F;
        return 1;
    case TYPE_F32:
        *dt = CUDA_R_32F;
        return 1;
    case TYPE_F64:
        *dt = CUDA_R_64F;
        return 1;
    case TYPE_C64:
        *dt = CUDA_C_32F;
        return 1;
    case TYPE_C128:
        *dt = CUDA_C_64F;
        return 1;
    default:
        return 0;
    }
}

static int cutensor_ok(cutensorStatus_t st, const char *call)
{
    if (st != CUTENSOR_STATUS_SUCCESS)
        fprintf(stderr, "bankfree: %s: %s\n", call, cutensorGetErrorString(st));
    return st == CUTENSOR_STATUS_SUCCESS;
}

/* 1 in the scalar type cuTENSOR asks for (alpha: out = alpha * in^T). */
static int cutensor_one(cudaDataType_t scalar, unsigned char one[16])
{
    memset(one, 0, 16);
    switch (scalar) {
    case CUDA_R_16F: {
        const uint16_t h = 0x3c00;
        memcpy(one, &h, sizeof h);
        return 1;
    }
    case CUDA_R_32F:
    case CUDA_C_32F: {
        const float f = 1.0f;
        memcpy(one, &f, sizeof f);
        return 1;
    }
    case CUDA_R_64F:
    case CUDA_C_64F: {
        const double d = 1.0;
        memcpy(one, &d, sizeof d);
        return 1;
    }
    default:
        fprintf(stderr, "bankfree: cuTENSOR asks for a scalar of type %d: not timed\n",
                (int)scalar);
        return 0;
    }
}

/* The plan of in (rows x cols, row-major: modes c, r with strides 1, cols in
 * cuTENSOR's first-mode-fastest order) permuted into out (modes r, c, strides
 * 1, rows); NULL where cuTENSOR has no permutation of the type, or (with one
 * line why) cannot make one. */
static cutensorPlan_t cutensor_plan(cutensorHandle_t h, int type, int64_t rows, int64_t cols,
                                    unsigned char alpha[16])
{
    cudaDataType_t dt = CUDA_R_32F;
    if (!cutensor_type(type, &dt))
        return NULL;
    const cutensorComputeDescriptor_t compute = dt == CUDA_R_16F ? CUTENSOR_COMPUTE_DESC_16F
                                                : dt == CUDA_R_64F || dt == CUDA_C_64F
                                                    ? CUTENSOR_COMPUTE_DESC_64F
                                                    : CUTENSOR_COMPUTE_DESC_32F;
    const int64_t in_extent[2] = {cols, rows}, in_stride[2] = {1, cols};
    const int64_t out_extent[2] = {rows, cols}, out_stride[2] = {1, rows};
    const int32_t in_modes[2] = {'c', 'r'}, out_modes[2] = {'r', 'c'};
    cutensorTensorDescriptor_t in = NULL, out = NULL;
    cutensorOperationDescriptor_t op = NULL;
    cutensorPlanPreference_t pref = NULL;
    cutensorPlan_t plan = NULL;
    cudaDataType_t scalar = CUDA_R_32F;
    const int ok = /* cudaMalloc's buffers: 256-byte aligned */
        cutensor_ok(cutensorCreateTensorDescriptor(h, &in, 2, in_extent, in_stride, dt, 256),
                    "cutensorCreateTensorDescriptor") &&
        cutensor_ok(cutensorCreateTensorDescriptor(h, &out, 2, out_extent, out_stride, dt, 256),
                    "cutensorCreateTensorDescriptor") &&
        cutensor_ok(cutensorCreatePermutation(h, &op, in, in_modes, CUTENSOR_OP_IDENTITY, out,
                                              out_modes, compute),
                    "cutensorCreatePermutation") &&
        cutensor_ok(cutensorOperationDescriptorGetAttribute(
                        h, op, CUTENSOR_OPERATION_DESCRIPTOR_SCALAR_TYPE, &scalar, sizeof scalar),
                    "cutensorOperationDescriptorGetAttribute") &&
        cutensor_one(scalar, alpha) &&
        cutensor_ok(
            cutensorCreatePlanPreference(h, &pref, CUTENSOR_ALGO_DEFAULT, CUTENSOR_JIT_MODE_NONE),
            "cutensorCreatePlanPreference") &&
        cutensor_ok(cutensorCreatePlan(h, &plan, op, pref, 0), "cutensorCreatePlan");
    if (!ok)
        plan = NULL;
    if (pref)
        cutensorDestroyPlanPreference(pref);
    if (op)
        cutensorDestroyOperationDescriptor(op);
    if (out)
        cutensorDestroyTensorDescriptor(out);
    if (in)
        cutensorDestroyTensorDescriptor(in);
    return plan;
}

static cudaError_t run_cutensor(void *arg, cudaStream_t stream)
{
    const struct bench *j = arg;
    if (!cutensor_ok(cutensorPermute(j->cutensor, j->plan, j->alpha, j->b.d_in, j->b.d_out, stream),
                     "cutensorPermute"))
        return cudaErrorUnknown;
    return cudaGetLastError();
}
#endif

static cudaError_t poison_output(void *arg)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return bf_poison(b->d_out, b->bytes, 0);
}

static int check_transposed(void *arg, char *why, size_t len)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return check_output(b, b->ref, why, len);
}
static int check_variant(void *arg, int variant, char *why, size_t len)
{
    (void)variant;
    return check_transposed(arg, why, len);
}

static int check_copied(void *arg, char *why, size_t len)
{
    const struct buffers *b = &((const struct bench *)arg)->b;
    return check_output(b, b->in, why, len);
}

/* geam computes 1 * a + 0 * c, which quiets or rewrites a NaN where a
 * transpose moves its bits, and can turn -0 into +0 (Cgeam's complex
 * product: 1 * -0 - 0 * im is +0 for a negative im; seen on the H100 at
 * 7919x8209 c64, once in 130 million reals); cutensorPermute scales by
 * alpha = 1 likewise: for a type with either the bench's input is finite
 * numbers (an all-ones exponent loses its top bit) and no -0 (it becomes
 * +0), so that their output is checked bit for bit like every other row's.
 * The tests keep every bit pattern. Word by word, so the reference (the
 * same words moved) changes the same way. */
static void finite_words(unsigned char *p, size_t bytes, size_t word)
{
    /* A real of `word` bytes (2, 4, 8): sign, then 5, 8 or 11 exponent bits. */
    const unsigned bits = 8 * (unsigned)word, exponent = word == 2 ? 5 : word == 4 ? 8 : 11;
    const uint64_t sign = 1ull << (bits - 1), all_ones = ((1ull << exponent) - 1)
                                                         << (bits - 1 - exponent);
    for (size_t i = 0; i + word <= bytes; i += word) {
        uint64_t w = 0;
        memcpy(&w, p + i, word); /* little-endian hosts, as CUDA's are */
        if ((w & all_ones) == all_ones)
            w ^= 1ull << (bits - 2);
        if (w == sign)
            w = 0;
        memcpy(p + i, &w, word);
    }
}

static void make_finite(struct buffers *b, int type)
{
    const size_t word = type == TYPE_F16                       ? 2
                        : type == TYPE_F32 || type == TYPE_C64 ? 4
                                                               : 8; /* one real's bytes */
    finite_words(b->in, b->bytes, word);
    finite_words(b->ref, b->bytes, word);
    BF_CHECK(cudaMemcpy(b->d_in, b->in, b->bytes, cudaMemcpyHostToDevice));
}

static int transpose_bench(unsigned mask, int type, const struct bf_size *s,
                           const struct bf_bench_ctx *ctx, struct bf_table *t)
{
    struct bench j;
    buffers_init(&j.b, type, s, ctx->seed);
    int scaled = vendor_names[type] != NULL; /* a comparator that computes alpha * in */
#ifdef BANKFREE_CUTENSOR
    /* Optional: where it cannot start or plan, the row is left out, one line why. */
    cudaDataType_t dt;
    j.cutensor = NULL;
    j.plan = NULL;
    if (cutensor_type(type, &dt)) {
        if (cutensor_ok(cutensorCreate(&j.cutensor), "cutensorCreate"))
            j.plan = cutensor_plan(j.cutensor, type, j.b.rows, j.b.cols, j.alpha);
        else
            j.cutensor = NULL;
    }
    scaled |= j.plan != NULL;
#endif
    if (scaled)
        make_finite(&j.b, type);
    j.type = type;
    BF_CHECK_STATUS(cublasCreate(&j.cublas) == CUBLAS_STATUS_SUCCESS, "cublasCreate",
                    "cuBLAS could not start");
    const double moved = 2.0 * (double)j.b.bytes; /* read once, written once */
    struct bf_bench b;
    bf_bench_begin(&b, &transpose_family, mask, type, s, ctx, t);
    bf_bench_ceiling(&b, "copy (ceiling)", 0, moved,
                     (struct bf_job){run_copy, &j, poison_output, check_copied});
    bf_bench_ceiling(&b, "copy kernel (ceiling)", 0, moved,
                     (struct bf_job){run_copy_kernel, &j, poison_output, check_copied});
    const int geam = vendor_names[type] != NULL && j.b.rows <= 0x7fffffff &&
                     j.b.cols <= 0x7fffffff; /* cuBLAS takes int */
    if (geam)
        bf_bench_vendor(&b, vendor_names[type], 0, moved,
                        (struct bf_job){run_cublas, &j, poison_output, check_transposed});
#ifdef BANKFREE_CUTENSOR
    if (j.plan != NULL) { /* beside geam; the vendor where there is none (halves) */
        const struct bf_job job = {run_cutensor, &j, poison_output, check_transposed};
        if (geam)
            bf_bench_comparator(&b, "cutensorPermute", 0, moved, job);
        else
            bf_bench_vendor(&b, "cutensorPermute", 0, moved, job);
    }
#endif
    bf_bench_variants(&b, moved,
                      (struct bf_variant_job){run_variant, &j, poison_output, check_variant});
    int failed = bf_bench_end(&b, moved, 0);

    BF_CHECK_STATUS(cublasDestroy(j.cublas) == CUBLAS_STATUS_SUCCESS, "cublasDestroy",
                    "cuBLAS could not stop");
#ifdef BANKFREE_CUTENSOR
    if (j.plan != NULL)
        cutensorDestroyPlan(j.plan);
    if (j.cutensor != NULL)
        cutensorDestroy(j.cutensor);
#endif
    buffers_free(&j.b);
    return failed;
}

/* What transpose refuses at a size: the launcher's own rule
 * (transpose_refusal_elem), for the runner. */
static const char *refuses(int variant, int type, const struct bf_size *s)
{
    return transpose_refusal_elem((enum transpose_variant)variant, elem_bytes[type], s->dim[0],
                                  s->dim[1]);
}

static int model(int variant, int type, const struct bf_size *size, uint64_t seed,
                 const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    (void)seed; /* the addresses do not depend on the data */
    return transpose_model(variant, elem_bytes[type], size, rules, sites);
}

const struct bf_family transpose_family = {
    .name = "transpose",
    .summary = "out = in^T of 1-16 byte elements, any rows x cols",
    .variants = variants,
    .nvariants = TRANSPOSE_VARIANTS,
    .conflicting = TRANSPOSE_CONFLICTING,
    BF_ARRAY(types, types),
    .ndims = 2,
    .min_dim = 1,
    .size_form = "ROWSxCOLS",
    BF_SIZES(BF_SIZES_TEST, test_sizes),
    BF_SIZES(BF_SIZES_QUICK, quick_sizes),
    BF_SIZES(BF_SIZES_BENCH, bench_sizes),
    BF_SIZES(BF_SIZES_HW, hw_sizes),
    BF_SIZES(BF_SIZES_SWEEP, sweep_sizes),
    .bench_types = bench_types,
    .sweep_types = TYPE_BIT(TYPE_F32),
    .test_bytes = device_bytes,
    .bench_bytes = device_bytes,
    .model = model,
    .refuses = refuses,
    .test = transpose_test,
    .bench = transpose_bench,
};
