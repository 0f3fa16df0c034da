/* The JSON reader (common/json.c) that `bankfree compare` reads runs with:
 * what it must take, what it must refuse with one line naming the byte, and
 * random and mangled input that must never crash it (run under the
 * sanitizers by the `sanitize-host` preset). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "tests/unit.h"

static struct bf_json *parse(const char *text, char *why, size_t len)
{
    return bf_json_parse(text, strlen(text), why, len);
}

static void test_accepts(void)
{
    char why[256] = "";
    struct bf_json *v = parse(
        " {\"meta\": {\"a\": \"x\\\"y\\\\z\\n\\u00e9\\ud83d\\ude00\"},\n \"rows\": [1, -0.5e1, "
        "0, 1E+2, true, false, null, [], {}], \"rows\": 3}\t",
        why, sizeof why);
    EXPECT(v != NULL, "a valid document refused: %s", why);
    if (v == NULL)
        return;
    EXPECT(strcmp(bf_json_get_string(bf_json_get(v, "meta"), "a"),
                  "x\"y\\z\n\xc3\xa9\xf0\x9f\x98\x80") == 0,
           "escapes, \\u00e9 and a surrogate pair as UTF-8");
    const struct bf_json *rows = bf_json_get(v, "rows"); /* the first of two */
    EXPECT(rows && rows->type == BF_JSON_ARRAY, "rows is the first member of that name");
    static const double want[] = {1, -5, 0, 100};
    const struct bf_json *e = rows ? rows->child : NULL;
    for (int i = 0; i < 4 && e; ++i, e = e->next)
        EXPECT(e->type == BF_JSON_NUMBER && e->number == want[i], "number %d", i);
    static const enum bf_json_type types[] = {BF_JSON_TRUE, BF_JSON_FALSE, BF_JSON_NULL,
                                              BF_JSON_ARRAY, BF_JSON_OBJECT};
    for (int i = 0; i < 5 && e; ++i, e = e->next)
        EXPECT(e->type == types[i] && e->child == NULL, "literal or empty container %d", i);
    int ok = 1;
    EXPECT(bf_json_get_number(v, "meta", &ok) == 0 && !ok, "a non-number asked as a number");
    EXPECT(bf_json_get(rows, "x") == NULL, "an array has no members");
    bf_json_free(v);

    v = parse("1e-400", why, sizeof why); /* underflows to 0: in range */
    EXPECT(v && v->number == 0, "1e-400 reads as 0");
    bf_json_free(v);
    v = parse("1.7976931348623157e308", why, sizeof why);
    EXPECT(v && v->number > 1e308, "the largest double");
    bf_json_free(v);

    /* as deep as allowed, and no deeper */
    char deep[2 * BF_JSON_MAX_DEPTH + 3];
    memset(deep, '[', BF_JSON_MAX_DEPTH);
    memset(deep + BF_JSON_MAX_DEPTH, ']', BF_JSON_MAX_DEPTH);
    deep[2 * BF_JSON_MAX_DEPTH] = '\0';
    v = parse(deep, why, sizeof why);
    EXPECT(v != NULL, "%d nested arrays refused: %s", BF_JSON_MAX_DEPTH, why);
    bf_json_free(v);
}

static void test_refuses(void)
{
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"", "byte 0: the text ends"},
        {"   ", "byte 3: the text ends"},
        {"{\"a\": 1,}", "byte 8: an object member must start"},
        {"[1, 2", "byte 5: ',' or ']' expected"},
        {"[1 2]", "byte 3: ',' or ']' expected"},
        {"{\"a\" 1}", "byte 5: ':' expected"},
        {"{1: 2}", "byte 1: an object member"},
        {"01", "byte 1: more text after the value"},
        {"1.", "byte 0: not a JSON value"},
        {".5", "byte 0: not a JSON value"},
        {"+1", "byte 0: not a JSON value"},
        {"-", "byte 0: not a JSON value"},
        {"0x10", "byte 1: more text"},
        {"1e309", "byte 0: a number out of range"},
        {"-1e999", "byte 0: a number out of range"},
        {"NaN", "byte 0: not a JSON value"},
        {"nul", "byte 0: not a JSON value"},
        {"\"abc", "the string does not end"},
        {"\"a\\", "the string does not end"},
        {"\"\\x\"", "a bad escape"},
        {"\"\\u12g4\"", "a bad escape"},
        {"\"\\udc00\"", "a lone low surrogate"},
        {"\"\\ud800\"", "without its low one"},
        {"\"\\ud800\\u0041\"", "without its low one"},
        {"\"\\u0000\"", "a NUL"},
        {"\"a\tb\"", "byte 2: a control character (0x09)"},
        {"true false", "more text after the value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        char why[256] = "";
        struct bf_json *v = parse(cases[i].text, why, sizeof why);
        EXPECT(v == NULL && strstr(why, cases[i].why) != NULL, "'%s': got '%s', want '%s'",
               cases[i].text, v ? "(accepted)" : why, cases[i].why);
        bf_json_free(v);
    }
    char deep[BF_JSON_MAX_DEPTH + 2], why[256] = "";
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    EXPECT(parse(deep, why, sizeof why) == NULL && strstr(why, "nested deeper than") != NULL,
           "%d nested arrays: %s", BF_JSON_MAX_DEPTH + 1, why);
    /* a NUL byte inside the given length is not the end of the text */
    EXPECT(bf_json_parse("[1]\0", 4, why, sizeof why) == NULL, "a NUL after the value");
    EXPECT(bf_json_parse("\"a\0b\"", 5, why, sizeof why) == NULL, "a raw NUL in a string");
    /* a short message buffer is cut, not overrun */
    char tiny[8];
    EXPECT(parse("[1, 2", tiny, sizeof tiny) == NULL && strlen(tiny) == sizeof tiny - 1,
           "the message cut to its buffer: '%s'", tiny);
}

static uint64_t next(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

/* Either a value, or NULL with "byte N: ..." for an N inside the text. */
static int well_refused(const char *text, size_t len)
{
    char why[256] = "";
    struct bf_json *v = bf_json_parse(text, len, why, sizeof why);
    if (v != NULL) {
        bf_json_free(v);
        return 1;
    }
    unsigned long at;
    return sscanf(why, "byte %lu: ", &at) == 1 && at <= len && strchr(why, '\n') == NULL;
}

/* Random bytes, every prefix of a bench-like document, and the document with
 * bytes changed: each parses or is refused with its byte, never a crash (the
 * sanitizers watch the reads). Each input is copied to a buffer of its exact
 * length, so a read past it is caught. */
static void test_fuzz(void)
{
    static const char doc[] =
        "{\"meta\": {\"device\": \"NVIDIA H100\", \"date\": \"2026-11-23 \\u00e9\"},\n"
        " \"rows\": [\n"
        "  {\"family\": \"transpose\", \"type\": \"f32\", \"size\": \"8192x8192\", \"variant\": "
        "\"padded\", \"median_ms\": 0.1234, \"noise_pct\": 0.25, \"reps\": 20, \"l2\": null},\n"
        "  {\"family\": \"gemm_tile\", \"type\": \"f16\", \"size\": \"1x1x8\", \"variant\": "
        "\"swizzled\", \"median_ms\": 1.5e-3, \"noise_pct\": 0, \"ok\": [true, false, -0]}\n"
        " ]}";
    const size_t n = sizeof doc - 1;
    uint64_t state = 12345;
    int bad = 0, accepted = 0;
    for (size_t len = 0; len <= n; ++len) { /* prefixes: only the whole parses */
        char *copy = malloc(len ? len : 1);
        memcpy(copy, doc, len);
        const int ok = well_refused(copy, len);
        char why[256];
        struct bf_json *v = bf_json_parse(copy, len, why, sizeof why);
        accepted += v != NULL;
        bf_json_free(v);
        bad += !ok;
        free(copy);
    }
    EXPECT_EQ(accepted, 1, "prefixes of the document that parse (only the whole)");
    static const char alphabet[] = "{}[]:,\"\\ u0123456789eE+-.tfnrlsa\x01\xff";
    for (int i = 0; i < 20000; ++i) {
        size_t len = (size_t)(next(&state) % 64);
        char *text = malloc(len ? len : 1);
        for (size_t k = 0; k < len; ++k)
            text[k] = i % 2 ? alphabet[next(&state) % (sizeof alphabet - 1)]
                            : (char)(next(&state) & 0xff);
        bad += !well_refused(text, len);
        free(text);
    }
    for (int i = 0; i < 20000; ++i) { /* the document with 1 to 4 bytes changed */
        char *text = malloc(n);
        memcpy(text, doc, n);
        for (int k = 0, changes = 1 + (int)(next(&state) % 4); k < changes; ++k)
            text[next(&state) % n] = alphabet[next(&state) % (sizeof alphabet - 1)];
        bad += !well_refused(text, n);
        free(text);
    }
    EXPECT_EQ(bad, 0, "inputs neither parsed nor refused with their byte");
}

int main(void)
{
    test_accepts();
    test_refuses();
    test_fuzz();
    return unit_finish("test_json");
}
