/* A small, strict JSON reader (RFC 8259) for what bankfree writes itself:
 * `bankfree compare` reads two `bench --format json` files with it. Values are
 * a tree of nodes; an object's members keep their order. Input it cannot take
 * (bad syntax, a number out of double's range, nesting deeper than
 * BF_JSON_MAX_DEPTH, a string with a NUL) is refused with the byte offset and
 * one line of why, never read past its length. */
#ifndef BANKFREE_JSON_H
#define BANKFREE_JSON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BF_JSON_MAX_DEPTH 64

enum bf_json_type {
    BF_JSON_NULL,
    BF_JSON_FALSE,
    BF_JSON_TRUE,
    BF_JSON_NUMBER,
    BF_JSON_STRING,
    BF_JSON_ARRAY,
    BF_JSON_OBJECT
};

struct bf_json {
    enum bf_json_type type;
    double number;         /* BF_JSON_NUMBER */
    char *string;          /* BF_JSON_STRING: UTF-8, NUL-terminated */
    char *key;             /* a member of an object: its name; else NULL */
    struct bf_json *child; /* an array's or object's first element */
    struct bf_json *next;  /* the next element of the parent */
};

/* Parses len bytes of text. Returns the root, or NULL with why (including
 * the byte offset; out of memory is said so). */
struct bf_json *bf_json_parse(const char *text, size_t len, char *why, size_t whylen);
void bf_json_free(struct bf_json *v);

/* An object's member by name (the first, if repeated), or NULL (not an object,
 * or no such member). */
const struct bf_json *bf_json_get(const struct bf_json *object, const char *key);

/* The member as a string or a number, or NULL / 0 when it is missing or of
 * another type (*ok set to 0). */
const char *bf_json_get_string(const struct bf_json *object, const char *key);
double bf_json_get_number(const struct bf_json *object, const char *key, int *ok);

#ifdef __cplusplus
}
#endif

#endif
