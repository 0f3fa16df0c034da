/* ncu's counters without a GPU (common/counters.h): which metrics each GPU is
 * asked for, what ncu's output says (bf_ncu_verdict), and bench --counters'
 * pass (bf_counters_measure) under a stand-in ncu that answers as ncu does
 * when it cannot read the counters, lacks a metric, fails, or counts.
 *   test_counters STANDIN          the tests; STANDIN: tests/ncu_standin.sh
 *   test_counters measure CC       bf_counters_measure under $BANKFREE_NCU for
 *                                  a GPU of compute capability CC: prints its
 *                                  line; exit 0 counted, 77 cannot profile
 *                                  here, 1 failed (for tests/ncu_check.sh) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/counters.h"
#include "tests/unit.h"

/* The verdict on `text` as ncu's output, and its line in `line`. */
static enum bf_ncu_verdict verdict_of(const char *text, int failed, char *line, size_t len)
{
    FILE *f = tmpfile();
    EXPECT(f != NULL, "a temporary file");
    if (f == NULL)
        return BF_NCU_OK;
    fputs(text, f);
    rewind(f);
    enum bf_ncu_verdict v = bf_ncu_verdict(f, failed, line, len);
    fclose(f);
    return v;
}

#define PERMISSION                                                                                 \
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "         \
    "Performance Counters on the target device 0. For instructions on enabling permissions and "   \
    "to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
#define BUSY                                                                                       \
    "==ERROR== An error was reported by the driver\n"                                              \
    "==ERROR== Profiling failed because a driver resource was unavailable. Ensure that no other "  \
    "tool (like DCGM) is concurrently collecting profiling data.\n"
#define METRIC "==ERROR== Failed to find metric sm__sass_inst_executed_op_tma.sum\n"

static void test_verdict(void)
{
    char line[1024];
    const char *connected = "==PROF== Connected to process 7 (/build/bankfree)\n";
    char text[4096];

    snprintf(text, sizeof text, "%s%s==PROF== Disconnected from process 7\n", connected,
             PERMISSION);
    EXPECT(verdict_of(text, 1, line, sizeof line) == BF_NCU_NO_PERMISSION,
           "ERR_NVGPUCTRPERM: no permission");
    EXPECT(strcmp(line, BF_NCU_PERMISSION_HELP) == 0, "its line says how to allow it: %s", line);
    EXPECT(strstr(line, "NVreg_RestrictProfilingToAdminUsers=0") != NULL &&
               strstr(line, "root") != NULL && strchr(line, '\n') == NULL,
           "one line: root, or the module option");
    EXPECT(verdict_of(text, 0, line, sizeof line) == BF_NCU_NO_PERMISSION,
           "ERR_NVGPUCTRPERM though ncu exited 0");
    EXPECT(verdict_of("==WARNING== ERR_NVGPUCTRPERM - The user does not have permission to "
                      "profile on the target device.\n",
                      0, line, sizeof line) == BF_NCU_NO_PERMISSION,
           "the older wording, as a warning");

    snprintf(text, sizeof text, "%s%s", connected, BUSY);
    EXPECT(verdict_of(text, 1, line, sizeof line) == BF_NCU_BUSY, "DCGM holds the counters");
    EXPECT(strncmp(line, "Profiling failed because a driver resource", 42) == 0,
           "ncu's line, without its ==ERROR==: %s", line);

    snprintf(text, sizeof text, "%s%s", connected, METRIC);
    EXPECT(verdict_of(text, 1, line, sizeof line) == BF_NCU_NO_METRIC, "a metric the GPU lacks");
    EXPECT(strcmp(line, "Failed to find metric sm__sass_inst_executed_op_tma.sum") == 0,
           "the metric named: %s", line);

    snprintf(text, sizeof text, "%s==ERROR== Unknown Error on device 0.\nsome output after\n",
             connected);
    EXPECT(verdict_of(text, 1, line, sizeof line) == BF_NCU_FAILED, "ncu's other errors fail");
    EXPECT(strcmp(line, "Unknown Error on device 0.") == 0, "ncu's error line: %s", line);
    EXPECT(verdict_of(text, 0, line, sizeof line) == BF_NCU_FAILED,
           "an ==ERROR== fails though ncu exited 0");

    EXPECT(verdict_of("bankfree: transpose/padded: mismatch at 12\n\n", 1, line, sizeof line) ==
               BF_NCU_FAILED,
           "exit status alone: failed");
    EXPECT(strcmp(line, "bankfree: transpose/padded: mismatch at 12") == 0,
           "the last line said: %s", line);

    snprintf(text, sizeof text, "%s\"ID\",\"Kernel Name\"\n==PROF== Disconnected\n", connected);
    EXPECT(verdict_of(text, 0, line, sizeof line) == BF_NCU_OK && line[0] == '\0',
           "a clean run: OK, no line");

    snprintf(text, sizeof text, "%s%s%s", METRIC, BUSY, PERMISSION);
    EXPECT(verdict_of(text, 1, line, sizeof line) == BF_NCU_NO_PERMISSION,
           "no permission explains the rest");
    snprintf(text, sizeof text, "==ERROR== Unknown Error\n%s", METRIC);
    EXPECT(verdict_of(text, 1, line, sizeof line) == BF_NCU_NO_METRIC,
           "a missing metric explains a failure");
    EXPECT(bf_ncu_verdict(NULL, 1, line, sizeof line) == BF_NCU_FAILED &&
               bf_ncu_verdict(NULL, 0, line, sizeof line) == BF_NCU_OK,
           "no output: the exit status decides");
}

/* The metrics asked of a GPU of compute capability cc. */
static const char *metrics_of(int cc)
{
    static char buf[2048];
    EXPECT(bf_counters_metrics(cc, buf, sizeof buf) == 0, "metrics of sm_%d fit", cc);
    return buf;
}

static void test_map(void)
{
    EXPECT(bf_op_counted(BF_WGMMA, 90) && bf_op_counted(BF_TMA, 90), "gmma and tma on sm_90");
    EXPECT(!bf_op_counted(BF_WGMMA, 89) && !bf_op_counted(BF_TMA, 89), "not on sm_89");
    EXPECT(!bf_op_counted(BF_WGMMA, 100) && !bf_op_counted(BF_TMA, 120), "nor after 9.0");
    EXPECT(bf_op_counted(BF_CP_ASYNC, 80) && bf_op_counted(BF_CP_ASYNC, 120),
           "ldgsts from sm_80 up");
    EXPECT(!bf_op_counted(BF_CP_ASYNC, 75), "no ldgsts on sm_75");
    EXPECT(bf_op_counted(BF_LDMATRIX, 75) && !bf_op_counted(BF_LDMATRIX, 70), "ldsm from 7.5");
    for (int op = BF_LOAD; op <= BF_RED; ++op)
        EXPECT(bf_op_counted((enum bf_op)op, 75) && bf_op_counted((enum bf_op)op, 121),
               "%s everywhere from 7.5", bf_op_name((enum bf_op)op));
    EXPECT(!bf_op_counted(BF_LDC, 90), "ldc: no counter");
    EXPECT(!bf_op_counted((enum bf_op)BF_OPS, 90), "no such op");

    const char *m = metrics_of(89);
    EXPECT(strstr(m, "_op_gmma") == NULL && strstr(m, "_op_tma") == NULL,
           "sm_89: no gmma or tma asked: %s", m);
    EXPECT(strstr(m, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum") !=
                   NULL &&
               strstr(m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") != NULL,
           "sm_89: ldgsts and the pipe's ld: %s", m);
    m = metrics_of(75);
    EXPECT(strstr(m, "_op_ldgsts") == NULL && strstr(m, "_op_ldsm.sum") != NULL,
           "sm_75: ldsm, no ldgsts: %s", m);
    m = metrics_of(90);
    for (int op = 0; op < BF_OPS; ++op)
        EXPECT(bf_op_counters[op].sass == NULL || strstr(m, bf_op_counters[op].sass) != NULL,
               "sm_90: every counter, %s too", bf_op_name((enum bf_op)op));
    EXPECT(m[0] != ',' && m[strlen(m) - 1] != ',' && strstr(m, ",,") == NULL,
           "a comma between metrics, none around: %s", m);
    EXPECT(metrics_of(70)[0] == '\0', "before 7.5: none");
    char small[64];
    EXPECT(bf_counters_metrics(90, small, sizeof small) != 0, "too small a buffer: refused");
}

/* A file's text (at most len - 1 bytes). */
static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f != NULL)
        fclose(f);
}

/* The counting pass under the stand-in ncu, in each of its cases. */
static void test_measure(const char *standin, char **argv)
{
    char dir[] = "/tmp/bankfree-ncu-XXXXXX", ncu[256], args[256], values[256], cmd[1024];
    if (mkdtemp(dir) == NULL) {
        EXPECT(0, "a temporary directory");
        return;
    }
    snprintf(ncu, sizeof ncu, "%s/ncu", dir);
    snprintf(args, sizeof args, "%s/args", dir);
    snprintf(values, sizeof values, "%s/values", dir);
    /* A copy, executable whatever mode the checkout gave the script. */
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 755 '%s'", standin, ncu, ncu);
    EXPECT(system(cmd) == 0, "copy the stand-in: %s", cmd);
    setenv("NCU_STANDIN_ARGS", args, 1);
    char buf[1024];
    setenv("BANKFREE_NCU", ncu, 1);
    EXPECT(bf_ncu_path(buf, sizeof buf) != NULL && strcmp(buf, ncu) == 0,
           "bf_ncu_path: $BANKFREE_NCU");

    static const struct {
        const char *mode;
        int rc;
        const char *says;
    } cases[] = {
        {"permission", 1, BF_NCU_PERMISSION_HELP},
        {"permission0", 1, BF_NCU_PERMISSION_HELP},
        {"busy", 1, "ncu cannot profile now: Profiling failed because a driver resource"},
        {"metric", -1, "Failed to find metric smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_"},
        {"error", -1, "failed (exit 1): Unknown Error on device 0."},
        {"crash", -1, "failed (killed by signal 11)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        struct bf_counters c;
        char why[1024] = "";
        setenv("NCU_STANDIN", cases[i].mode, 1);
        int rc = bf_counters_measure(ncu, 1, argv, 7, 89, &c, why, sizeof why);
        EXPECT(rc == cases[i].rc, "%s: returns %d, want %d (%s)", cases[i].mode, rc, cases[i].rc,
               why);
        EXPECT(strstr(why, cases[i].says) != NULL, "%s: says '%s', not '%s'", cases[i].mode,
               cases[i].says, why);
        EXPECT(c.n == 0, "%s: no counts", cases[i].mode);
        bf_counters_free(&c);
    }

    /* Counted: the values reach the listed variant, and sm_89's ncu was
     * asked for no gmma or tma; sm_90's was. */
    FILE *f = fopen(values, "w");
    if (f != NULL) {
        fprintf(f, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum 1,048,576\n"
                   "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum 32768\n");
        fclose(f);
    }
    setenv("NCU_STANDIN_VALUES", values, 1);
    setenv("NCU_STANDIN", "ok", 1);
    for (int cc = 89; cc <= 90; ++cc) {
        struct bf_counters c;
        char why[1024] = "", said[8192];
        remove(args);
        EXPECT(bf_counters_measure(ncu, 1, argv, 7, cc, &c, why, sizeof why) == 0, "ok, sm_%d: %s",
               cc, why);
        const struct bf_counted *r =
            bf_counters_find(&c, "transpose", "f32", "64x64", "conflicting");
        EXPECT(r != NULL && r->sass[BF_LOAD] == 1048576 && r->sass[BF_STORE] == 32768 &&
                   r->sass[BF_WGMMA] == 0,
               "ok, sm_%d: the listed variant's counts", cc);
        slurp(args, said, sizeof said);
        EXPECT(strstr(said, "--metrics\n") != NULL && strstr(said, "_op_ld.sum") != NULL,
               "ok, sm_%d: ncu asked for metrics", cc);
        EXPECT((strstr(said, "_op_gmma") != NULL) == (cc == 90) &&
                   (strstr(said, "_op_tma") != NULL) == (cc == 90),
               "gmma and tma asked on sm_90 alone (sm_%d)", cc);
        bf_counters_free(&c);
    }
    unsetenv("NCU_STANDIN_VALUES");
    unsetenv("NCU_STANDIN");
    unsetenv("NCU_STANDIN_ARGS");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    EXPECT(system(cmd) == 0, "clean up %s", dir);
}

/* `measure CC`: the counting pass as bench --counters makes it. */
static int measure(int argc, char **argv)
{
    char ncu[4096], why[1024] = "";
    if (argc != 3 || bf_ncu_path(ncu, sizeof ncu) == NULL) {
        fputs("usage: BANKFREE_NCU=NCU test_counters measure CC\n", stderr);
        return 2;
    }
    struct bf_counters c;
    int rc = bf_counters_measure(ncu, 1, argv, 1, atoi(argv[2]), &c, why, sizeof why);
    bf_counters_free(&c);
    printf("%s\n", rc == 0 ? "counted" : why);
    return rc == 0 ? 0 : rc == 1 ? 77 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "measure") == 0)
        return measure(argc, argv);
    if (argc != 2) {
        fputs("usage: test_counters tests/ncu_standin.sh\n", stderr);
        return 2;
    }
    test_verdict();
    test_map();
    test_measure(argv[1], argv);
    return unit_finish("counters");
}
