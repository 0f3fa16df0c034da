#include "common/counters.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "common/check.h"

#define SASS "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
#define PIPE "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_"

/* Which GPUs have each counter: ncu profiles compute 7.5 (Turing) and newer;
 * ldmatrix came with 7.5, cp.async (LDGSTS) with 8.0, wgmma, TMA and st.async
 * with 9.0 (Hopper), and their counters were measured there alone (ncu --query-metrics
 * --chip gh100). */
const struct bf_op_counter bf_op_counters[BF_OPS] = {
    [BF_LOAD] = {"ld", SASS "ld.sum", PIPE "ld.sum", 0, 75, 0},
    [BF_STORE] = {"st", SASS "st.sum", PIPE "st.sum", 0, 75, 0},
    [BF_RED] = {"atom", SASS "atom.sum", PIPE "atom.sum", 0, 75, 0},
    [BF_LDMATRIX] = {"ldsm", SASS "ldsm.sum", NULL, 0, 75, 0},
    [BF_CP_ASYNC] = {"ldgsts", SASS "ldgsts.sum", NULL, 0, 80, 0},
    [BF_LDC] = {NULL, NULL, NULL, 0, 0, 0},
    /* wgmma's reads: counted per SM, not per sub-partition, on the SASS side */
    [BF_WGMMA] = {"gmma", "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
                  PIPE "gmma.sum", 0, 90, 90},
    [BF_TMA] = {"tma", "sm__sass_inst_executed_op_tma.sum", NULL, 1, 90, 90},
    /* st.async into another block's shared memory: its instructions */
    [BF_ST_ASYNC] = {"dshared_stas", "sm__sass_inst_executed_op_dshared_stas.sum", NULL, 1, 90, 90},
};

int bf_op_counted(enum bf_op op, int cc)
{
    if ((int)op < 0 || (int)op >= BF_OPS)
        return 0;
    const struct bf_op_counter *m = &bf_op_counters[op];
    return m->sass != NULL && cc >= m->min_cc && (m->max_cc == 0 || cc <= m->max_cc);
}

int bf_counters_metrics(int cc, char *buf, size_t len)
{
    size_t at = 0;
    if (len == 0)
        return -1;
    buf[0] = '\0';
    for (int op = 0; op < BF_OPS; ++op)
        for (int k = 0; k < 2 && bf_op_counted((enum bf_op)op, cc); ++k) {
            const char *m = k ? bf_op_counters[op].pipe : bf_op_counters[op].sass;
            if (m == NULL)
                continue;
            int n = snprintf(buf + at, len - at, "%s%s", at ? "," : "", m);
            if (n < 0 || (size_t)n >= len - at)
                return -1;
            at += (size_t)n;
        }
    return 0;
}

void bf_profiled_begin(void)
{
    nvtxRangePushA(BF_PROFILED_RANGE);
}

cudaError_t bf_profiled_end(cudaError_t err)
{
    nvtxRangePop();
    return err;
}

#define MARK "bankfree_counters_mark"

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

const char *bf_ncu_path(char *buf, size_t len)
{
    const char *env = getenv("BANKFREE_NCU");
    if (env != NULL && *env)
        return executable(env) && snprintf(buf, len, "%s", env) < (int)len ? buf : NULL;
    const char *path = getenv("PATH");
    while (path != NULL && *path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && snprintf(buf, len, "%.*s/ncu", (int)n, path) < (int)len && executable(buf))
            return buf;
        path += n + (path[n] == ':');
    }
    static const char fallback[] = "/usr/local/cuda/bin/ncu";
    if (!executable(fallback) || snprintf(buf, len, "%s", fallback) >= (int)len)
        return NULL;
    return buf;
}

/* Splits a CSV line into at most `max` fields, in place ("a","b,c",d; ""
 * inside quotes is a quote). Returns the count. */
static int split_csv(char *line, char **field, int max)
{
    int n = 0;
    char *r = line;
    while (n < max) {
        char *w = r;
        field[n++] = w;
        if (*r == '"') {
            ++r;
            while (*r && !(*r == '"' && r[1] != '"')) {
                if (*r == '"')
                    ++r;
                *w++ = *r++;
            }
            if (*r == '"')
                ++r;
        } else {
            while (*r && *r != ',' && *r != '\n' && *r != '\r')
                *w++ = *r++;
        }
        int more = *r == ',';
        *w = '\0';
        if (!more)
            break;
        ++r;
    }
    return n;
}

/* A count as ncu prints it: digits with thousands separators ("1,234,567"). */
static int parse_count(const char *s, double *out)
{
    char digits[64];
    size_t k = 0;
    for (; *s && k + 1 < sizeof digits; ++s)
        if (*s != ',')
            digits[k++] = *s;
    digits[k] = '\0';
    char *end;
    errno = 0;
    double v = strtod(digits, &end);
    if (k == 0 || *end != '\0' || errno != 0 || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int column(char **field, int n, const char *name)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(field[i], name) == 0)
            return i;
    return -1;
}

static int copy_name(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* Copies the list's variants into out->row, in order. */
static int read_list(FILE *list, struct bf_counters *out, char *why, size_t len)
{
    char line[512];
    int cap = 0;
    while (fgets(line, sizeof line, list) != NULL) {
        char *f[4];
        line[strcspn(line, "\n")] = '\0';
        int k = 0;
        for (char *p = line; k < 4; ++k) {
            f[k] = p;
            p = strchr(p, '\t');
            if (p == NULL)
                break;
            *p++ = '\0';
        }
        if (k != 3)
            return bf_fail(why, len, "counting pass: a list line without 4 fields");
        if (out->n == cap) {
            cap = cap ? 2 * cap : 64;
            struct bf_counted *r = realloc(out->row, (size_t)cap * sizeof *r);
            if (r == NULL)
                return bf_fail(why, len, "out of memory");
            out->row = r;
        }
        struct bf_counted *r = &out->row[out->n++];
        memset(r, 0, sizeof *r);
        if (copy_name(r->family, sizeof r->family, f[0]) != 0 ||
            copy_name(r->type, sizeof r->type, f[1]) != 0 ||
            copy_name(r->size, sizeof r->size, f[2]) != 0 ||
            copy_name(r->variant, sizeof r->variant, f[3]) != 0)
            return bf_fail(why, len, "counting pass: a name too long in its list");
    }
    return 0;
}

int bf_counters_parse(FILE *log, FILE *list, struct bf_counters *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    if (read_list(list, out, why, len) != 0)
        return -1;
    enum { MAX_FIELDS = 64 };
    char line[8192], *field[MAX_FIELDS], last_id[64] = "";
    int id = -1, kernel = -1, metric = -1, value = -1, group = -1, in_mark = 0;
    while (fgets(line, sizeof line, log) != NULL) {
        if (line[0] != '"')
            continue; /* ==PROF== lines and the like */
        int n = split_csv(line, field, MAX_FIELDS);
        if (id < 0) { /* the header */
            id = column(field, n, "ID");
            kernel = column(field, n, "Kernel Name");
            metric = column(field, n, "Metric Name");
            value = column(field, n, "Metric Value");
            if (id < 0 || kernel < 0 || metric < 0 || value < 0)
                return bf_fail(why, len,
                               "ncu's CSV has no ID, Kernel Name, Metric Name or "
                               "Metric Value column");
            continue;
        }
        if (n <= id || n <= kernel || n <= metric || n <= value)
            return bf_fail(why, len, "ncu's CSV: a row of %d fields", n);
        if (strcmp(field[id], last_id) != 0) { /* the next kernel */
            snprintf(last_id, sizeof last_id, "%s", field[id]);
            in_mark = strncmp(field[kernel], MARK, strlen(MARK)) == 0;
            group += in_mark;
        }
        if (in_mark || group < 0)
            continue; /* a kernel before the first marker is no variant's */
        if (group >= out->n)
            return bf_fail(why, len, "ncu saw %d markers, the pass listed %d variants", group + 1,
                           out->n);
        for (int op = 0; op < BF_OPS; ++op) {
            const struct bf_op_counter *m = &bf_op_counters[op];
            double *sum = m->sass && strcmp(field[metric], m->sass) == 0 ? &out->row[group].sass[op]
                          : m->pipe && strcmp(field[metric], m->pipe) == 0
                              ? &out->row[group].pipe[op]
                              : NULL;
            if (sum == NULL)
                continue;
            double v;
            if (parse_count(field[value], &v) != 0)
                return bf_fail(why, len, "ncu's CSV: %s is '%s', not a count", field[metric],
                               field[value]);
            *sum += v;
        }
    }
    if (group + 1 != out->n)
        return bf_fail(why, len, "ncu saw %d markers, the pass listed %d variants", group + 1,
                       out->n);
    return 0;
}

const struct bf_counted *bf_counters_find(const struct bf_counters *c, const char *family,
                                          const char *type, const char *size, const char *variant)
{
    for (int i = 0; c != NULL && i < c->n; ++i) {
        const struct bf_counted *r = &c->row[i];
        if (strcmp(r->family, family) == 0 && strcmp(r->type, type) == 0 &&
            strcmp(r->size, size) == 0 && strcmp(r->variant, variant) == 0)
            return r;
    }
    return NULL;
}

void bf_counters_free(struct bf_counters *c)
{
    free(c->row);
    c->row = NULL;
    c->n = 0;
}

/* ncu's words for each verdict, matched anywhere in a line (tests/lib.sh's
 * ncu_trouble matches the same). */
static enum bf_ncu_verdict line_verdict(const char *line)
{
    static const struct {
        const char *words;
        enum bf_ncu_verdict verdict;
    } said[] = {
        {"ERR_NVGPUCTRPERM", BF_NCU_NO_PERMISSION},
        {"does not have permission to", BF_NCU_NO_PERMISSION},
        {"driver resource was unavailable", BF_NCU_BUSY},
        {"Failed to find metric", BF_NCU_NO_METRIC},
        {"Failed to access the following", BF_NCU_NO_METRIC},
        {"==ERROR==", BF_NCU_FAILED},
    };
    for (size_t i = 0; i < sizeof said / sizeof *said; ++i)
        if (strstr(line, said[i].words) != NULL)
            return said[i].verdict;
    return BF_NCU_OK;
}

/* A line without its "==ERROR== " and its line end. */
static void keep_line(char *dst, size_t len, const char *line)
{
    static const char tag[] = "==ERROR== ";
    if (strncmp(line, tag, sizeof tag - 1) == 0)
        line += sizeof tag - 1;
    snprintf(dst, len, "%.*s", (int)strcspn(line, "\r\n"), line);
}

enum bf_ncu_verdict bf_ncu_verdict(FILE *output, int failed, char *line, size_t len)
{
    enum bf_ncu_verdict verdict = BF_NCU_OK;
    char text[1024], last[1024] = "";
    if (len > 0)
        line[0] = '\0';
    while (output != NULL && fgets(text, sizeof text, output) != NULL) {
        /* A line longer than text: the rest of it is read as a line of its own. */
        enum bf_ncu_verdict v = line_verdict(text);
        if (v > verdict) { /* the first line of the most telling kind */
            verdict = v;
            if (len > 0)
                keep_line(line, len, text);
        }
        if (strspn(text, " \t\r\n") != strlen(text))
            keep_line(last, sizeof last, text);
    }
    if (verdict == BF_NCU_NO_PERMISSION && len > 0)
        snprintf(line, len, "%s", BF_NCU_PERMISSION_HELP);
    if (verdict == BF_NCU_OK && failed) {
        verdict = BF_NCU_FAILED;
        if (len > 0)
            snprintf(line, len, "%s", last);
    }
    return verdict;
}

/* The verdict of ncu's output in a file (bf_ncu_verdict). */
static enum bf_ncu_verdict file_verdict(const char *path, int failed, char *line, size_t len)
{
    FILE *f = fopen(path, "r");
    enum bf_ncu_verdict v = bf_ncu_verdict(f, failed, line, len);
    if (f != NULL)
        fclose(f);
    return v;
}

static int temp_file(char *path, size_t len, const char *what)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/bankfree-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

int bf_counters_measure(const char *ncu, int argc, char **argv, uint64_t seed, int cc,
                        struct bf_counters *out, char *why, size_t len)
{
    char log_path[512], list_path[512], out_path[512], self[4096], metrics[2048];
    char seed_text[32];
    memset(out, 0, sizeof *out);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return bf_fail(why, len, "--counters: cannot find this program (/proc/self/exe)");
    self[n] = '\0';
    if (bf_counters_metrics(cc, metrics, sizeof metrics) != 0 || metrics[0] == '\0')
        return bf_fail(why, len, "--counters: ncu has none of the model's counters on sm_%d", cc);
    snprintf(seed_text, sizeof seed_text, "%" PRIu64, seed);
    if (temp_file(log_path, sizeof log_path, "ncu") != 0 ||
        temp_file(list_path, sizeof list_path, "list") != 0 ||
        temp_file(out_path, sizeof out_path, "out") != 0)
        return bf_fail(why, len, "--counters: cannot make a temporary file: %s", strerror(errno));

    enum { FIXED = 13 };
    char **args = calloc((size_t)argc + FIXED, sizeof *args);
    if (args == NULL)
        return bf_fail(why, len, "out of memory");
    const char *fixed[FIXED] = {
        ncu,      "--csv",          "--log-file",          log_path,    "--clock-control", "none",
        "--nvtx", "--nvtx-include", BF_PROFILED_RANGE "/", "--metrics", metrics,           self,
        NULL};
    int k = 0;
    for (; fixed[k] != NULL; ++k)
        args[k] = (char *)fixed[k];
    for (int i = 1; i < argc; ++i)
        args[k++] = argv[i];
    args[k] = NULL;

    /* The pass's environment, made before fork: CUDA's threads are running,
     * so the child calls nothing but async-signal-safe functions. */
    extern char **environ;
    int nenv = 0;
    while (environ[nenv] != NULL)
        ++nenv;
    char **env = calloc((size_t)nenv + 3, sizeof *env);
    char list_env[600], seed_env[64];
    if (env == NULL) {
        free(args);
        return bf_fail(why, len, "out of memory");
    }
    snprintf(list_env, sizeof list_env, "%s=%s", BF_COUNTERS_ENV, list_path);
    snprintf(seed_env, sizeof seed_env, "%s=%s", BF_COUNTERS_SEED_ENV, seed_text);
    int k_env = 0;
    env[k_env++] = list_env;
    env[k_env++] = seed_env;
    for (int i = 0; i < nenv; ++i)
        if (strncmp(environ[i], BF_COUNTERS_ENV "=", strlen(BF_COUNTERS_ENV) + 1) != 0 &&
            strncmp(environ[i], BF_COUNTERS_SEED_ENV "=", strlen(BF_COUNTERS_SEED_ENV) + 1) != 0)
            env[k_env++] = environ[i];
    env[k_env] = NULL;

    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_TRUNC);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execve(ncu, args, env);
        _exit(127);
    }
    free(env);
    free(args);
    int status = 0, rc = 0;
    if (pid < 0)
        rc = bf_fail(why, len, "--counters: cannot start ncu: %s", strerror(errno));
    else {
        /* ncu's messages go to its log (--log-file), the program's to out;
         * ncu may exit 0 when it could not profile, so both are read. */
        const int failed =
            waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        char said[512], said_log[512];
        enum bf_ncu_verdict v = file_verdict(out_path, failed, said, sizeof said);
        enum bf_ncu_verdict v_log = file_verdict(log_path, failed, said_log, sizeof said_log);
        if (v_log > v || said[0] == '\0') {
            v = v_log > v ? v_log : v;
            memcpy(said, said_log, sizeof said);
        }
        switch (v) {
        case BF_NCU_NO_PERMISSION:
            rc = 1;
            snprintf(why, len, "%s", said);
            break;
        case BF_NCU_BUSY:
            rc = 1;
            snprintf(why, len, "ncu cannot profile now: %s", said);
            break;
        case BF_NCU_NO_METRIC:
            rc = bf_fail(why, len,
                         "--counters: ncu lacks a counter that bf_op_counters (common/counters.c) "
                         "gives sm_%d: %s",
                         cc, said);
            break;
        case BF_NCU_FAILED:
            if (WIFSIGNALED(status))
                rc = bf_fail(why, len,
                             "--counters: the pass under %s failed (killed by signal %d): %s", ncu,
                             WTERMSIG(status), said);
            else
                rc = bf_fail(why, len, "--counters: the pass under %s failed (exit %d): %s", ncu,
                             WIFEXITED(status) ? WEXITSTATUS(status) : -1, said);
            break;
        case BF_NCU_OK:
            break;
        }
    }
    if (rc == 0) {
        FILE *log = fopen(log_path, "r"), *list = fopen(list_path, "r");
        if (log == NULL || list == NULL)
            rc = bf_fail(why, len, "--counters: cannot read ncu's log or the pass's list");
        else
            rc = bf_counters_parse(log, list, out, why, len);
        if (log != NULL)
            fclose(log);
        if (list != NULL)
            fclose(list);
    }
    remove(log_path);
    remove(list_path);
    remove(out_path);
    return rc;
}
