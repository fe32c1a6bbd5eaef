/* harness/core/linecap.c: reading a line of an outside file with a bound on its length (getline_cap). */
#include <stdio.h>
#include <sys/types.h>

#include "util.h"

ssize_t getline_cap(char **line, size_t *cap, FILE *f, size_t max)
{
    size_t len = 0;
    int c = 0;
    if (!*line || *cap < 2) {
        *cap = *cap < 256 ? 256 : *cap;
        *line = xrealloc(*line, *cap);
    }
    while (len < max && (c = getc_unlocked(f)) != EOF) {
        if (len + 2 > *cap) {   /* room for c and the NUL */
            size_t grown = *cap * 2 < max + 2 ? *cap * 2 : max + 2;
            *line = xrealloc(*line, grown);
            *cap = grown;
        }
        (*line)[len++] = (char)c;
        if (c == '\n')
            break;
    }
    if (len == max && c != '\n') {   /* longer than max: the rest of it read past, never held */
        int d = getc_unlocked(f);
        if (d != EOF && d != '\n') {
            while ((d = getc_unlocked(f)) != EOF && d != '\n')
                ;
            (*line)[0] = 0;
            return -2;
        }
        if (d == '\n') {   /* exactly max bytes and its newline: a line of max bytes */
            if (len + 2 > *cap) {
                *line = xrealloc(*line, len + 2);
                *cap = len + 2;
            }
            (*line)[len++] = '\n';
        }
    }
    if (len == 0)
        return -1;
    (*line)[len] = 0;
    return (ssize_t)len;
}
