/* harness/run/metrics_window.c: the live metrics' window of the summed power (metrics_int.h): a ring of points dt_s
 * apart, sized for its last MX_WINDOW_S, the points the sampler missed counted missing. */
#include <math.h>
#include <stdlib.h>

#include "metrics_int.h"
#include "util.h"

/* Adds a point of the summed power to the window (none before a start sized it). */
void mx_push(struct metrics *m, double watts)
{
    if (m->win_cap <= 0)
        return;
    m->win[m->win_at] = watts;
    m->win_at = (m->win_at + 1) % m->win_cap;
    m->win_n = m->win_n < m->win_cap ? m->win_n + 1 : m->win_cap;
}

/* Sizes the window for points every dt_s: its last MX_WINDOW_S, within MX_WINDOW_MIN and MX_WINDOW_MAX points. */
void mx_window(struct metrics *m, double dt_s)
{
    double want = dt_s > 0 ? ceil(MX_WINDOW_S / dt_s - 1e-9) : MX_WINDOW_MIN;
    int cap = want < MX_WINDOW_MIN ? MX_WINDOW_MIN : want > MX_WINDOW_MAX ? MX_WINDOW_MAX : (int)want;
    if (cap != m->win_cap) {
        free(m->win);
        m->win = xmalloc((size_t)cap * sizeof *m->win);
        m->win_cap = cap;
    }
    m->dt_s = dt_s > 0 ? dt_s : 0;
    m->win_n = m->win_at = 0;
}

void mx_push_missed(struct metrics *m, double from_s, double to_s)
{
    /* the ticks the sampler missed (behind, it takes one sample a wake however many ticks passed) are missing points,
     * as the summary's grid counts them (until 2026-12-02 none: a 30 s window held 43 s at 700 of 1000 Hz, and its
     * ramps and frequency read high): the grid's ticks between the two, each time on its own tick (a wake's jitter
     * is no missed tick); a gap longer than the window empties it */
    if (!(m->dt_s > 0) || !(to_s > from_s))
        return;
    double missed = round(to_s / m->dt_s) - round(from_s / m->dt_s) - 1;
    for (long k = 0; k < (missed < m->win_cap ? (long)missed : m->win_cap); k++)
        mx_push(m, NAN);
}
