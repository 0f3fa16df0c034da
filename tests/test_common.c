/* The common layer's host side: inputs, validation, timing statistics, sizes
 * and reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/data.h"
#include "common/registry.h"
#include "common/report.h"
#include "common/timing.h"
#include "common/validate.h"
#include "tests/unit.h"

static void test_random_inputs(void)
{
    int zeros = 0, outside = 0, same = 0;
    double sum = 0;
    const int n = 1 << 22;
    for (int i = 0; i < n; ++i) {
        float v = bf_random_f32(42, (uint64_t)i);
        zeros += v == 0.0f;
        outside += !(v > -1.0f && v < 1.0f);
        same += v == bf_random_f32(43, (uint64_t)i);
        sum += v;
    }
    EXPECT_EQ(zeros, 0, "zeros among 4M random floats");
    EXPECT_EQ(outside, 0, "values outside (-1, 1)");
    EXPECT(same < 16, "seeds 42 and 43 agree on %d of 4M elements", same);
    EXPECT(fabs(sum / n) < 0.01, "mean %g is not near 0", sum / n);
    EXPECT(bf_random_f32(7, 123) == bf_random_f32(7, 123), "same seed, same value");
    EXPECT(bf_case_seed(1, 0) != bf_case_seed(1, 1), "cases get fresh seeds");
}

static void test_validation(void)
{
    float want[5] = {1, 2, 3, 4, 5}, got[5] = {1, 2, 9, 4, 7};
    size_t first;
    EXPECT_EQ(bf_compare_exact(got, want, 5, sizeof(float), &first), 2, "mismatches");
    EXPECT_EQ(first, 2, "first mismatch");
    EXPECT_EQ(bf_compare_exact(want, want, 5, sizeof(float), &first), 0, "self");
    EXPECT_EQ(first, 5, "no mismatch: first == n");

    /* Poison (every byte 0xff) is a NaN that fails an exact and a float compare. */
    float poison;
    memset(&poison, 0xff, sizeof poison);
    EXPECT(isnan(poison), "poison is NaN");
    float out[3] = {1.0f, poison, 3.0f};
    double ref[3] = {1.0, 2.0, 3.0};
    struct bf_float_check c;
    EXPECT(!bf_compare_f32(out, ref, 3, 1.0, &c), "NaN never passes, whatever the tolerance");
    EXPECT_EQ(c.nans, 1, "NaN counted");
    float inf[1] = {INFINITY};
    EXPECT(!bf_compare_f32(inf, ref, 1, 1.0, &c), "infinity never passes");

    float close[3] = {1.0f, 2.0f + 1e-6f, 3.0f};
    EXPECT(bf_compare_f32(close, ref, 3, 1e-6, &c), "within tolerance: rel_l2 %g", c.rel_l2);
    EXPECT(c.worst == 1 && c.max_abs > 0, "worst element and max-abs");
    float far[3] = {1.0f, 2.5f, 3.0f};
    EXPECT(!bf_compare_f32(far, ref, 3, 1e-3, &c), "outside tolerance: rel_l2 %g", c.rel_l2);
}

static void test_timing_stats(void)
{
    double ms[7] = {5, 1, 4, 2, 3, 100, 3};
    struct bf_timing t;
    bf_timing_stats(ms, 7, &t);
    EXPECT(t.median_ms == 3 && t.min_ms == 1 && t.max_ms == 100 && t.reps == 7,
           "median/min/max: %g %g %g", t.median_ms, t.min_ms, t.max_ms);
    /* |x - 3| = 0 0 1 1 2 2 97: MAD 1, noise 1/3, unmoved by the outlier */
    EXPECT(fabs(t.noise - 1.0 / 3.0) < 1e-12, "noise %g", t.noise);
    double even[4] = {4, 1, 3, 2};
    bf_timing_stats(even, 4, &t);
    EXPECT(t.median_ms == 2.5, "median of an even count: %g", t.median_ms);
}

static void test_sizes(void)
{
    struct bf_size s;
    char why[256], text[64];
    EXPECT(bf_size_parse("8192x4096", 2, 1, &s, why, sizeof why) == 0, "parse: %s", why);
    EXPECT(s.ndims == 2 && s.dim[0] == 8192 && s.dim[1] == 4096, "dims");
    EXPECT_EQ(bf_size_elements(&s), 8192LL * 4096, "elements");
    bf_size_format(&s, text, sizeof text);
    EXPECT(strcmp(text, "8192x4096") == 0, "format: %s", text);
    EXPECT(bf_size_parse("100", 1, 1, &s, why, sizeof why) == 0 && s.dim[0] == 100, "1-D");
    const char *bad[] = {"",     "x",    "0x1",   "1x0",   "-1x2", "1x-2",
                         "1x2x", "1x2 ", "1e3x2", "1x2x3", "+1x2", "1099511627777x1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i)
        EXPECT(bf_size_parse(bad[i], 2, 1, &s, why, sizeof why) != 0, "'%s' accepted", bad[i]);
    /* Where empty input is valid (min_dim 0), 0 parses and -1 still does not. */
    EXPECT(bf_size_parse("0", 1, 0, &s, why, sizeof why) == 0 && s.dim[0] == 0, "0 with min 0");
    EXPECT(bf_size_parse("-1", 1, 0, &s, why, sizeof why) != 0, "-1 with min 0");
}

/* Prints a table to a string. */
static char *printed(const struct bf_table *t, enum bf_format f)
{
    static char buf[8192];
    FILE *tmp = tmpfile();
    bf_table_print(tmp, t, f);
    rewind(tmp);
    size_t n = fread(buf, 1, sizeof buf - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return buf;
}

static void test_report(void)
{
    static const char *const cols[] = {"name", "value", NULL};
    struct bf_table t;
    bf_table_init(&t, cols);
    bf_table_meta(&t, "device", "GPU \"one\"");
    bf_table_row(&t);
    bf_table_text(&t, "a,b");
    bf_table_num(&t, "%.2f", 1.5);
    bf_table_row(&t);
    bf_table_text(&t, "say \"hi\"");
    bf_table_num(&t, "nan");
    enum bf_format f;
    EXPECT(bf_format_parse("json", &f) == 0 && f == BF_FORMAT_JSON, "format names");
    EXPECT(bf_format_parse("xml", &f) != 0, "unknown format refused");

    const char *csv = printed(&t, BF_FORMAT_CSV);
    EXPECT(strstr(csv, "name,value\n\"a,b\",1.50\n\"say \"\"hi\"\"\",nan\n") != NULL, "csv:\n%s",
           csv);
    const char *json = printed(&t, BF_FORMAT_JSON);
    EXPECT(strstr(json, "\"device\": \"GPU \\\"one\\\"\"") != NULL, "json meta:\n%s", json);
    EXPECT(strstr(json, "{\"name\": \"a,b\", \"value\": 1.50}") != NULL, "json row:\n%s", json);
    EXPECT(strstr(json, "\"value\": null") != NULL, "json: a non-number becomes null:\n%s", json);
    const char *md = printed(&t, BF_FORMAT_MD);
    EXPECT(strstr(md, "| name     | value |") != NULL && strstr(md, "| -------- | ----: |"),
           "markdown:\n%s", md);
    const char *table = printed(&t, BF_FORMAT_TABLE);
    EXPECT(strstr(table, "a,b        1.50") != NULL, "aligned, numbers right:\n%s", table);
    bf_table_free(&t);
}

int main(void)
{
    test_random_inputs();
    test_validation();
    test_timing_stats();
    test_sizes();
    test_report();
    return unit_finish("common");
}
