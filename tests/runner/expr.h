/* The integer expressions of `bankfree ways`: C's, on 64-bit signed values,
 * in named variables. An expression is compiled once into a small stack
 * program, then run once a lane a request (2^20 requests x 32 lanes in well
 * under a second).
 *
 * Operators, C's precedence and associativity: ?: || && | ^ & == != < <= >
 * >= << >> + - * / % and the unary - + ~ !; parentheses; whole numbers as C
 * writes them (decimal, 0x hex, 0 octal; no suffix). Arithmetic that C leaves
 * undefined is an error, not a value: overflow of 64 bits, division or
 * remainder by zero, a shift by a negative count or by 64 or more, a left
 * shift of a negative value. Only the branch ?:, && and || take is run, so
 * `lane ? 64 / lane : 0` is fine. */
#ifndef BANKFREE_EXPR_H
#define BANKFREE_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define BF_EXPR_MAX_VARS  16
#define BF_EXPR_MAX_DEPTH 200 /* parentheses and operators nested in one another */

struct bf_expr_op;

struct bf_expr {
    struct bf_expr_op *op;
    int nops;
    int depth;      /* the most values the program holds at once, or more */
    int64_t *stack; /* depth values: one run */
    int64_t *lanes; /* depth x BF_EXPR_LANES values: a run of every lane at once */
    /* bf_expr_run_lanes keeps what a run computes from the lane and constants
     * alone (lane % 16 * 128 in lane % 16 * 128 + c * 2048): a row of values a
     * part, for the next runs over as many lanes. */
    int64_t *kept;
    int kept_lanes; /* the lanes the kept rows hold; 0: none yet */
};

#define BF_EXPR_LANES 32

/* What went wrong, where: the column (1-based) in the text. */
struct bf_expr_error {
    int column;
    int syntax; /* the text is not an expression (else: a name, a number, a value) */
    char what[160];
};

/* Compiles text with the variables names[0..nnames-1] (a variable is its
 * index in vars[] when run); bit i of `changing` set where variable i may
 * change between runs of bf_expr_run_lanes (variable 0, the lane, aside).
 * Returns 0, or -1 with the error and its column: a syntax error, an unknown
 * name, a number past 64 bits, nesting past BF_EXPR_MAX_DEPTH. */
int bf_expr_compile(struct bf_expr *e, const char *text, const char *const *names, int nnames,
                    uint32_t changing, struct bf_expr_error *err);

/* Runs the program on the variables' values. Returns 0 and the value in
 * *out, or -1 with the error and the column of the operator that failed. */
int bf_expr_run(const struct bf_expr *e, const int64_t *vars, int64_t *out,
                struct bf_expr_error *err);

/* Runs the program for lanes 0 to nlanes - 1 (nlanes <= BF_EXPR_LANES), the
 * lane's number as variable 0 (vars[0] is left as it was): out[lane]. Each
 * operation over every lane at once (the lanes a branch parts, over each
 * part), the same values and the same error as bf_expr_run lane by lane (the
 * first lane that fails, at the place it fails). Returns 0, or -1 with the error and
 * the lane in *failed. */
int bf_expr_run_lanes(struct bf_expr *e, int64_t *vars, int nlanes, int64_t *out,
                      struct bf_expr_error *err, int *failed);

/* A number or a variable that is by itself an operand of * (32 and 4 in
 * lane * 32 * 4, not 33 in lane * (33 + 1)): a stride that padding may
 * change. Where it stands in the text: column (1-based) and length. */
struct bf_expr_factor {
    int column, length;
    int var;       /* the variable's index, or -1 for a number */
    int64_t value; /* the number's value (a variable's: 0) */
};

/* The factors of a compiled expression, in text order, at most max (the
 * lane, variable 0, is not one). Returns how many. */
int bf_expr_factors(const struct bf_expr *e, struct bf_expr_factor *out, int max);

void bf_expr_free(struct bf_expr *e);

#endif
