#include "common/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *s;
    size_t len, pos;
    int depth;
    char *why;
    size_t whylen;
};

static void *fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void *fail(struct parser *p, const char *fmt, ...)
{
    int n = snprintf(p->why, p->whylen, "byte %zu: ", p->pos);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->whylen)
        vsnprintf(p->why + n, p->whylen - (size_t)n, fmt, ap);
    va_end(ap);
    return NULL;
}

static int at_end(const struct parser *p)
{
    return p->pos >= p->len;
}

static void skip_space(struct parser *p)
{
    while (!at_end(p) && strchr(" \t\n\r", p->s[p->pos]) != NULL && p->s[p->pos] != '\0')
        ++p->pos;
}

static struct bf_json *node(struct parser *p, enum bf_json_type type)
{
    struct bf_json *v = calloc(1, sizeof *v);
    if (v == NULL)
        return fail(p, "out of memory");
    v->type = type;
    return v;
}

static int hex4(struct parser *p, unsigned *out)
{
    if (p->len - p->pos < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = p->s[p->pos + (size_t)i];
        const char *digits = "0123456789abcdef", *d = c ? strchr(digits, c | 0x20) : NULL;
        if (d == NULL)
            return -1;
        v = v * 16 + (unsigned)(d - digits);
    }
    p->pos += 4;
    *out = v;
    return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/* A string, p->pos at its opening quote. Its text is never longer than the
 * input it came from (an escape writes at most as many bytes as it spans). */
static char *string(struct parser *p)
{
    size_t end = p->pos + 1;
    while (end < p->len && p->s[end] != '"')
        end += p->s[end] == '\\' ? 2 : 1;
    char *out = malloc((end < p->len ? end : p->len) - p->pos + 1), *o = out;
    if (out == NULL)
        return fail(p, "out of memory");
    ++p->pos;
    for (;;) {
        if (at_end(p)) {
            free(out);
            return fail(p, "the string does not end");
        }
        const unsigned char c = (unsigned char)p->s[p->pos++];
        if (c == '"')
            break;
        if (c < 0x20) {
            --p->pos;
            free(out);
            return fail(p, "a control character (0x%02x) in a string", c);
        }
        if (c != '\\') {
            *o++ = (char)c; /* bytes above 0x7f are taken as they are */
            continue;
        }
        if (at_end(p)) {
            free(out);
            return fail(p, "the string does not end");
        }
        const char e = p->s[p->pos++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *k = e ? strchr(from, e) : NULL;
        if (k != NULL) {
            *o++ = to[k - from];
            continue;
        }
        unsigned cp, low;
        if (e != 'u' || hex4(p, &cp) != 0) {
            free(out);
            return fail(p, "a bad escape in a string");
        }
        if (cp >= 0xdc00 && cp <= 0xdfff) {
            free(out);
            return fail(p, "a lone low surrogate (\\u%04x)", cp);
        }
        if (cp >= 0xd800 && cp <= 0xdbff) {
            const int escape =
                p->len - p->pos >= 2 && p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u';
            if (escape)
                p->pos += 2;
            if (!escape || hex4(p, &low) != 0 || low < 0xdc00 || low > 0xdfff) {
                free(out);
                return fail(p, "a high surrogate (\\u%04x) without its low one", cp);
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        if (cp == 0) {
            free(out);
            return fail(p, "a NUL (\\u0000) in a string");
        }
        o = put_utf8(o, cp);
    }
    *o = '\0';
    return out;
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, as a finite double:
 * 0, -1 (not a number), -2 (out of memory) or -3 (out of double's range). */
static int number_text(struct parser *p, double *out)
{
    const size_t start = p->pos;
#define DIGIT (!at_end(p) && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
    if (!at_end(p) && p->s[p->pos] == '-')
        ++p->pos;
    if (!DIGIT)
        return -1;
    if (p->s[p->pos++] != '0')
        while (DIGIT)
            ++p->pos;
    if (!at_end(p) && p->s[p->pos] == '.') {
        ++p->pos;
        if (!DIGIT)
            return -1;
        while (DIGIT)
            ++p->pos;
    }
    if (!at_end(p) && (p->s[p->pos] | 0x20) == 'e') {
        ++p->pos;
        if (!at_end(p) && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            ++p->pos;
        if (!DIGIT)
            return -1;
        while (DIGIT)
            ++p->pos;
    }
#undef DIGIT
    const size_t n = p->pos - start;
    char small[64], *text = n < sizeof small ? small : malloc(n + 1);
    if (text == NULL)
        return -2;
    memcpy(text, p->s + start, n);
    text[n] = '\0';
    errno = 0;
    *out = strtod(text, NULL);
    const int range = errno == ERANGE && isinf(*out);
    if (text != small)
        free(text);
    return range || !isfinite(*out) ? -3 : 0;
}

static int number(struct parser *p, double *out)
{
    const size_t start = p->pos;
    const int rc = number_text(p, out);
    if (rc != 0)
        p->pos = start; /* the error names where the number starts */
    return rc;
}

static struct bf_json *value(struct parser *p);

/* An array or an object, p->pos at its bracket. */
static struct bf_json *container(struct parser *p, int object)
{
    if (++p->depth > BF_JSON_MAX_DEPTH)
        return fail(p, "nested deeper than %d", BF_JSON_MAX_DEPTH);
    struct bf_json *v = node(p, object ? BF_JSON_OBJECT : BF_JSON_ARRAY), **tail;
    if (v == NULL)
        return NULL;
    tail = &v->child;
    const char end = object ? '}' : ']';
    ++p->pos;
    skip_space(p);
    if (!at_end(p) && p->s[p->pos] == end) {
        ++p->pos;
        --p->depth;
        return v;
    }
    for (;;) {
        char *key = NULL;
        if (object) {
            skip_space(p);
            if (at_end(p) || p->s[p->pos] != '"') {
                bf_json_free(v);
                return fail(p, "an object member must start with its name in quotes");
            }
            if ((key = string(p)) == NULL) {
                bf_json_free(v);
                return NULL;
            }
            skip_space(p);
            if (at_end(p) || p->s[p->pos] != ':') {
                free(key);
                bf_json_free(v);
                return fail(p, "':' expected after a member's name");
            }
            ++p->pos;
        }
        struct bf_json *item = value(p);
        if (item == NULL) {
            free(key);
            bf_json_free(v);
            return NULL;
        }
        item->key = key;
        *tail = item;
        tail = &item->next;
        skip_space(p);
        if (!at_end(p) && p->s[p->pos] == ',') {
            ++p->pos;
            continue;
        }
        if (!at_end(p) && p->s[p->pos] == end) {
            ++p->pos;
            --p->depth;
            return v;
        }
        bf_json_free(v);
        return fail(p, "',' or '%c' expected", end);
    }
}

static struct bf_json *value(struct parser *p)
{
    skip_space(p);
    if (at_end(p))
        return fail(p, "the text ends where a value should be");
    const char c = p->s[p->pos];
    if (c == '{' || c == '[')
        return container(p, c == '{');
    if (c == '"') {
        char *s = string(p);
        struct bf_json *v = s ? node(p, BF_JSON_STRING) : NULL;
        if (v == NULL)
            free(s);
        else
            v->string = s;
        return v;
    }
    static const struct {
        const char *word;
        enum bf_json_type type;
    } words[] = {{"null", BF_JSON_NULL}, {"false", BF_JSON_FALSE}, {"true", BF_JSON_TRUE}};
    for (size_t i = 0; i < sizeof words / sizeof *words; ++i) {
        const size_t n = strlen(words[i].word);
        if (p->len - p->pos >= n && memcmp(p->s + p->pos, words[i].word, n) == 0) {
            p->pos += n;
            return node(p, words[i].type);
        }
    }
    double d;
    const int rc = number(p, &d);
    if (rc == -2)
        return fail(p, "out of memory");
    if (rc == -3)
        return fail(p, "a number out of range");
    if (rc != 0)
        return fail(p, "not a JSON value");
    struct bf_json *v = node(p, BF_JSON_NUMBER);
    if (v != NULL)
        v->number = d;
    return v;
}

struct bf_json *bf_json_parse(const char *text, size_t len, char *why, size_t whylen)
{
    struct parser p = {text, len, 0, 0, why, whylen};
    struct bf_json *v = value(&p);
    if (v == NULL)
        return NULL;
    skip_space(&p);
    if (!at_end(&p)) {
        bf_json_free(v);
        return fail(&p, "more text after the value");
    }
    return v;
}

void bf_json_free(struct bf_json *v)
{
    while (v != NULL) {
        struct bf_json *next = v->next;
        bf_json_free(v->child); /* depth is at most BF_JSON_MAX_DEPTH */
        free(v->string);
        free(v->key);
        free(v);
        v = next;
    }
}

const struct bf_json *bf_json_get(const struct bf_json *object, const char *key)
{
    if (object == NULL || object->type != BF_JSON_OBJECT)
        return NULL;
    for (const struct bf_json *m = object->child; m != NULL; m = m->next)
        if (strcmp(m->key, key) == 0)
            return m;
    return NULL;
}

const char *bf_json_get_string(const struct bf_json *object, const char *key)
{
    const struct bf_json *m = bf_json_get(object, key);
    return m != NULL && m->type == BF_JSON_STRING ? m->string : NULL;
}

double bf_json_get_number(const struct bf_json *object, const char *key, int *ok)
{
    const struct bf_json *m = bf_json_get(object, key);
    *ok = m != NULL && m->type == BF_JSON_NUMBER;
    return *ok ? m->number : 0.0;
}
