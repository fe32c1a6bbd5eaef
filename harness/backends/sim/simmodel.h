/* harness/backends/sim/simmodel.h: the sim backend's power model as pure functions — the power after a change
 * of level, and a fall held up by filler work in a gap between compute phases — shared by the worker that drives the model, the
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

/* The power dt seconds after a change from p0 to target inside a gap between compute phases, where filler work
 * holds the fall up: the fall is limited to down_w_s (0: none) only below hold_w (> 0; the filler's most: above it
 * the power falls naturally), and stops at floor_w (> 0) when it started at or above it. No limit on a rise. */
double simmodel_power_gap(double p0, double target, double dt, double tau, double down_w_s, double floor_w,
                          double hold_w);

/* Returns how long the change from p0 to target moves linearly at its limit before it joins the natural
 * response (0 when the limit does not bind or there is none). */
double simmodel_limited_s(double p0, double target, double tau, double up_w_s, double down_w_s);

#endif
