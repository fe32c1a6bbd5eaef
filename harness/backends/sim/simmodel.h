/* harness/backends/sim/simmodel.h: the sim backend's power model as pure functions — the power after a change
 * of level, and the compute time a ramp-up limit costs — shared by the worker that drives the model, the
 * supervisor that samples it (backends/sim.c) and the tests.
 *
 * A change from p0 to target follows the natural first-order response (time constant tau), bounded by the
 * ramp limits:  dP/dt = clamp((target - P) / tau, -down_w_s, +up_w_s).  While the gap |target - P| is more
 * than limit * tau the power moves linearly at the limit; from there on it follows the exponential, joined
 * with the same value and slope. A limit of 0 is no limit; a limit with limit * tau >= |target - p0| never
 * binds and gives exactly the natural curve. tau <= 0 is an immediate response (linear at a limit if any). */
#ifndef GAUNTLET_SIMMODEL_H
#define GAUNTLET_SIMMODEL_H

/* Returns the power dt seconds after a change from p0 to target (dt <= 0: p0). */
double simmodel_power(double p0, double target, double dt, double tau, double up_w_s, double down_w_s);
/* simmodel_power with a floor (> 0): a fall from at or above floor_w follows the natural response to target until
 * it reaches the floor, then holds it (filler work fills only what the power would lose below the floor). */
double simmodel_power_floor(double p0, double target, double dt, double tau, double up_w_s, double down_w_s,
                            double floor_w);

/* Returns how long the change from p0 to target moves linearly at its limit before it joins the natural
 * response (0 when the limit does not bind or there is none). */
double simmodel_limited_s(double p0, double target, double tau, double up_w_s, double down_w_s);

/* Returns the time a ramp-up limit adds to a compute phase of nominal_s seconds whose power rises from p0 to
 * target. The limit holds back the GEMM chain's release: the work rate is the share of the step the chain has
 * been released to, (u - p0) / (target - p0), where u = P + tau dP/dt is the level whose natural response is
 * the limited curve (u = target at once without a limit: no time is lost to the natural response). While
 * the limit binds u climbs linearly from p0 + up_w_s * tau to target; after the join it is target. The time
 * lost over the whole rise is the area between the natural and the limited curve divided by the step:
 *     (gap - up_w_s * tau)^2 / (2 * up_w_s * gap),   gap = target - p0,
 * 0 when up_w_s * tau >= gap (the limit never binds), growing as the limit tightens, and gap / (2 up_w_s)
 * (half the work rate while power climbs) when tau is 0. A phase whose work is done before the join pays
 * only for what it ran. 0 on a fall or without a limit. */
double simmodel_release_extra_s(double nominal_s, double p0, double target, double tau, double up_w_s);

#endif
