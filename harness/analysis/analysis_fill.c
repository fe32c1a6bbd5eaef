/* harness/analysis/analysis_fill.c: the least energy a floor and ramp limits above a trace cost (analysis.h,
 * an_least_fill_j): what a mitigation's energy is judged against. */
#include <math.h>
#include <stdlib.h>

#include "analysis.h"
#include "util.h"

double an_least_fill_j(const double *t_s, const double *p, size_t n, double floor_w, double up_w_s, double down_w_s)
{
    double *q = xmalloc((n ? n : 1) * sizeof *q), t_prev = NAN, q_prev = NAN, e = 0;
    for (size_t i = 0; i < n; i++) {   /* forward: the floor, and never a fall faster than down_w_s */
        q[i] = NAN;
        if (!isfinite(p[i]) || !isfinite(t_s[i]))
            continue;
        double lo = floor_w > 0 && floor_w > p[i] ? floor_w : p[i];
        if (isfinite(q_prev) && down_w_s > 0 && q_prev - down_w_s * (t_s[i] - t_prev) > lo)
            lo = q_prev - down_w_s * (t_s[i] - t_prev);
        q[i] = q_prev = lo;
        t_prev = t_s[i];
    }
    q_prev = t_prev = NAN;
    for (size_t i = n; i-- > 0;) {   /* backward: never a rise faster than up_w_s (it begins early) */
        if (!isfinite(q[i]))
            continue;
        if (isfinite(q_prev) && up_w_s > 0 && q_prev - up_w_s * (t_prev - t_s[i]) > q[i])
            q[i] = q_prev - up_w_s * (t_prev - t_s[i]);
        if (isfinite(q_prev))   /* the step after: Q - p of this sample, held to the next */
            e += (q[i] - p[i]) * (t_prev - t_s[i]);
        q_prev = q[i];
        t_prev = t_s[i];
    }
    free(q);
    return e;
}
