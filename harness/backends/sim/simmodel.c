/* harness/backends/sim/simmodel.c: the sim backend's power model (simmodel.h). */
#include "simmodel.h"

#include <math.h>

double simmodel_limited_s(double p0, double target, double tau, double up_w_s, double down_w_s)
{
    double gap = fabs(target - p0), lim = target > p0 ? up_w_s : down_w_s;
    if (!(lim > 0))
        return 0;
    double excess = gap - lim * (tau > 0 ? tau : 0);
    return excess > 0 ? excess / lim : 0;
}

double simmodel_power(double p0, double target, double dt, double tau, double up_w_s, double down_w_s)
{
    if (!(dt > 0) || target == p0)
        return p0;
    double dir = target > p0 ? 1 : -1, lim = dir > 0 ? up_w_s : down_w_s;
    double t1 = simmodel_limited_s(p0, target, tau, up_w_s, down_w_s);
    if (dt < t1)   /* the limit binds: linear */
        return p0 + dir * lim * dt;
    if (!(tau > 0))
        return target;
    if (t1 > 0)    /* joined at gap lim * tau, where the natural slope equals the limit */
        return target - dir * lim * tau * exp(-(dt - t1) / tau);
    return target + (p0 - target) * exp(-dt / tau);
}

double simmodel_release_extra_s(double nominal_s, double p0, double target, double tau, double up_w_s)
{
    double gap = target - p0;
    if (!(gap > 0) || !(up_w_s > 0))
        return 0;
    if (!(tau > 0))
        tau = 0;
    double t1 = simmodel_limited_s(p0, target, tau, up_w_s, 0);
    if (t1 <= 0)
        return 0;
    /* work done by t < t1: the integral of up_w_s (s + tau) / gap ds */
    double work_t1 = up_w_s * (t1 * t1 / 2 + tau * t1) / gap;
    if (nominal_s >= work_t1)
        return (gap - up_w_s * tau) * (gap - up_w_s * tau) / (2 * up_w_s * gap);
    if (!(nominal_s > 0))
        return 0;
    /* done before the join: up_w_s (T^2 / 2 + tau T) / gap = nominal_s */
    double T = -tau + sqrt(tau * tau + 2 * gap * nominal_s / up_w_s);
    return T > nominal_s ? T - nominal_s : 0;
}

double simmodel_power_floor(double p0, double target, double dt, double tau, double up_w_s, double down_w_s,
                            double floor_w)
{
    double p = simmodel_power(p0, target, dt, tau, up_w_s, down_w_s);
    return floor_w > 0 && p0 >= floor_w && p < floor_w ? floor_w : p;
}
