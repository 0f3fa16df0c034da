#include "tests/runner/expr.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum code {
    PUSH,  /* value */
    VAR,   /* value: the variable's index */
    JZ,    /* value: where to go when the popped value is 0 */
    JUMP,  /* value: where to go */
    TRUTH, /* x != 0, for && and || */
    NEG,
    COMPL,
    NOT,
    MUL,
    DIV,
    REM,
    ADD,
    SUB,
    SHL,
    SHR,
    LT,
    LE,
    GT,
    GE,
    EQ,
    NE,
    AND,
    XOR,
    OR
};

struct bf_expr_op {
    enum code code;
    int column; /* of the operator, for run-time errors */
    int64_t value;
    /* A part of the program that the lane and constants alone decide, run
     * once and kept: at its first op, `kept_end` is its last (else -1); at
     * its last, `kept_row` is its row in e->kept (else -1). */
    int kept_end, kept_row;
    int length; /* PUSH of a number, VAR: the characters it is written in */
    int factor; /* PUSH, VAR: an operand of * by itself (32 in lane * 32 * 4) */
};

struct parser {
    const char *text, *at;
    const char *const *names;
    int nnames, depth, held;
    struct bf_expr *e;
    struct bf_expr_error *err;
};

static int failv(struct bf_expr_error *err, int syntax, int column, const char *fmt, va_list ap)
{
    vsnprintf(err->what, sizeof err->what, fmt, ap);
    err->column = column;
    err->syntax = syntax;
    return -1;
}

/* An error at a column: fail for a name, a number or a value, syntax_error
 * for text that is not an expression. Both return -1. */
static int fail(struct bf_expr_error *err, int column, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct bf_expr_error *err, int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(err, 0, column, fmt, ap);
    va_end(ap);
    return -1;
}
static int syntax_error(struct bf_expr_error *err, int column, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int syntax_error(struct bf_expr_error *err, int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(err, 1, column, fmt, ap);
    va_end(ap);
    return -1;
}

static int column(const struct parser *p, const char *at)
{
    return (int)(at - p->text) + 1;
}

static void skip_space(struct parser *p)
{
    while (*p->at == ' ' || *p->at == '\t' || *p->at == '\n')
        ++p->at;
}

/* The program grows by one op; it was sized for the text, so it never runs
 * out (every op comes from at least one character but TRUTH, JZ and JUMP,
 * whose operators are two characters or come in pairs). */
static int emit(struct parser *p, enum code code, const char *at, int64_t value)
{
    /* The values held: +1 a value pushed, -1 a pair made one or a condition
     * taken; a branch's two arms each count, so this is an upper bound. */
    static const int held[] = {[PUSH] = 1,  [VAR] = 1, [JZ] = -1,   [JUMP] = 0,
                               [TRUTH] = 0, [NEG] = 0, [COMPL] = 0, [NOT] = 0};
    const int change = code <= NOT ? held[code] : -1;
    if (p->held + change > p->e->depth)
        p->e->depth = p->held + change;
    p->held += change;
    struct bf_expr_op *op = &p->e->op[p->e->nops++];
    op->code = code;
    op->column = column(p, at);
    op->value = value;
    op->kept_end = op->kept_row = -1;
    op->length = 1;
    op->factor = 0;
    return p->e->nops - 1;
}

/* "what the text holds here", for errors: the token, or "the end". */
static void found(const char *at, char *buf, size_t len)
{
    if (*at == '\0') {
        snprintf(buf, len, "the end");
        return;
    }
    size_t n = 1;
    if (strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", *at))
        while (n < 20 && at[n] != '\0' &&
               strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", at[n]))
            ++n;
    if ((unsigned char)*at < 0x20 || (unsigned char)*at >= 0x7f)
        snprintf(buf, len, "byte 0x%02x", (unsigned char)*at);
    else
        snprintf(buf, len, "'%.*s'", (int)n, at);
}

static int expected(struct parser *p, const char *what)
{
    char f[40];
    found(p->at, f, sizeof f);
    return syntax_error(p->err, column(p, p->at), "%s expected, found %s", what, f);
}

static int is_name_char(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

/* A whole number as C writes one: 0x hex, a leading 0 octal, else decimal. */
static int number(struct parser *p)
{
    const char *start = p->at;
    int base = 10;
    if (p->at[0] == '0' && (p->at[1] == 'x' || p->at[1] == 'X')) {
        base = 16;
        p->at += 2;
    } else if (p->at[0] == '0') {
        base = 8;
    }
    uint64_t v = 0;
    int digits = 0;
    for (;; ++p->at, ++digits) {
        char c = *p->at;
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : 99;
        if (d >= base) {
            if (d < 16 || is_name_char(c, 0))
                return syntax_error(p->err, column(p, p->at), "'%c' in a base-%d number", c, base);
            break;
        }
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base ||
            v * (uint64_t)base + (uint64_t)d > (uint64_t)INT64_MAX)
            return fail(p->err, column(p, start), "%.*s... is past 2^63 - 1", (int)(p->at - start),
                        start);
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (base == 16 && digits == 0)
        return syntax_error(p->err, column(p, p->at), "hex digits expected after 0x");
    p->e->op[emit(p, PUSH, start, (int64_t)v)].length = (int)(p->at - start);
    return 0;
}

static int conditional(struct parser *p);

static int primary(struct parser *p)
{
    skip_space(p);
    const char *at = p->at;
    if (*at >= '0' && *at <= '9')
        return number(p);
    if (is_name_char(*at, 1)) {
        size_t n = 0;
        while (is_name_char(at[n], 0))
            ++n;
        p->at += n;
        for (int i = 0; i < p->nnames; ++i)
            if (strlen(p->names[i]) == n && strncmp(p->names[i], at, n) == 0) {
                p->e->op[emit(p, VAR, at, i)].length = (int)n;
                return 0;
            }
        return fail(p->err, column(p, at),
                    "unknown name '%.*s' (lane, or one given with --let or --for)",
                    n > 40 ? 40 : (int)n, at);
    }
    if (*at == '(') {
        ++p->at;
        if (conditional(p) != 0)
            return -1;
        skip_space(p);
        if (*p->at != ')')
            return expected(p, "')'");
        ++p->at;
        return 0;
    }
    return expected(p, "a number, a name or '('");
}

/* C reads "--" and "++" as one token, decrement and increment, which an
 * expression of values cannot have: "a - -b" is what "a--b" would mean. */
static int crement(struct parser *p)
{
    if ((p->at[0] != '-' && p->at[0] != '+') || p->at[1] != p->at[0])
        return 0;
    return syntax_error(p->err, column(p, p->at), "'%.2s' is C's %s, not two signs (write '%c %c')",
                        p->at, p->at[0] == '-' ? "decrement" : "increment", p->at[0], p->at[0]);
}

static int unary(struct parser *p)
{
    skip_space(p);
    const char *at = p->at;
    if (crement(p) != 0)
        return -1;
    static const char ops[] = "-+~!";
    const char *op = *at ? strchr(ops, *at) : NULL;
    if (op == NULL)
        return primary(p);
    if (++p->depth > BF_EXPR_MAX_DEPTH)
        return fail(p->err, column(p, at), "nested deeper than %d", BF_EXPR_MAX_DEPTH);
    ++p->at;
    if (unary(p) != 0)
        return -1;
    --p->depth;
    static const enum code codes[] = {NEG, PUSH /* unused: + does nothing */, COMPL, NOT};
    if (*op != '+')
        emit(p, codes[op - ops], at, 0);
    return 0;
}

/* The binary operators, a level of precedence a row, tightest first. */
static const struct binary {
    const char *text;
    enum code code;
} levels[][4] = {
    {{"*", MUL}, {"/", DIV}, {"%", REM}},
    {{"+", ADD}, {"-", SUB}},
    {{"<<", SHL}, {">>", SHR}},
    {{"<=", LE}, {">=", GE}, {"<", LT}, {">", GT}},
    {{"==", EQ}, {"!=", NE}},
    {{"&", AND}},
    {{"^", XOR}},
    {{"|", OR}},
};
#define LEVELS ((int)(sizeof levels / sizeof *levels))

/* The operator of `level` at p->at, or NULL; & is not &&, | not ||, < not <<. */
static const struct binary *binary_at(const struct parser *p, int level)
{
    for (int i = 0; i < 4 && levels[level][i].text != NULL; ++i) {
        const char *t = levels[level][i].text;
        size_t n = strlen(t);
        if (strncmp(p->at, t, n) != 0)
            continue;
        if (n == 1 && (p->at[1] == t[0] || (strchr("<>!=", t[0]) && p->at[1] == '=')) &&
            t[0] != '-' && t[0] != '+')
            continue; /* the first character of a longer operator */
        return &levels[level][i];
    }
    return NULL;
}

/* The op just compiled from start, if it is the operand's only op: a
 * number or a name by itself. */
static struct bf_expr_op *lone_operand(struct parser *p, int start)
{
    struct bf_expr_op *op = &p->e->op[start];
    return p->e->nops == start + 1 && (op->code == PUSH || op->code == VAR) ? op : NULL;
}

static int binary(struct parser *p, int level)
{
    if (level < 0)
        return unary(p);
    const int first = p->e->nops;
    if (binary(p, level - 1) != 0)
        return -1;
    struct bf_expr_op *left = lone_operand(p, first); /* the chain's first operand alone */
    for (;;) {
        skip_space(p);
        if (crement(p) != 0)
            return -1;
        const struct binary *b = binary_at(p, level);
        if (b == NULL)
            return 0;
        const char *at = p->at;
        p->at += strlen(b->text);
        const int start = p->e->nops;
        if (binary(p, level - 1) != 0)
            return -1;
        struct bf_expr_op *right = lone_operand(p, start);
        if (b->code == MUL && left != NULL)
            left->factor = 1;
        if (b->code == MUL && right != NULL)
            right->factor = 1;
        left = NULL;
        emit(p, b->code, at, 0);
    }
}

/* a && b: 0 if a is 0, else b != 0, b run only then; a || b alike. */
static int logical(struct parser *p, int is_or)
{
    if (is_or ? logical(p, 0) != 0 : binary(p, LEVELS - 1) != 0)
        return -1;
    const char *op = is_or ? "||" : "&&";
    for (;;) {
        skip_space(p);
        if (strncmp(p->at, op, 2) != 0)
            return 0;
        const char *at = p->at;
        p->at += 2;
        /* && : a; JZ false; b; TRUTH; JUMP end; false: PUSH 0; end:
         * || : a; NOT; JZ true; b; TRUTH; JUMP end; true: PUSH 1; end: */
        if (is_or)
            emit(p, NOT, at, 0);
        const int jz = emit(p, JZ, at, 0);
        if (is_or ? logical(p, 0) != 0 : binary(p, LEVELS - 1) != 0)
            return -1;
        emit(p, TRUTH, at, 0);
        const int jump = emit(p, JUMP, at, 0);
        p->e->op[jz].value = emit(p, PUSH, at, is_or);
        p->e->op[jump].value = p->e->nops;
    }
}

/* c ? a : b, right to left: c ? a : d ? e : f is c ? a : (d ? e : f). */
static int conditional(struct parser *p)
{
    const char *start = p->at;
    if (++p->depth > BF_EXPR_MAX_DEPTH)
        return fail(p->err, column(p, start), "nested deeper than %d", BF_EXPR_MAX_DEPTH);
    if (logical(p, 1) != 0)
        return -1;
    skip_space(p);
    if (*p->at != '?') {
        --p->depth;
        return 0;
    }
    const char *at = p->at++;
    const int jz = emit(p, JZ, at, 0);
    if (conditional(p) != 0)
        return -1;
    skip_space(p);
    if (*p->at != ':')
        return expected(p, "':'");
    ++p->at;
    const int jump = emit(p, JUMP, at, 0);
    p->e->op[jz].value = p->e->nops;
    if (conditional(p) != 0)
        return -1;
    p->e->op[jump].value = p->e->nops;
    --p->depth;
    return 0;
}

/* Marks the parts of a program without branches that no changing variable
 * reaches, the largest such (not a lone number or name: nothing to save),
 * to be run once and kept. Returns how many. */
static int mark_kept(struct bf_expr *e, uint32_t changing)
{
    struct part {
        int changes, first, last; /* its ops: first to last */
    } *stack = malloc((size_t)(e->nops + 1) * sizeof *stack);
    int n = 0, kept = 0;
    for (int pc = 0; pc < e->nops && stack != NULL; ++pc)
        if (e->op[pc].code == JZ || e->op[pc].code == JUMP)
            goto done; /* branches: lane by lane, nothing kept */
    for (int pc = 0; pc < e->nops && stack != NULL; ++pc) {
        const struct bf_expr_op *op = &e->op[pc];
        struct part top = {0, pc, pc};
        if (op->code == PUSH || op->code == VAR) {
            top.changes =
                op->code == VAR && op->value > 0 && op->value < 32 && (changing >> op->value & 1u);
        } else if (op->code == NEG || op->code == COMPL || op->code == NOT) {
            top = stack[--n];
        } else { /* binary: the two below it */
            const struct part b = stack[--n], a = stack[--n];
            top.changes = a.changes | b.changes;
            top.first = a.first;
            for (int i = 0; top.changes && i < 2; ++i) { /* a steady side: kept */
                const struct part *side = i ? &b : &a;
                if (!side->changes && side->last > side->first) {
                    e->op[side->first].kept_end = side->last;
                    e->op[side->last].kept_row = kept++;
                }
            }
        }
        top.last = pc;
        stack[n++] = top;
    }
    if (stack != NULL && n == 1 && !stack[0].changes && stack[0].last > stack[0].first) {
        e->op[stack[0].first].kept_end = stack[0].last; /* the whole expression */
        e->op[stack[0].last].kept_row = kept++;
    }
done:
    free(stack);
    return kept;
}

int bf_expr_compile(struct bf_expr *e, const char *text, const char *const *names, int nnames,
                    uint32_t changing, struct bf_expr_error *err)
{
    memset(e, 0, sizeof *e);
    /* At most one op a character, but && and || (four and five ops for two
     * characters, between two operands of a character at least): three
     * times the length is room enough. */
    const size_t room = 3 * strlen(text) + 4;
    e->op = malloc(room * sizeof *e->op);
    if (e->op == NULL)
        return fail(err, 1, "out of host memory");
    struct parser p = {text, text, names, nnames, 0, 0, e, err};
    if (conditional(&p) != 0) {
        bf_expr_free(e);
        return -1;
    }
    skip_space(&p);
    if (*p.at != '\0') {
        expected(&p, "an operator");
        bf_expr_free(e);
        return -1;
    }
    const int kept = mark_kept(e, changing);
    e->stack = malloc((size_t)e->depth * sizeof *e->stack);
    e->lanes = malloc((size_t)e->depth * BF_EXPR_LANES * sizeof *e->lanes);
    e->kept = malloc((size_t)(kept + 1) * BF_EXPR_LANES * sizeof *e->kept);
    if (e->stack == NULL || e->lanes == NULL || e->kept == NULL) {
        bf_expr_free(e);
        return fail(err, 1, "out of host memory");
    }
    return 0;
}

int bf_expr_factors(const struct bf_expr *e, struct bf_expr_factor *out, int max)
{
    int n = 0;
    for (int pc = 0; pc < e->nops && n < max; ++pc) {
        const struct bf_expr_op *op = &e->op[pc];
        if (!op->factor || (op->code == VAR && op->value == 0))
            continue;
        out[n].column = op->column;
        out[n].length = op->length;
        out[n].var = op->code == VAR ? (int)op->value : -1;
        out[n].value = op->code == PUSH ? op->value : 0;
        ++n;
    }
    return n;
}

void bf_expr_free(struct bf_expr *e)
{
    free(e->op);
    free(e->stack);
    free(e->lanes);
    free(e->kept);
    memset(e, 0, sizeof *e);
}

/* C's int64_t arithmetic where it is defined; -1 where it is not. */
static int apply(enum code code, int64_t a, int64_t b, int64_t *out, const char **why)
{
    switch (code) {
    case MUL:
        *why = "64-bit overflow in *";
        return __builtin_mul_overflow(a, b, out) ? -1 : 0;
    case ADD:
        *why = "64-bit overflow in +";
        return __builtin_add_overflow(a, b, out) ? -1 : 0;
    case SUB:
        *why = "64-bit overflow in -";
        return __builtin_sub_overflow(a, b, out) ? -1 : 0;
    case DIV:
    case REM:
        *why = code == DIV ? "division by zero" : "remainder by zero (% 0)";
        if (b == 0)
            return -1;
        *why = "64-bit overflow: INT64_MIN / -1";
        if (a == INT64_MIN && b == -1)
            return -1;
        *out = code == DIV ? a / b : a % b;
        return 0;
    case SHL:
    case SHR:
        *why = "a shift by a negative count or by 64 or more";
        if (b < 0 || b > 63)
            return -1;
        if (code == SHR) {
            *out = a >> b; /* of a negative value: arithmetic, as gcc and clang do */
            return 0;
        }
        *why = "a left shift of a negative value";
        if (a < 0)
            return -1;
        *why = "64-bit overflow in <<";
        if (b > 0 && (a >> (63 - b)) != 0)
            return -1;
        *out = (int64_t)((uint64_t)a << b);
        return 0;
    case LT:
        *out = a < b;
        return 0;
    case LE:
        *out = a <= b;
        return 0;
    case GT:
        *out = a > b;
        return 0;
    case GE:
        *out = a >= b;
        return 0;
    case EQ:
        *out = a == b;
        return 0;
    case NE:
        *out = a != b;
        return 0;
    case AND:
        *out = a & b;
        return 0;
    case XOR:
        *out = a ^ b;
        return 0;
    case OR:
        *out = a | b;
        return 0;
    default:
        *why = "an unknown operation";
        return -1;
    }
}

int bf_expr_run(const struct bf_expr *e, const int64_t *vars, int64_t *out,
                struct bf_expr_error *err)
{
    int64_t *sp = e->stack; /* the next free slot */
    for (int pc = 0; pc < e->nops; ++pc) {
        const struct bf_expr_op *op = &e->op[pc];
        const char *why = NULL;
        switch (op->code) {
        case PUSH:
            *sp++ = op->value;
            break;
        case VAR:
            *sp++ = vars[op->value];
            break;
        case JZ:
            if (*--sp == 0)
                pc = (int)op->value - 1;
            break;
        case JUMP:
            pc = (int)op->value - 1;
            break;
        case TRUTH:
            sp[-1] = sp[-1] != 0;
            break;
        case NEG:
            if (sp[-1] == INT64_MIN)
                return fail(err, op->column, "64-bit overflow: -INT64_MIN");
            sp[-1] = -sp[-1];
            break;
        case COMPL:
            sp[-1] = ~sp[-1];
            break;
        case NOT:
            sp[-1] = !sp[-1];
            break;
        default:
            --sp;
            if (apply(op->code, sp[-1], sp[0], &sp[-1], &why) != 0)
                return fail(err, op->column, "%s", why);
        }
    }
    *out = sp[-1];
    return 0;
}

/* The lanes a run of the program follows: lanes 0 to n - 1, or (past a
 * branch the lanes took apart) those listed in `lane`. */
struct lane_set {
    int n;
    const uint8_t *lane; /* NULL: 0 to n - 1, in loops the compiler vectorises */
};

/* body once for each lane l of the set */
#define EACH_LANE(set, body)                                                                       \
    do {                                                                                           \
        if ((set)->lane == NULL)                                                                   \
            for (int l = 0; l < (set)->n; ++l) {                                                   \
                body;                                                                              \
            }                                                                                      \
        else                                                                                       \
            for (int i_ = 0; i_ < (set)->n; ++i_) {                                                \
                const int l = (set)->lane[i_];                                                     \
                body;                                                                              \
            }                                                                                      \
    } while (0)

/* One operation over a set of lanes at once (a is the row below b on the
 * stack; unary operations take a alone); 0, or -1 where a lane fails (the
 * caller then runs lane by lane for the error). An operation is dispatched
 * once a request, not once a lane. */
static int apply_lanes(enum code code, int64_t *a, const int64_t *b, const struct lane_set *s)
{
    int bad = 0;
    switch (code) {
    case NEG:
        EACH_LANE(s, bad |= __builtin_sub_overflow((int64_t)0, a[l], &a[l]));
        break;
    case COMPL:
        EACH_LANE(s, a[l] = ~a[l]);
        break;
    case NOT:
        EACH_LANE(s, a[l] = !a[l]);
        break;
    case TRUTH:
        EACH_LANE(s, a[l] = a[l] != 0);
        break;
    case MUL:
        EACH_LANE(s, bad |= __builtin_mul_overflow(a[l], b[l], &a[l]));
        break;
    case ADD:
        EACH_LANE(s, bad |= __builtin_add_overflow(a[l], b[l], &a[l]));
        break;
    case SUB:
        EACH_LANE(s, bad |= __builtin_sub_overflow(a[l], b[l], &a[l]));
        break;
    case AND:
        EACH_LANE(s, a[l] &= b[l]);
        break;
    case XOR:
        EACH_LANE(s, a[l] ^= b[l]);
        break;
    case OR:
        EACH_LANE(s, a[l] |= b[l]);
        break;
    case DIV:
    case REM: { /* the checks first; by one power of two, shifts */
        const int64_t d = b[s->lane ? s->lane[0] : 0];
        int same = 1;
        EACH_LANE(s, bad |= b[l] == 0 || (a[l] == INT64_MIN && b[l] == -1); same &= b[l] == d);
        if (bad)
            break;
        if (same && d > 0 && (d & (d - 1)) == 0) {
            const int shift = __builtin_ctzll((uint64_t)d);
            /* C's quotient goes toward 0: a negative a rounds up */
            if (code == DIV)
                EACH_LANE(s, a[l] = (a[l] < 0 ? a[l] + (d - 1) : a[l]) >> shift);
            else
                EACH_LANE(s, a[l] -= ((a[l] < 0 ? a[l] + (d - 1) : a[l]) >> shift) * d);
        } else if (code == DIV) {
            EACH_LANE(s, a[l] /= b[l]);
        } else {
            EACH_LANE(s, a[l] %= b[l]);
        }
        break;
    }
    default: /* the rest through the one-value rule */
        EACH_LANE(s, const char *why; bad |= apply(code, a[l], b[l], &a[l], &why));
        break;
    }
    return bad ? -1 : 0;
}

/* The program from pc on, for the lanes of s, its stack rows from sp (a row
 * of BF_EXPR_LANES values, a column a lane): where lanes part at a branch,
 * those that jump run on in a call of their own. Returns 0 with each lane's
 * value in out[lane], or -1 where an operation failed for one of them. */
static int run_set(const struct bf_expr *e, int pc, int64_t *sp, struct lane_set s,
                   const int64_t *vars, int64_t *out, int use_kept)
{
    uint8_t stay[BF_EXPR_LANES], jump[BF_EXPR_LANES];
    for (; pc < e->nops; ++pc) {
        const struct bf_expr_op *op = &e->op[pc];
        if (use_kept && s.lane == NULL && op->kept_end >= 0) { /* a part run before: its row */
            memcpy(sp, &e->kept[e->op[op->kept_end].kept_row * BF_EXPR_LANES],
                   (size_t)s.n * sizeof *sp);
            sp += BF_EXPR_LANES;
            pc = op->kept_end;
            continue;
        }
        switch (op->code) {
        case PUSH:
        case VAR: {
            const int64_t v = op->code == PUSH ? op->value : vars[op->value];
            if (op->code == VAR && op->value == 0) /* the lane */
                EACH_LANE(&s, sp[l] = l);
            else
                EACH_LANE(&s, sp[l] = v);
            sp += BF_EXPR_LANES;
            break;
        }
        case JUMP:
            pc = (int)op->value - 1;
            break;
        case JZ: {
            sp -= BF_EXPR_LANES;
            int nstay = 0, njump = 0;
            EACH_LANE(&s, if (sp[l]) stay[nstay++] = (uint8_t)l; else jump[njump++] = (uint8_t)l);
            if (nstay > 0 && njump > 0) { /* apart: those that jump, on their own */
                const struct lane_set j = {njump, jump};
                if (run_set(e, (int)op->value, sp, j, vars, out, 0) != 0)
                    return -1;
                s = (struct lane_set){nstay, stay};
            } else if (njump > 0) {
                pc = (int)op->value - 1;
            }
            break;
        }
        case NEG:
        case COMPL:
        case NOT:
        case TRUTH:
            if (apply_lanes(op->code, sp - BF_EXPR_LANES, NULL, &s) != 0)
                return -1;
            break;
        default:
            sp -= BF_EXPR_LANES;
            if (apply_lanes(op->code, sp - BF_EXPR_LANES, sp, &s) != 0)
                return -1;
        }
        if (op->kept_row >= 0 && s.lane == NULL) /* for the runs after this one */
            memcpy(&e->kept[op->kept_row * BF_EXPR_LANES], sp - BF_EXPR_LANES,
                   (size_t)s.n * sizeof *sp);
    }
    EACH_LANE(&s, out[l] = sp[l - BF_EXPR_LANES]);
    return 0;
}

int bf_expr_run_lanes(struct bf_expr *e, int64_t *vars, int nlanes, int64_t *out,
                      struct bf_expr_error *err, int *failed)
{
    const struct lane_set all = {nlanes, NULL};
    const int use_kept = e->kept_lanes == nlanes;
    if (run_set(e, 0, e->lanes, all, vars, out, use_kept) == 0) {
        e->kept_lanes = nlanes; /* the kept rows hold this run's */
        return 0;
    }
    /* A lane failed: lane by lane, in order, for the first and its error. */
    const int64_t lane_var = vars[0];
    for (int l = 0; l < nlanes; ++l) {
        vars[0] = l;
        if (bf_expr_run(e, vars, &out[l], err) != 0) {
            vars[0] = lane_var;
            *failed = l;
            return -1;
        }
    }
    vars[0] = lane_var;
    return 0;
}
