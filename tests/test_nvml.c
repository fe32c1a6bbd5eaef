/* tests/test_nvml.c: the NVML loader against the scripted stand-in (tests/nvml_standin.c), the
 * energy differentiators, the update-rate probe and its counting helpers, and CPU energy opening. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_energy.h"
#include "nvml.h"
#include "util.h"

#define ALL_BUT(f) (((1u << GPU_F_COUNT) - 1u) & ~GPU_VALID(f))

/* Points the loader at the stand-in and opens it; skips when the stand-in was not built. */
static struct nvml *open_standin(void)
{
#ifdef NVML_STANDIN
    char why[512] = "";
    cr_assert_eq(setenv("GAUNTLET_NVML_LIB", NVML_STANDIN, 1), 0);
    struct nvml *nv = nvml_open(why, sizeof why);
    cr_assert_not_null(nv, "nvml_open on the stand-in failed: %s", why);
    return nv;
#else
    cr_skip_test("the NVML stand-in was not built");
    return NULL;
#endif
}

Test(nvml, devices_and_info)
{
    struct nvml *nv = open_standin();
    struct gpu_info info;
    cr_assert_eq(nvml_device_count(nv), 2);
    for (int d = 0; d < 2; d++) {
        cr_assert_eq(nvml_device_info(nv, d, &info), 0);
        cr_assert_str_eq(info.name, "Gauntlet Standin GPU");
        cr_assert_eq(strncmp(info.uuid, "GPU-", 4), 0, "uuid %s", info.uuid);
        cr_assert_float_eq(info.tdp_w, 700.0, 1e-9);
        cr_assert_float_eq(info.power_limit_w, 650.0, 1e-9);
        cr_assert_eq(info.valid, 0xfu);
    }
    cr_assert_neq(strcmp(info.uuid, "GPU-5a17e000-0000-4000-8000-000000000000"), 0, "devices share a uuid");
    cr_assert_eq(nvml_device_info(nv, 2, &info), -1);
    cr_assert_eq(nvml_device_info(nv, -1, &info), -1);
    nvml_close(nv);
}

Test(nvml, samples_follow_the_script)
{
    static const double script_w[] = { 100, 400, 700, 100, 400 };
    struct nvml *nv = open_standin();
    struct gpu_sample s, other;
    uint64_t last_energy = 0, last_t = 0;
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(nvml_sample(nv, 0, &s), 0);
        cr_assert_eq(s.valid, ALL_BUT(GPU_F_THROTTLE), "valid %#x", s.valid);
        cr_assert_float_eq(s.power_instant_w, script_w[i], 1e-9, "sample %d: %f W", i, s.power_instant_w);
        cr_assert_float_eq(s.power_avg_w, 350.0, 1e-9);
        cr_assert_float_eq(s.sm_clock_mhz, 1980.0, 1e-9);
        cr_assert_float_eq(s.temp_c, 45.0, 1e-9);
        cr_assert_eq(s.energy_mj, 1000000ull + 250ull * (uint64_t)(i + 1));
        cr_assert(s.t_ns >= last_t);
        cr_assert(s.energy_mj > last_energy);
        last_energy = s.energy_mj;
        last_t = s.t_ns;
    }
    /* Each device runs its own script. */
    cr_assert_eq(nvml_sample(nv, 1, &other), 0);
    cr_assert_float_eq(other.power_instant_w, 100.0, 1e-9);
    cr_assert_eq(other.energy_mj, 1000250ull);
    cr_assert_eq(nvml_sample(nv, 2, &other), -1);
    nvml_close(nv);
}

Test(nvml, missing_symbol_turns_off_only_its_field)
{
    struct nvml *nv = open_standin();
    struct gpu_sample s;
    /* The stand-in exports neither clocks-event-reasons symbol. */
    cr_assert_not_null(strstr(nvml_missing(nv), "throttle_reasons"), "missing: %s", nvml_missing(nv));
    cr_assert_null(strstr(nvml_missing(nv), "temp ("), "temperature should fall back to the legacy symbol");
    cr_assert_eq(nvml_field_available(nv, 0, GPU_F_THROTTLE), 0);
    cr_assert_eq(nvml_field_available(nv, 0, GPU_F_TEMP), 1);
    cr_assert_eq(nvml_sample(nv, 0, &s), 0);
    cr_assert_eq(s.valid & GPU_VALID(GPU_F_THROTTLE), 0u);
    cr_assert_eq(s.throttle_reasons, 0u);
    double v = 0;
    cr_assert_eq(nvml_read_field(nv, 0, GPU_F_THROTTLE, &v), -1);
    cr_assert(isnan(v));
    cr_assert_eq(s.valid, ALL_BUT(GPU_F_THROTTLE));
    nvml_close(nv);
}

Test(nvml, unsupported_field_is_nan_and_turned_off)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_INSTANT_UNSUPPORTED", "1", 1), 0);
    struct nvml *nv = open_standin();
    struct gpu_sample s;
    cr_assert_eq(nvml_field_available(nv, 0, GPU_F_POWER_INSTANT), 1);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(nvml_sample(nv, 0, &s), 0);
        cr_assert(isnan(s.power_instant_w), "power_instant %f", s.power_instant_w);
        cr_assert_eq(s.valid, ALL_BUT(GPU_F_POWER_INSTANT) & ALL_BUT(GPU_F_THROTTLE), "valid %#x", s.valid);
        cr_assert_float_eq(s.power_avg_w, 350.0, 1e-9);
    }
    cr_assert_eq(nvml_field_available(nv, 0, GPU_F_POWER_INSTANT), 0);
    cr_assert_eq(nvml_field_available(nv, 1, GPU_F_POWER_INSTANT), 1, "only GPU 0 has been asked");
    cr_assert_not_null(strstr(nvml_missing(nv), "power_instant on GPU 0"), "missing: %s", nvml_missing(nv));
    cr_assert_not_null(strstr(nvml_missing(nv), "Not Supported"), "missing: %s", nvml_missing(nv));
    nvml_close(nv);
}

Test(nvml, the_driver_sample_buffer_gives_each_sample_once_in_order, .timeout = 10)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES", "1", 1), 0);
    struct nvml *nv = open_standin();
    unsigned long long last = 0, t[64];
    double w[64];
    long skipped;
    nvmlReturn_t err;
    sleep_ns(130000000);   /* 130 ms: samples 0..6 of the stand-in's one every 20 ms */
    int n = nvml_power_samples(nv, 0, &last, w, t, 64, &skipped, &err);
    cr_assert_geq(n, 6, "samples after 130 ms: %d", n);
    for (int i = 1; i < n; i++) {
        cr_assert_eq(t[i] - t[i - 1], 20000, "20 ms apart, oldest first: %llu then %llu", t[i - 1], t[i]);
        cr_assert(w[i] != w[i - 1], "the script changes at every sample");
    }
    cr_assert_eq(last, t[n - 1], "the newest seen");
    cr_assert(w[0] == 100 || w[0] == 400 || w[0] == 700, "watts from mW: %f", w[0]);
    int again = nvml_power_samples(nv, 0, &last, w, t, 64, &skipped, &err);
    cr_assert_leq(again, 1, "only what came since: %d", again);
    sleep_ns(50000000);
    unsigned long long before = last;
    n = nvml_power_samples(nv, 0, &last, w, t, 2, &skipped, &err);
    cr_assert_eq(n, 2, "at most max, the newest: %d", n);
    cr_assert_gt(t[0], before);
    cr_assert_eq(last, t[1]);
    nvml_close(nv);
    cr_assert_eq(unsetenv("GAUNTLET_STANDIN_SAMPLES"), 0);
    nv = open_standin();
    cr_assert_eq(nvml_power_samples(nv, 0, &last, w, t, 64, &skipped, &err), -1, "no buffer: the instant field is the source");
    cr_assert_eq(nvml_power_samples(nv, 0, &last, w, t, 64, &skipped, &err), -1, "and it is not asked again");
    nvml_close(nv);
}

/* The driver stamps its samples on the wall clock: each reaches the learning on the monotonic clock at the time it
 * was taken (the stand-in's sample k at nvmlInit + 20 ms x k), never in the future, 20 ms apart. */
Test(nvml, the_driver_samples_land_on_the_monotonic_clock_at_their_own_time, .timeout = 10)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES", "wall", 1), 0);
    uint64_t before = mono_ns();
    struct nvml *nv = open_standin();
    uint64_t after = mono_ns(), prev = 0, ms = 1000000;
    unsigned long long last = 0;
    double w[64];
    uint64_t at[64];
    long skipped;
    nvmlReturn_t err;
    int total = 0;
    for (int poll = 0; poll < 12; poll++) {
        sleep_ns(25 * ms);
        int n = nvml_power_samples_mono(nv, 0, &last, w, at, 64, &skipped, &err);
        uint64_t now = mono_ns();
        cr_assert_geq(n, 0, "poll %d", poll);
        for (int i = 0; i < n; i++, total++) {
            uint64_t lo = before + (uint64_t)total * 20 * ms - 2 * ms, hi = after + (uint64_t)total * 20 * ms + 2 * ms;
            cr_assert(at[i] >= lo && at[i] <= hi, "sample %d at %.3f ms after nvmlInit, expected %d x 20 ms", total,
                      ((double)at[i] - (double)before) * 1e-6, total);
            cr_assert_leq(at[i], now, "never in the future");
            if (prev)
                cr_assert(at[i] - prev > 19 * ms && at[i] - prev < 21 * ms, "20 ms apart: %.3f ms",
                          (double)(at[i] - prev) * 1e-6);
            prev = at[i];
        }
    }
    cr_assert_geq(total, 12 * 25 / 20 - 2, "samples over 300 ms: %d", total);
    nvml_close(nv);
    cr_assert_eq(unsetenv("GAUNTLET_STANDIN_SAMPLES"), 0);
    /* the conversion alone: 2 ms of wall clock with the wall 1 ms ahead is 1 ms; later than now, at or before the
     * monotonic clock's start, or past what 64 bits of ns hold: not known */
    cr_assert_eq(nvml_wall_us_to_mono(2000, 1000000, 5000000), 1000000);
    cr_assert_eq(nvml_wall_us_to_mono(7000, 1000000, 5000000), 0);
    cr_assert_eq(nvml_wall_us_to_mono(1000, 1000000, 5000000), 0);
    cr_assert_eq(nvml_wall_us_to_mono(~0ull, 0, ~0ull), 0);
}

/* Polls b every 12 ms for ms milliseconds; returns the samples read; *gaps counts the polls whose reading was a gap. */
static long poll_for(struct nvml *nv, struct nvml_buf *b, int ms, int *gaps)
{
    long got = 0;
    for (int t = 0; t < ms; t += 12) {
        sleep_ns(12000000);
        int k = nvml_buf_poll(nv, 0, b, mono_ns());
        double w;
        uint64_t at;
        cr_assert_geq(k, 0);
        got += k;
        if (gaps && nvml_buf_reading(b, &w, &at) == 0)
            (*gaps)++;
    }
    return got;
}

/* The first poll takes the newest sample alone: what the driver buffered before the run is neither read nor counted
 * as passed over; a poll that finds several new samples counts the others. */
Test(nvml, the_buffers_backlog_is_no_sample_of_the_run_and_passes_nothing_over, .timeout = 10)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES", "wall", 1), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES_BACKLOG", "100", 1), 0);   /* 2 s buffered before it is read */
    struct nvml *nv = open_standin();
    struct nvml_buf b = { 0 };
    uint64_t now = mono_ns();
    cr_assert_eq(nvml_buf_poll(nv, 0, &b, now), 1, "the newest sample alone");
    double w;
    uint64_t at;
    cr_assert_eq(nvml_buf_reading(&b, &w, &at), 1);
    cr_assert(at <= now && now - at < 25000000ull, "the newest, %.1f ms old", (double)(now - at) * 1e-6);
    long got = poll_for(nv, &b, 240, NULL);
    cr_assert_geq(got, 8, "a sample every 20 ms: %ld", got);
    cr_assert_eq(b.passed, 0, "polls every 12 ms pass no 20 ms sample over: %ld", b.passed);
    char src[320];
    cr_assert_eq(nvml_buf_describe(&b, src, sizeof src), 0);
    cr_assert_null(strstr(src, "passed over"), "%s", src);
    sleep_ns(110000000);   /* about 5 samples at once: 4 not the reading */
    int k = nvml_buf_poll(nv, 0, &b, mono_ns());
    cr_assert(k >= 4 && b.passed == k - 1, "%d new, %ld passed over", k, b.passed);
    cr_assert_eq(nvml_buf_describe(&b, src, sizeof src), 0);
    cr_assert(strstr(src, "samples passed over"), "%s", src);
    unsigned long long last = b.last_us, t[64];
    long skipped;
    nvmlReturn_t err;
    sleep_ns(90000000);
    int n = nvml_power_samples(nv, 0, &last, &w, t, 1, &skipped, &err);
    cr_assert(n == 1 && skipped >= 3, "the newest of %ld, the rest counted: %d + %ld", skipped + n, n, skipped);
    nvml_close(nv);
    unsetenv("GAUNTLET_STANDIN_SAMPLES_BACKLOG");
    unsetenv("GAUNTLET_STANDIN_SAMPLES");
}

/* A poll that fails once is a gap, and the buffer is asked again (the source does not change mid-run); one that fails
 * for good after samples came leaves gaps, never the instant field's values; a GPU without a buffer is no source. */
Test(nvml, a_failed_poll_is_a_gap_and_the_buffer_stays_the_source, .timeout = 10)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES", "wall", 1), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES_FAIL", "3,1,999", 1), 0);   /* the third call: NVML_ERROR_UNKNOWN */
    struct nvml *nv = open_standin();
    struct nvml_buf b = { 0 };
    double w;
    uint64_t at;
    int gaps = 0;
    poll_for(nv, &b, 24, &gaps);
    cr_assert_eq(gaps, 0);
    poll_for(nv, &b, 12, &gaps);
    cr_assert_eq(gaps, 1, "the failed poll's reading is a gap");
    cr_assert_eq(b.state, NVML_BUF_FAILING);
    long got = poll_for(nv, &b, 120, &gaps);
    cr_assert_eq(gaps, 1, "the next polls answer: readings again");
    cr_assert_geq(got, 4, "and samples: %ld", got);
    cr_assert_eq(nvml_buf_reading(&b, &w, &at), 1);
    char src[320];
    cr_assert_eq(nvml_buf_describe(&b, src, sizeof src), 0);
    cr_assert(strstr(src, "1 poll failed (Unknown Error"), "%s", src);
    nvml_close(nv);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES_FAIL", "3,1000,3", 1), 0);   /* from the third: NOT_SUPPORTED */
    nv = open_standin();
    b = (struct nvml_buf){ 0 };
    gaps = 0;
    poll_for(nv, &b, 120, &gaps);
    cr_assert_eq(b.state, NVML_BUF_STOPPED);
    cr_assert_eq(gaps, 8, "every reading after it stopped is a gap: %d", gaps);
    cr_assert_eq(nvml_buf_describe(&b, src, sizeof src), 0);
    cr_assert(strstr(src, "stopped answering (Not Supported"), "%s", src);
    nvml_close(nv);
    unsetenv("GAUNTLET_STANDIN_SAMPLES_FAIL");
    unsetenv("GAUNTLET_STANDIN_SAMPLES");
    nv = open_standin();
    b = (struct nvml_buf){ 0 };
    cr_assert_eq(nvml_buf_poll(nv, 0, &b, mono_ns()), 0);
    cr_assert_eq(nvml_buf_reading(&b, &w, &at), -1, "no buffer: the instant field is the source, from the start");
    cr_assert_eq(nvml_buf_describe(&b, src, sizeof src), -1);
    nvml_close(nv);
}

/* The wall clock stepped back by 1 s: the driver's new samples are stamped before the newest read; after five sample
 * intervals without one the buffer is read afresh and its samples are followed again, said once. */
Test(nvml, samples_are_followed_again_after_the_wall_clock_steps_back, .timeout = 10)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES", "1", 1), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES_STEP", "200,1000", 1), 0);
    struct nvml *nv = open_standin();
    struct nvml_buf b = { 0 };
    poll_for(nv, &b, 180, NULL);
    cr_assert_eq(b.reseeds, 0);
    poll_for(nv, &b, 200, NULL);   /* the step at 200 ms, seen after 5 x 20 ms */
    cr_assert_eq(b.reseeds, 1);
    long got = poll_for(nv, &b, 240, NULL);
    cr_assert_geq(got, 9, "a sample every 20 ms again: %ld in 240 ms", got);
    cr_assert_eq(b.reseeds, 1, "once");
    char src[320];
    cr_assert_eq(nvml_buf_describe(&b, src, sizeof src), 0);
    cr_assert(strstr(src, "stamps went back 1 time "), "%s", src);
    nvml_close(nv);
    unsetenv("GAUNTLET_STANDIN_SAMPLES_STEP");
    unsetenv("GAUNTLET_STANDIN_SAMPLES");
}

/* A driver that takes no sample for 150 ms is no clock step: the buffer is looked at afresh (five intervals with
 * nothing new) and its backlog from before the run, never read, is not taken for samples stamped back (until
 * 2026-12-02, where their times on the monotonic clock were not known, the newest of the backlog became the reading
 * and the log said the wall clock had stepped back); the interval is the samples' mean, 20 ms (the shortest mean of
 * one poll's read irregular gaps as 7.8 ms on an H100 and looked afresh after 39 ms) */
Test(nvml, a_pause_in_the_samples_is_no_clock_step_and_the_backlog_stays_unread, .timeout = 10)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES", "1", 1), 0);   /* stamps from 1 s: no time on the mono clock */
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES_BACKLOG", "50", 1), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES_PAUSE", "200,150", 1), 0);
    struct nvml *nv = open_standin();
    struct nvml_buf b = { 0 };
    poll_for(nv, &b, 450, NULL);
    cr_assert_eq(b.reseeds, 0, "a pause read as the wall clock stepping back");
    cr_assert_eq(b.period_us, 20000, "the sample interval: %llu us", b.period_us);
    double w;
    uint64_t at;
    cr_assert_eq(nvml_buf_reading(&b, &w, &at), 1);
    cr_assert_gt(b.last_us, 1000000ull + 50 * 20000ull + 350000ull, "the newest is the run's: %llu", b.last_us);
    nvml_close(nv);
    unsetenv("GAUNTLET_STANDIN_SAMPLES_PAUSE");
    unsetenv("GAUNTLET_STANDIN_SAMPLES_BACKLOG");
    unsetenv("GAUNTLET_STANDIN_SAMPLES");
}

Test(nvml, init_failure_gives_the_reason)
{
#ifdef NVML_STANDIN
    char why[512] = "";
    cr_assert_eq(setenv("GAUNTLET_NVML_LIB", NVML_STANDIN, 1), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_INIT_FAIL", "1", 1), 0);
    cr_assert_null(nvml_open(why, sizeof why));
    cr_assert_not_null(strstr(why, "nvmlInit_v2"), "why: %s", why);
    cr_assert_not_null(strstr(why, "Driver Not Loaded"), "why: %s", why);
#else
    cr_skip_test("the NVML stand-in was not built");
#endif
}

Test(nvml, missing_library_names_the_path)
{
    const char *path = "/nonexistent/gauntlet/libnvidia-ml.so.1";
    char why[512] = "";
    cr_assert_eq(setenv("GAUNTLET_NVML_LIB", path, 1), 0);
    cr_assert_null(nvml_open(why, sizeof why));
    cr_assert_not_null(strstr(why, path), "why: %s", why);
    cr_assert_null(nvml_open(NULL, 0), "a NULL reason buffer must be accepted");
}

Test(nvml, no_gpu)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_DEVICES", "0", 1), 0);
    struct nvml *nv = open_standin();
    struct gpu_sample s;
    struct gpu_info info;
    struct nvml_rate r[GPU_F_COUNT];
    cr_assert_eq(nvml_device_count(nv), 0);
    cr_assert_eq(nvml_sample(nv, 0, &s), -1);
    cr_assert_eq(nvml_device_info(nv, 0, &info), -1);
    cr_assert_eq(nvml_probe_rates(nv, 0, 0.01, r), -1);
    nvml_close(nv);
    nvml_close(NULL);
}

Test(nvml, energy_watts_between_samples)
{
    struct gpu_sample a = { .t_ns = 1000000000ull, .energy_mj = 5000, .valid = GPU_VALID(GPU_F_ENERGY) };
    struct gpu_sample b = a;
    b.t_ns += 500000000ull;   /* 0.5 s later */
    b.energy_mj += 150000;    /* 150 J */
    cr_assert_float_eq(nvml_energy_watts(&a, &b), 300.0, 1e-9);
    cr_assert(isnan(nvml_energy_watts(&b, &a)), "time going back");
    struct gpu_sample c = b;
    c.t_ns += 1000000;
    cr_assert(isnan(nvml_energy_watts(&b, &c)), "counter did not advance");
    c.energy_mj = 10;
    cr_assert(isnan(nvml_energy_watts(&b, &c)), "counter went back (driver reload)");
    c = b;
    c.valid = 0;
    cr_assert(isnan(nvml_energy_watts(&a, &c)), "no energy in the sample");
    cr_assert(isnan(nvml_energy_watts(NULL, &b)));

    /* The stand-in adds 250 mJ per call: the watts are that over the samples' own time. */
    struct nvml *nv = open_standin();
    cr_assert_eq(nvml_sample(nv, 0, &a), 0);
    sleep_ns(2000000);
    cr_assert_eq(nvml_sample(nv, 0, &b), 0);
    cr_assert_eq(b.energy_mj - a.energy_mj, 250u);
    cr_assert_float_eq(nvml_energy_watts(&a, &b), 250.0 * 1e6 / (double)(b.t_ns - a.t_ns), 1e-9);
    nvml_close(nv);
}

Test(nvml, energy_rate_between_counter_changes)
{
    /* Read every 1 ms; the counter moves every 10 ms by 3000 mJ (300 W), first at t = 4 ms. */
    struct nvml_energy_rate rate = { 0 };
    int finite = 0;
    for (int ms = 0; ms < 100; ms++) {
        struct gpu_sample s = { .t_ns = (uint64_t)ms * 1000000ull, .valid = GPU_VALID(GPU_F_ENERGY) };
        s.energy_mj = 7000 + 3000ull * (uint64_t)((ms + 6) / 10);
        double w = nvml_energy_rate_push(&rate, &s);
        int changed = ms > 0 && (ms + 6) % 10 == 0;
        if (!changed || ms == 4) {
            cr_assert(isnan(w), "t=%d ms: expected NAN (no change, or first change after a mid-period start), got %f",
                      ms, w);
            continue;
        }
        cr_assert_float_eq(w, 300.0, 1e-9, "t=%d ms", ms);
        finite++;
    }
    cr_assert_eq(finite, 9);
    /* A reading without energy changes nothing; a counter that goes back restarts. */
    struct gpu_sample none = { .t_ns = 200000000ull };
    cr_assert(isnan(nvml_energy_rate_push(&rate, &none)));
    struct gpu_sample back = { .t_ns = 201000000ull, .energy_mj = 1, .valid = GPU_VALID(GPU_F_ENERGY) };
    cr_assert(isnan(nvml_energy_rate_push(&rate, &back)));
    cr_assert_eq(rate.mj, 1u);
}

Test(nvml_probe, count_updates_on_arrays)
{
    double t[100], v[100], med = 0;
    for (int i = 0; i < 100; i++) {
        t[i] = i * 0.5;                /* a read every 0.5 ms */
        v[i] = (double)(i / 20);       /* the value moves every 10 ms */
    }
    cr_assert_eq(nvml_count_updates(t, v, 100, &med), 4);
    cr_assert_float_eq(med, 10.0, 1e-9);

    /* NAN reads are skipped: they neither count as changes nor hide one. */
    v[20] = NAN;
    v[21] = NAN;
    cr_assert_eq(nvml_count_updates(t, v, 100, &med), 4);
    cr_assert_float_eq(med, 29.0 / 3, 1e-9, "intervals 9, 10, 10 ms: their mean, as the count says");

    for (int i = 0; i < 100; i++)
        v[i] = 42;
    cr_assert_eq(nvml_count_updates(t, v, 100, &med), 0);
    cr_assert(isnan(med));
    v[50] = 43;                        /* up and back down: two changes, one interval */
    cr_assert_eq(nvml_count_updates(t, v, 100, &med), 2);
    cr_assert_float_eq(med, 0.5, 1e-9);
    cr_assert_eq(nvml_count_updates(t, v, 0, &med), 0);
    cr_assert(isnan(med));

    /* The mean interval agrees with the count: 4 intervals over the 50 ms from the first change to the last. */
    double t2[] = { 0, 1, 2, 3, 50, 51 }, v2[] = { 0, 1, 2, 3, 4, 5 };
    cr_assert_eq(nvml_count_updates(t2, v2, 6, &med), 5);
    cr_assert_float_eq(med, 50.0 / 4, 1e-9);
}

Test(nvml_probe, suggested_rate)
{
    cr_assert_float_eq(nvml_suggest_hz(10.0, 1.0), 200.0, 1e-9);
    cr_assert_float_eq(nvml_suggest_hz(0.001, 10.0), 50000.0, 1e-9, "capped by half the call rate");
    cr_assert(isnan(nvml_suggest_hz(NAN, 1.0)));
    cr_assert(isnan(nvml_suggest_hz(0.0, 1.0)));
    cr_assert_float_eq(nvml_suggest_hz(20.0, NAN), 100.0, 1e-9);
}

Test(nvml_probe, per_call_script_changes_every_read)
{
    struct nvml *nv = open_standin();
    struct nvml_rate r[GPU_F_COUNT];
    cr_assert_eq(nvml_probe_rates(nv, 0, 0.02, r), GPU_F_COUNT - 1);
    cr_assert(r[GPU_F_POWER_INSTANT].calls > 10);
    cr_assert_eq(r[GPU_F_POWER_INSTANT].changes, r[GPU_F_POWER_INSTANT].calls - 1);
    cr_assert_eq(r[GPU_F_ENERGY].changes, r[GPU_F_ENERGY].calls - 1);
    cr_assert_eq(r[GPU_F_POWER_AVG].changes, 0);
    cr_assert_eq(r[GPU_F_THROTTLE].available, 0);
    cr_assert_eq(nvml_probe_rates(nv, 0, 0, r), -1);
    cr_assert_eq(nvml_probe_rates(nv, 5, 0.01, r), -1);
    nvml_close(nv);
}

Test(nvml_probe, timed_script_rates, .timeout = 60)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_TIMED", "1", 1), 0);
    struct nvml *nv = open_standin();
    struct nvml_rate r[GPU_F_COUNT];
    cr_assert_eq(nvml_probe_rates(nv, 1, 0.15, r), GPU_F_COUNT - 1);

    const struct nvml_rate *pi = &r[GPU_F_POWER_INSTANT], *en = &r[GPU_F_ENERGY];
    cr_assert(pi->available && pi->calls > 100, "power_instant calls %ld", pi->calls);
    cr_assert(pi->changes >= 10 && pi->changes <= 40, "power_instant changes %ld (one per 5 ms)", pi->changes);
    cr_assert(pi->update_ms > 3.0 && pi->update_ms < 10.0, "update %f ms", pi->update_ms);
    cr_assert(en->changes >= 5 && en->changes <= 20, "energy changes %ld (one per 10 ms)", en->changes);
    cr_assert(en->update_ms > 7.0 && en->update_ms < 20.0, "update %f ms", en->update_ms);
    cr_assert(pi->suggested_hz > 100.0 && pi->call_us >= 0.0, "suggest %f Hz, cost %f us", pi->suggested_hz, pi->call_us);
    for (int f = 0; f < GPU_F_COUNT; f++) {
        if (f == GPU_F_POWER_AVG || f == GPU_F_SM_CLOCK || f == GPU_F_TEMP) {
            cr_assert(r[f].calls > 0 && r[f].changes == 0, "%s", nvml_field_name(f));
            cr_assert(isnan(r[f].update_ms) && isnan(r[f].suggested_hz), "%s", nvml_field_name(f));
        }
    }
    cr_assert_eq(r[GPU_F_THROTTLE].available, 0);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cr_assert_eq(nvml_probe_print(f, r), 0);
    cr_assert_eq(fclose(f), 0);
    cr_assert_not_null(strstr(text, "update_ms"));
    cr_assert_not_null(strstr(text, "power_instant"));
    const char *thr = strstr(text, "throttle_reasons");
    cr_assert_not_null(thr);
    cr_assert_not_null(strstr(thr, "-"), "a missing field prints '-', never 0:\n%s", text);
    cr_assert_null(strstr(text, "nan"), "no 'nan' in the table:\n%s", text);
    free(text);
    nvml_close(nv);
}

Test(cpu_energy, opens_or_says_why)
{
    char why[1024] = "";
    struct cpu_energy *ce = cpu_energy_open(why, sizeof why);
    if (!ce) {
        cr_assert_gt(strlen(why), 0, "cpu_energy_open failed without a reason");
        cr_log_info("CPU energy unavailable: %s", why);
        struct cpu_energy_sample s;
        cr_assert_eq(cpu_energy_read(NULL, &s), -1);
        cr_assert(isnan(s.package_j) && isnan(s.dram_j));
        /* Opening again after a failure must not crash either. */
        struct cpu_energy *again = cpu_energy_open(why, sizeof why);
        cpu_energy_close(again);
        cpu_energy_close(NULL);
        return;
    }
    struct cpu_energy_sample a, b;
    cr_assert_eq(cpu_energy_read(ce, &a), 0, "source %s", cpu_energy_source(ce));
    sleep_ns(20000000);
    cr_assert_eq(cpu_energy_read(ce, &b), 0);
    cr_assert(!isnan(b.package_j) && b.package_j >= 0, "package %f J", b.package_j);
    cr_assert(isnan(b.dram_j) || b.dram_j >= 0, "dram %f J", b.dram_j);
    cr_assert(b.t_ns > a.t_ns);
    cpu_energy_close(ce);
}

/* A poll is due once 8 ms have passed since the last: the sampler's 10 ms tick, a little early, polls (until
 * 2026-12-02 a tick 9.9 ms after the last poll skipped it, and half the polls at 100 Hz were skipped); one 5 ms after
 * is not (the buffer is asked at most every ~10 ms). */
Test(nvml, a_tick_a_little_early_still_polls, .timeout = 10)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES", "wall", 1), 0);
    struct nvml *nv = open_standin();
    struct nvml_buf b = { 0 };
    uint64_t t0 = mono_ns();
    cr_assert_geq(nvml_buf_poll(nv, 0, &b, t0), 0);
    cr_assert_eq(b.poll_ns, t0);
    cr_assert_geq(nvml_buf_poll(nv, 0, &b, t0 + 5000000), 0);
    cr_assert_eq(b.poll_ns, t0, "a poll 5 ms after the last");
    cr_assert_geq(nvml_buf_poll(nv, 0, &b, t0 + 9900000), 0);
    cr_assert_eq(b.poll_ns, t0 + 9900000, "the tick 9.9 ms after the last poll did not poll");
    nvml_close(nv);
    unsetenv("GAUNTLET_STANDIN_SAMPLES");
}

/* A buffer that answers but holds no sample a second after its first answer is given up: the instant field is the
 * session's one sensor from its first reading (until 2026-12-02 every reading of the run was a gap). One whose first
 * sample comes within that second stays the source. */
Test(nvml, a_buffer_that_never_gives_a_sample_leaves_the_instant_field_the_source, .timeout = 10)
{
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES", "wall", 1), 0);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES_PAUSE", "0,5000", 1), 0);   /* no sample for 5 s */
    struct nvml *nv = open_standin();
    struct nvml_buf b = { 0 };
    double w;
    uint64_t at;
    int gaps = 0;
    poll_for(nv, &b, 300, &gaps);
    /* judged by the clock, not the polls' count (a loaded host sleeps longer) */
    if (b.first_ns && mono_ns() - b.first_ns < NVML_BUF_FIRST_NS * 9 / 10)
        cr_assert_eq(b.state, NVML_BUF_ON, "under a second without a sample: still waiting for one");
    cr_assert_gt(gaps, 0);
    while (b.first_ns && mono_ns() - b.first_ns < NVML_BUF_FIRST_NS + 200000000ull)
        poll_for(nv, &b, 24, &gaps);
    cr_assert_eq(b.state, NVML_BUF_NONE, "a second without a sample: given up");
    cr_assert_eq(nvml_buf_reading(&b, &w, &at), -1, "the instant field is the source");
    nvml_close(nv);
    cr_assert_eq(setenv("GAUNTLET_STANDIN_SAMPLES_PAUSE", "0,500", 1), 0);   /* the first sample at 0.5 s */
    nv = open_standin();
    b = (struct nvml_buf){ 0 };
    long got = poll_for(nv, &b, 1300, NULL);
    cr_assert_eq(b.state, NVML_BUF_ON);
    cr_assert_gt(got, 10, "%ld samples", got);
    cr_assert_eq(nvml_buf_reading(&b, &w, &at), 1);
    nvml_close(nv);
    unsetenv("GAUNTLET_STANDIN_SAMPLES_PAUSE");
    unsetenv("GAUNTLET_STANDIN_SAMPLES");
}
