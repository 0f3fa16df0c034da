/* Which family types a --type names: the type itself, or either part of a
 * type named "A-B" (u8 names u8-uniform and u8-same; same names u8-same and
 * u16-same). Never a prefix: f does not name f32. Standalone, so the command
 * line's test checks it without the runner. */
#ifndef BANKFREE_TYPE_MATCH_H
#define BANKFREE_TYPE_MATCH_H

#include <string.h>

/* 1 if --type `wanted` selects the type `name`. */
static inline int bf_type_matches(const char *name, const char *wanted)
{
    if (strcmp(name, wanted) == 0)
        return 1;
    const char *dash = strchr(name, '-');
    if (dash == NULL || *wanted == '\0')
        return 0;
    size_t a = (size_t)(dash - name);
    return (strlen(wanted) == a && strncmp(name, wanted, a) == 0) || strcmp(dash + 1, wanted) == 0;
}

#endif
