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

double simmodel_power_floor(double p0, double target, double dt, double tau, double up_w_s, double down_w_s,
                            double floor_w)
{
    double p = simmodel_power(p0, target, dt, tau, up_w_s, down_w_s);
    return floor_w > 0 && p0 >= floor_w && p < floor_w ? floor_w : p;
}

double simmodel_power_gap(double p0, double target, double dt, double tau, double down_w_s, double floor_w,
                          double hold_w)
{
    double p;
    if (down_w_s > 0 && hold_w > 0 && p0 > hold_w && target < hold_w) {
        /* natural from p0 until it reaches hold_w (at once without a response time), then limited */
        double ta = tau > 0 ? tau * log((p0 - target) / (hold_w - target)) : 0;
        p = dt < ta ? simmodel_power(p0, target, dt, tau, 0, 0) : simmodel_power(hold_w, target, dt - ta, tau, 0, down_w_s);
    } else {
        p = simmodel_power(p0, target, dt, tau, 0, down_w_s);
    }
    return floor_w > 0 && p0 >= floor_w && p < floor_w ? floor_w : p;
}
