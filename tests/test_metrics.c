/* tests/test_metrics.c: live metrics while a run goes — OpenMetrics over HTTP (--metrics) and node_exporter's
 * textfile (--metrics-textfile), each parsed by the Prometheus project's own parser for its format
 * (tests/check_metrics.py; promtool too where installed), with the series an operator watches; bad options exit 2. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"

/* Runs tests/check_metrics.py on path as fmt, requiring the families in want (a space-separated list); skips the
 * test, saying why, when no python3 here has the Prometheus parser. */
static void check(const char *path, const char *fmt, const char *want)
{
    const char *pythons[] = { "python3", "/usr/bin/python3" };
    char cmd[2048];
    int rc = 77;
    for (size_t i = 0; i < 2 && rc == 77; i++) {
        snprintf(cmd, sizeof cmd, "%s %s/tests/check_metrics.py %s %s %s > %s.check 2>&1", pythons[i], GAUNTLET_SRC, path,
                 fmt, want, path);
        int st = system(cmd);
        rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    snprintf(cmd, sizeof cmd, "%s.check", path);
    char *out = e2e_read(cmd);
    if (rc == 77)
        cr_skip_test("%s", out ? out : "no prometheus_client");
    cr_assert_eq(rc, 0, "%s", out ? out : "(no output)");
    cr_log_info("%s", out);
    free(out);
}

/* GET /metrics from 127.0.0.1:port asking for OpenMetrics (om) or anything: the whole response (headers and body),
 * or NULL when nothing answers. */
static char *scrape(int port, int om)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return NULL;
    }
    const char *req = om ? "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                           "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n\r\n"
                         : "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    cr_assert_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (ssize_t k; (k = read(fd, buf + len, cap - len - 1)) > 0;) {
        len += (size_t)k;
        if (cap - len < 4096)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    close(fd);
    return buf;
}

Test(metrics, served_and_written_while_a_run_goes, .timeout = 120)
{
    char dir[] = "/tmp/gauntlet-metrics-XXXXXX";
    cr_assert(mkdtemp(dir));
    int port = 20000 + (int)(getpid() % 20000);
    char listen[32];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
    const char *sc = e2e_scenario("name: metrics\nranks: 2\niterations: 120\nworkload:\n"
                                  "  gemm: {m: 8192, n: 8192, k: 8192, count: 8}\n  allreduce: {bytes: 256MiB, emulate_busbw: 50}\n"
                                  "  checkpoint: {every: 10, bytes: 1MiB, path: /tmp/gauntlet-metrics-ckpt}\n"
                                  "faults:\n  - {kind: crash, at: 20, rank: 1}\nrecovery: restart\n");
    const char *out = e2e_outdir();
    pid_t p = e2e_start("/tmp/gauntlet-metrics.log", (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out",
                                                                         out, "--metrics", listen, "--metrics-textfile", dir, NULL });
    cr_assert_eq(e2e_wait_events(out, "recovered", 1, 60), 0, "the run did not get past its crash");
    char path[600];
#ifdef GAUNTLET_HAVE_MHD
    for (int om = 1; om >= 0; om--) {   /* OpenMetrics to whoever asks for it (Prometheus), the text format otherwise */
        char *resp = scrape(port, om);
        cr_assert(resp, "nothing listens on %s", listen);
        cr_assert(strncmp(resp, "HTTP/1.", 7) == 0 && strstr(resp, " 200 "), "%.200s", resp);
        cr_assert(strstr(resp, om ? "application/openmetrics-text" : "text/plain; version=0.0.4"), "%.400s", resp);
        char *body = strstr(resp, "\r\n\r\n");
        cr_assert(body);
        cr_assert(strstr(body, "gauntlet_gpu_power_watts{node=\"0\",rank=\"1\",gpu="), "per GPU: node, rank, gpu:\n%s",
                  body);
        cr_assert(!strstr(body, "# EOF") == !om, "# EOF ends OpenMetrics only");
        snprintf(path, sizeof path, "%s/scrape.txt", dir);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs(body + 4, f);
        fclose(f);
        free(resp);
        check(path, om ? "openmetrics" : "prometheus",
              om ? "gauntlet_gpu_power_watts gauntlet_iteration_seconds gauntlet_gemm_tflops "
                   "gauntlet_power_swing_watts gauntlet_power_dominant_hertz gauntlet_power_sensor_update_seconds "
                   "gauntlet_iterations "
                   "gauntlet_faults_injected gauntlet_detections gauntlet_run_info"
                 : "gauntlet_gpu_power_watts gauntlet_iterations gauntlet_run_info");
    }
#else
    cr_log_info("--metrics ADDR:PORT not built (no libmicrohttpd): only the textfile is checked");
#endif
    cr_assert_eq(e2e_wait(p, 60), 0);
    snprintf(path, sizeof path, "%s/gauntlet.prom", dir);
    char *prom = e2e_read(path);
    cr_assert(prom, "no %s after the run", path);
    cr_assert(strstr(prom, "gauntlet_recoveries_total{recovery=\"restart\"} 1\n"), "%s", prom);
    cr_assert(strstr(prom, "gauntlet_faults_injected_total{kind=\"crash\"} 1\n"), "%s", prom);
    cr_assert(!strstr(prom, "# EOF"), "the textfile is Prometheus' format, not OpenMetrics");
    free(prom);
    check(path, "prometheus", "gauntlet_gpu_power_watts gauntlet_power_swing_watts gauntlet_recoveries gauntlet_run_info");
    /* bad options: exit 2 naming them */
    const char *log = "/tmp/gauntlet-metrics-bad.log";
    cr_assert_eq(e2e_run(log, (const char *[]){ "run", sc, "--backend", "sim", "--metrics", "localhost", NULL }), 2);
    char *text = e2e_read(log);
    cr_assert(strstr(text, "--metrics") && strstr(text, "ADDR:PORT"), "%s", text);
    free(text);
    cr_assert_eq(e2e_run(log, (const char *[]){ "run", sc, "--backend", "sim", "--metrics-textfile", "/nonexistent", NULL }),
                 2);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    cr_assert_eq(system(path), 0);
}

Test(metrics, accept_exports_its_verdicts, .timeout = 60)
{
    char dir[] = "/tmp/gauntlet-metrics-XXXXXX";
    cr_assert(mkdtemp(dir));
    const char *out = e2e_outdir(), *log = "/tmp/gauntlet-metrics-accept.log";
    int rc = e2e_run(log, (const char *[]){ "accept", "--level", "0", "--backend", "sim", "--out", out,
                                             "--scenarios", GAUNTLET_SRC "/scenarios/acceptance", "--metrics-textfile", dir, NULL });
    char *text = e2e_read(log);
    cr_assert_eq(rc, 0, "%s", text);
    free(text);
    char path[600];
    snprintf(path, sizeof path, "%s/gauntlet-accept.prom", dir);
    char *prom = e2e_read(path);
    cr_assert(prom, "no %s after accept", path);
    cr_assert(strstr(prom, "gauntlet_accept_check{scenario=\"L0-health\",check=\"gemm_tflops\",subject=\"node 0 gpu 0\","
                           "node=\"0\",status=\"pass\"} 1\n"), "%s", prom);
    cr_assert(strstr(prom, "gauntlet_accept_checks{status=\"fail\"} 0\n"), "%s", prom);
    free(prom);
    check(path, "prometheus", "gauntlet_accept_check gauntlet_accept_checks");
    snprintf(path, sizeof path, "%s/gauntlet.prom", dir);
    cr_assert_eq(access(path, F_OK), 0, "the scenario's run wrote its own live figures too");
    snprintf(path, sizeof path, "rm -rf %s", dir);
    cr_assert_eq(system(path), 0);
}
