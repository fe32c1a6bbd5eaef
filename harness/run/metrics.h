/* harness/run/metrics.h: live metrics for Prometheus (metrics.c): OpenMetrics over HTTP and a node_exporter
 * textfile, from the same event lines and power rows a view of the run gets. */
#ifndef GAUNTLET_METRICS_H
#define GAUNTLET_METRICS_H

#include <netinet/in.h>
#include <stddef.h>

#include "cli.h"
#include "view.h"

/* A view that keeps the metrics and hands everything on to inner (NULL: nothing): serving OpenMetrics at
 * http://listen/metrics (ADDR:PORT; NULL: no server) and rewriting textdir/gauntlet.prom every second (NULL: no
 * file; textdir/gauntlet.prom.lock held meanwhile), which says the run ended once it has (stop). NULL with why when
 * the address is bad, cannot be bound, the server was not built, or another process holds textdir. */
const struct view_link *metrics_view_open(const struct view_link *inner, const char *listen, const char *textdir,
                                          char *why, size_t n);
/* Stops the server and frees the view (not inner). */
void metrics_view_close(const struct view_link *v);
/* Hands everything on to inner from now on (NULL: nothing): one view, one server, over several runs (accept). */
void metrics_view_attach(const struct view_link *v, const struct view_link *inner);
/* Lines (families with their HELP and TYPE, the same in both formats) added to every scrape over HTTP, copied; NULL
 * clears them. accept's verdicts so far. */
void metrics_set_extra(const struct view_link *v, const char *text);
/* Checks cmd's --metrics ADDR:PORT and --metrics-textfile DIR into *listen and *dir (NULL: not given): 0, or the
 * usage error (exit 2). */
int metrics_args(const struct cli_cmd *cmd, const struct cli_args *a, const char **listen, const char **dir);
/* Parses ADDR:PORT (IPv4; ":PORT" or "*:PORT": every address). 0, or -1 with why. */
int metrics_parse_addr(const char *text, struct sockaddr_in *out, char *why, size_t n);

#endif
