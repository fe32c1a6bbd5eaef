/* harness/analysis/analyze.h: `gauntlet analyze` and `gauntlet bench analysis`. */
#ifndef GAUNTLET_ANALYZE_H
#define GAUNTLET_ANALYZE_H

/* `gauntlet analyze TRACE.csv [--gpus N] [--groups G] [--jitter DURATION] [--json]`; returns the exit code. */
int analyze_main(int argc, char **argv);
/* `gauntlet bench analysis [--seconds DURATION] [--gpus N] [--threads N] [--reference numpy]` (bench_analysis.c);
 * returns the exit code. */
int bench_analysis_main(int argc, char **argv);

#endif
