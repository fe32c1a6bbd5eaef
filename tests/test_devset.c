/* tests/test_devset.c: device settings (the power limit, firmware power smoothing) through NVML against the
 * scripted stand-in (tests/nvml_standin.c), which writes each device's settings to a file: a change is put
 * back by devset_restore, by exit() without it, and by a crash; a limit outside the device's range and a
 * missing permission are errors that name what was wrong; a GPU without smoothing says so (the caller
 * emulates it). */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devset.h"
#include "e2e.h"
#include "nvml.h"

static char state_path[256];

/* Names this test process's state file (the stand-in writes it), removed when the process exits. */
static void state_name(void)
{
    snprintf(state_path, sizeof state_path, "/tmp/gauntlet-devset-%d.state", (int)getpid());
    e2e_own(state_path);
}

/* Opens the stand-in with a fresh state file; skips when it was not built. */
static struct nvml *open_standin(void)
{
#ifdef NVML_STANDIN
    char why[512] = "";
    if (!state_path[0]) {   /* a child of a test keeps its parent's file */
        state_name();
        unlink(state_path);
    }
    cr_assert_eq(setenv("GAUNTLET_NVML_LIB", NVML_STANDIN, 1), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_STATE", state_path, 1), 0);
    struct nvml *nv = nvml_open(why, sizeof why);
    cr_assert_not_null(nv, "nvml_open on the stand-in failed: %s", why);
    return nv;
#else
    cr_skip_test("the NVML stand-in was not built");
    return NULL;
#endif
}

static unsigned last_profile;   /* the active smoothing profile of the device state_of read last */

/* Device dev's line of the state file: its limit (mW), smoothing on, profile 0's floor; 0 or -1. */
static int state_of(int dev, unsigned *limit_mw, unsigned *smooth_on, double *floor)
{
    FILE *f = fopen(state_path, "r");
    if (!f)
        return -1;
    unsigned d, l, s, prof;
    double p0, p1, p2, p3;
    int rc = -1;
    while (fscanf(f, "%u %u %u %lf %lf %lf %lf %u", &d, &l, &s, &p0, &p1, &p2, &p3, &prof) == 8)
        if ((int)d == dev) {
            *limit_mw = l, *smooth_on = s, *floor = p0;
            last_profile = prof;
            rc = 0;
        }
    fclose(f);
    return rc;
}

Test(devset, a_power_limit_is_set_and_put_back)
{
    struct nvml *nv = open_standin();
    char why[256] = "";
    double from = 0;
    unsigned l, s;
    double fl;
    cr_assert_eq(devset_power_limit(nv, 1, 500, &from, why, sizeof why), 0, "%s", why);
    cr_assert_float_eq(from, 650, 1e-9, "the limit before");
    cr_assert_eq(state_of(1, &l, &s, &fl), 0);
    cr_assert_eq(l, 500000u, "the GPU's limit is now 500 W");
    cr_assert_eq(devset_power_limit(nv, 1, 400, &from, why, sizeof why), 0, "%s", why);
    cr_assert_float_eq(from, 500, 1e-9);
    cr_assert_eq(devset_changed(), 1, "one device, one setting: the first value is the one kept");
    cr_assert_eq(devset_restore(-1), 0);
    cr_assert_eq(state_of(1, &l, &s, &fl), 0);
    cr_assert_eq(l, 650000u, "put back to the limit before the first change, not the second");
    cr_assert_eq(devset_changed(), 0);
    cr_assert_eq(devset_restore(-1), 0, "restoring twice is harmless");
    nvml_close(nv);
}

Test(devset, out_of_range_and_no_permission_are_errors_that_say_why)
{
    struct nvml *nv = open_standin();
    char why[256] = "";
    cr_assert_eq(devset_power_limit(nv, 0, 150, NULL, why, sizeof why), -1);
    cr_assert(strstr(why, "150 W is outside what it takes: 200..700 W"), "%s", why);
    cr_assert_eq(devset_changed(), 0, "nothing was changed");
    cr_assert_eq(devset_power_limit(nv, 5, 300, NULL, why, sizeof why), -1, "no such GPU");
    cr_assert_eq(setenv("GAUNTLET_STANDIN_NO_PERMISSION", "1", 1), 0);
    cr_assert_eq(devset_power_limit(nv, 0, 300, NULL, why, sizeof why), -1);
    cr_assert(strstr(why, "nvmlDeviceSetPowerManagementLimit(300 W)") && strstr(why, "permission"), "%s", why);
    cr_assert_eq(devset_changed(), 0, "a change that did not take is not recorded (nothing to put back)");
    unsetenv("GAUNTLET_STANDIN_NO_PERMISSION");
    cr_assert_eq(devset_restore(-1), 0);
    nvml_close(nv);
}

/* A child changes the limit and ends with how (0: exit(), else a signal it raises); the parent reads what
 * the stand-in was left with. */
static unsigned left_after(int how)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char why[256];
        struct nvml *nv = open_standin();
        if (devset_power_limit(nv, 0, 450, NULL, why, sizeof why) != 0)
            _exit(9);
        if (how)
            raise(how);
        exit(0);   /* no devset_restore: the exit path must do it */
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(how ? WIFSIGNALED(st) && WTERMSIG(st) == how : WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the child ended as asked (status %d)", st);
    unsigned l, s;
    double fl;
    cr_assert_eq(state_of(0, &l, &s, &fl), 0, "the child changed the limit (state file %s)", state_path);
    return l;
}

Test(devset, exit_and_crash_put_the_limit_back)
{
    state_name();
    cr_assert_eq(left_after(0), 650000u, "exit() without a restore: the atexit handler put it back");
    cr_assert_eq(left_after(SIGSEGV), 650000u, "a crash: the handler put it back, then the process died of it");
    cr_assert_eq(left_after(SIGABRT), 650000u);
    cr_assert_eq(left_after(SIGQUIT), 650000u);
}

Test(devset, smoothing_absent_is_reported_present_is_set_read_back_and_put_back)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_PROFILE", "3", 1), 0);   /* an administrator's profile is active */
    struct nvml *nv = open_standin();
    char why[256] = "";
    struct devset_smoothing req = { .floor_pct = 65, .ramp_up_w_s = 2000, .ramp_down_w_s = 1500, .hysteresis_ms = 50 };
    struct devset_smoothing_readback rb;
    cr_assert_eq(devset_smoothing_on(nv, 0, &req, &rb, why, sizeof why), 1, "no smoothing on this GPU: emulate");
    cr_assert(strstr(why, "no firmware power smoothing"), "%s", why);
    cr_assert_eq(devset_changed(), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SMOOTHING", "1", 1), 0);
    cr_assert_eq(devset_smoothing_on(nv, 0, &req, &rb, why, sizeof why), 0, "%s", why);
    cr_assert(rb.enabled);
    cr_assert_eq(rb.profile, 0, "gauntlet's settings go in preset profile 0, made active");
    cr_assert_float_eq(rb.floor_pct, 65, 1e-9);
    cr_assert_float_eq(rb.ramp_up_w_s, 2000, 1e-9);
    cr_assert_float_eq(rb.ramp_down_w_s, 1500, 1e-9);
    cr_assert_float_eq(rb.hysteresis_ms, 50, 1e-9);
    cr_assert_float_eq(rb.lifetime_left_pct, 87.5, 1e-9, "the circuitry's remaining lifetime is read back");
    unsigned l, s;
    double fl;
    cr_assert_eq(devset_restore(0), 0);
    cr_assert_eq(state_of(0, &l, &s, &fl), 0);
    cr_assert_eq(s, 0u, "smoothing is off again, as it was");
    cr_assert_float_eq(fl, 50, 1e-9, "profile 0's floor is as it was");
    cr_assert_eq(last_profile, 3u, "the profile active before is active again");
    nvml_close(nv);
}

Test(devset, every_fatal_signal_that_skips_atexit_puts_the_limit_back)
{
    state_name();
    cr_assert_eq(left_after(SIGXCPU), 650000u, "a CPU time limit (ulimit -t, a batch system's)");
    cr_assert_eq(left_after(SIGTRAP), 650000u);
    cr_assert_eq(left_after(SIGSYS), 650000u);
    cr_assert_eq(left_after(SIGUSR1), 650000u);
    cr_assert_eq(left_after(SIGUSR2), 650000u);
    for (const int *s = (const int[]){ SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, 0 }; *s; s++)
        cr_assert_eq(left_after(*s), 650000u, "signal %d (until 2026-12-02 not watched)", *s);
}

static volatile sig_atomic_t usr2_seen;
static void on_usr2(int sig) { (void)sig; usr2_seen = 1; }

/* A signal the process ignores or handles itself is no crash: with the limit changed, a SIGUSR1 it ignores and a
 * SIGUSR2 its own handler takes leave the limit as set and the process running, and its exit puts the limit back
 * (until 2026-12-02 either put the limit back mid-run and ended the process). */
Test(devset, a_signal_the_process_ignores_or_handles_is_no_crash)
{
    state_name();
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char why[256];
        signal(SIGUSR1, SIG_IGN);
        struct sigaction sa = { .sa_handler = on_usr2 };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR2, &sa, NULL);
        struct nvml *nv = open_standin();
        if (devset_power_limit(nv, 0, 450, NULL, why, sizeof why) != 0)
            _exit(9);
        raise(SIGUSR1);
        raise(SIGUSR2);
        unsigned l, sm;
        double fl;
        if (!usr2_seen || state_of(0, &l, &sm, &fl) != 0 || l != 450000u)
            _exit(8);   /* its handler did not run, or the limit was put back */
        exit(0);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child ran on with its limit (status 0x%x)", st);
    unsigned l, sm;
    double fl;
    cr_assert_eq(state_of(0, &l, &sm, &fl), 0);
    cr_assert_eq(l, 650000u, "its exit put the limit back");
}

/* A crash while NVML does not answer (here: putting the limit back hangs): after 5 s the process says what to put back
 * by hand and ends of its own signal, not of the alarm's. */
Test(devset, a_crash_whose_undo_hangs_says_what_to_put_back_and_dies_of_its_signal, .timeout = 30)
{
    state_name();
    char err_path[300];
    snprintf(err_path, sizeof err_path, "%s.err", state_path);
    e2e_own(err_path);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char why[256];
        if (!freopen(err_path, "w", stderr))
            _exit(8);
        struct nvml *nv = open_standin();
        if (devset_power_limit(nv, 0, 450, NULL, why, sizeof why) != 0)
            _exit(9);
        setenv("GAUNTLET_STANDIN_HANG_LIMIT", "650000", 1);   /* putting 650 W back does not return */
        raise(SIGSEGV);
        _exit(0);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "the child died of its own crash (status %#x, signal %d)", st,
              WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    char text[2048] = "";
    FILE *f = fopen(err_path, "r");
    cr_assert_not_null(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = 0;
    fclose(f);
    unlink(err_path);
    cr_assert(strstr(text, "did not finish within 5 s"), "stderr: %s", text);
    cr_assert(strstr(text, "nvidia-smi -i 0 -pl 650"), "what to put back by hand: %s", text);
}

/* A smoothing change that could not be put back is refused before anything is changed (the caller emulates): profile
 * 0's parameters, or the profile active before, not reported. */
Test(devset, smoothing_is_refused_when_what_it_replaces_is_not_reported)
{
    static const char *const unreported[] = { "GAUNTLET_STANDIN_NO_PARAM_FIELDS", "GAUNTLET_STANDIN_NO_PROFILE_FIELD" };
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SMOOTHING", "1", 1), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_PROFILE", "3", 1), 0);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(setenv(unreported[i], "1", 1), 0);
        struct nvml *nv = open_standin();
        char why[512] = "";
        struct devset_smoothing req = { .floor_pct = 65, .ramp_up_w_s = 2000, .ramp_down_w_s = 1500, .hysteresis_ms = 50 };
        struct devset_smoothing_readback rb;
        cr_assert_eq(devset_smoothing_on(nv, 0, &req, &rb, why, sizeof why), 1, "%s: refused, emulated", unreported[i]);
        cr_assert(strstr(why, "not reported") && strstr(why, "not changed"), "%s", why);
        cr_assert_eq(devset_changed(), 0, "nothing to put back: nothing was changed");
        unsigned l, s;
        double fl;
        cr_assert_eq(state_of(0, &l, &s, &fl), -1, "the stand-in saw no setting change (%s)", unreported[i]);
        nvml_close(nv);
        unsetenv(unreported[i]);
        unlink(state_path);
    }
}
