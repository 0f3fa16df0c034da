/* A very small check library for the CPU tests: failures are counted and
 * printed with file:line, and unit_finish turns them into the exit code. */
#ifndef BANKFREE_UNIT_H
#define BANKFREE_UNIT_H

#include <stdio.h>

static int unit_failures;
static int unit_checks;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        ++unit_checks;                                                                             \
        if (!(cond)) {                                                                             \
            ++unit_failures;                                                                       \
            fprintf(stderr, "%s:%d: check failed: ", __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define EXPECT_EQ(got, want, what)                                                                 \
    EXPECT((long long)(got) == (long long)(want), "%s: got %lld, want %lld", what,                 \
           (long long)(got), (long long)(want))

static inline int unit_finish(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}

#endif
