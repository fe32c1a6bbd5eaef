/* tests/test_units.c: sizes, durations and power levels as scenarios write them. */
#include <criterion/criterion.h>

#include "param.h"

Test(units, sizes)
{
    uint64_t v;
    cr_assert_eq(parse_size("1024", &v), 0); cr_assert_eq(v, 1024);
    cr_assert_eq(parse_size("8MiB", &v), 0); cr_assert_eq(v, 8ull << 20);
    cr_assert_eq(parse_size("1GiB", &v), 0); cr_assert_eq(v, 1ull << 30);
    cr_assert_eq(parse_size("1.5GiB", &v), 0); cr_assert_eq(v, 3ull << 29);
    cr_assert_eq(parse_size("2GB", &v), 0); cr_assert_eq(v, 2000000000ull);
    cr_assert_eq(parse_size("4 KiB", &v), 0); cr_assert_eq(v, 4096);
    cr_assert_eq(parse_size("8MB/s", &v), -1);
    cr_assert_eq(parse_size("-1", &v), -1);
    cr_assert_eq(parse_size("0.5B", &v), -1);
    cr_assert_eq(parse_size("", &v), -1);
    cr_assert_eq(parse_size("MiB", &v), -1);
    cr_assert_eq(parse_size("1TB", &v), 0); cr_assert_eq(v, 1000000000000ull);
    cr_assert_eq(parse_size("1TiB", &v), 0); cr_assert_eq(v, 1ull << 40);
}

/* A bare K, M, G or T is binary to some and decimal to others: refused, the message saying which two it could mean
 * (until 2026-11-30 K, M, G were read as KiB, MiB, GiB and T was refused). */
Test(units, bare_size_letters_are_refused)
{
    uint64_t v;
    const char *bare[] = { "1K", "1M", "1G", "1T", "8 M" };
    for (size_t i = 0; i < sizeof bare / sizeof *bare; i++)
        cr_assert_eq(parse_size(bare[i], &v), -1, "%s", bare[i]);
    struct { uint64_t b; } box;
    const struct param p = { .name = "bytes", .type = PT_SIZE, .min = 4, .max = 64.0 * 1073741824 };
    char why[256];
    cr_assert_eq(param_parse(&p, "1M", &box, why, sizeof why), -1);
    cr_assert_str_eq(why, "expected a size such as 8MiB or 1GiB, in [4B, 64GiB], got '1M' (M alone is ambiguous: "
                          "write MiB, a power of 1024, or MB, of 1000)");
    cr_assert_eq(param_parse(&p, "1MeB", &box, why, sizeof why), -1);
    cr_assert_str_eq(why, "expected a size such as 8MiB or 1GiB, in [4B, 64GiB], got '1MeB'");
}

/* A power is written with every digit it needs to read back the same (until 2026-11-30 "%g": 80.1234567% became
 * 80.1235% in the run's scenario.yaml). */
Test(units, power_formats_read_back_exactly)
{
    struct { struct power_value v; } box;
    const struct param p = { .name = "floor", .type = PT_POWER };
    const char *texts[] = { "80.1234567%", "1234.5678W", "80%", "560W", "0.1%", "33.333333333333336%" };
    char why[256], out[64];
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        cr_assert_eq(param_parse(&p, texts[i], &box, why, sizeof why), 0, "%s: %s", texts[i], why);
        param_format(&p, &box, out, sizeof out);
        cr_assert_str_eq(out, texts[i]);
    }
    cr_assert_eq(param_parse(&p, "1.2kW", &box, why, sizeof why), 0);
    param_format(&p, &box, out, sizeof out);
    cr_assert_str_eq(out, "1200W");
}

/* parse_int takes what is typed, no more: no space before it (strtoll would skip it), nothing after, nothing past
 * int64 (an error, never clamped). */
Test(units, integers)
{
    int64_t v;
    cr_assert_eq(parse_int("7", &v), 0);
    cr_assert_eq(v, 7);
    cr_assert_eq(parse_int("-3", &v), 0);
    cr_assert_eq(v, -3);
    cr_assert_eq(parse_int(" 7", &v), -1);
    cr_assert_eq(parse_int(" -1", &v), -1);
    cr_assert_eq(parse_int("7 ", &v), -1);
    cr_assert_eq(parse_int("", &v), -1);
    cr_assert_eq(parse_int("99999999999999999999", &v), -1);
}

Test(units, durations)
{
    double v;
    cr_assert_eq(parse_duration("1e308h", &v), -1, "past any double: inf");
    cr_assert_eq(parse_duration("nan", &v), -1);
    cr_assert_eq(parse_duration("500ms", &v), 0); cr_assert_float_eq(v, 0.5, 1e-15);
    cr_assert_eq(parse_duration("2s", &v), 0); cr_assert_float_eq(v, 2, 1e-15);
    cr_assert_eq(parse_duration("2", &v), 0); cr_assert_float_eq(v, 2, 1e-15);
    cr_assert_eq(parse_duration("100us", &v), 0); cr_assert_float_eq(v, 1e-4, 1e-18);
    cr_assert_eq(parse_duration("1min", &v), 0); cr_assert_float_eq(v, 60, 1e-12);
    cr_assert_eq(parse_duration("1h", &v), 0); cr_assert_float_eq(v, 3600, 1e-12);
    cr_assert_eq(parse_duration("3 days", &v), -1);
    cr_assert_eq(parse_duration("nan", &v), -1);
}

Test(units, power)
{
    struct power_value p;
    cr_assert_eq(parse_power("80%", &p), 0); cr_assert(p.percent); cr_assert_float_eq(p.value, 80, 1e-12);
    cr_assert_eq(parse_power("560W", &p), 0); cr_assert(!p.percent); cr_assert_float_eq(p.value, 560, 1e-12);
    cr_assert_eq(parse_power("1.2kW", &p), 0); cr_assert_float_eq(p.value, 1200, 1e-9);
    cr_assert_eq(parse_power("80", &p), -1);
}

Test(units, canonical_formats_read_back)
{
    char buf[64];
    uint64_t v;
    double d;
    uint64_t sizes[] = { 1, 1000, 1024, 8ull << 20, (1ull << 30) + 1, 3ull << 40 };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        format_size(sizes[i], buf, sizeof buf);
        cr_assert_eq(parse_size(buf, &v), 0, "%s", buf);
        cr_assert_eq(v, sizes[i], "%s", buf);
    }
    format_size(8ull << 20, buf, sizeof buf);
    cr_assert_str_eq(buf, "8MiB");
    double durs[] = { 0, 0.1, 0.05, 2, 1.5, 20e-6, 0.0125 };
    for (size_t i = 0; i < sizeof durs / sizeof *durs; i++) {
        format_duration(durs[i], buf, sizeof buf);
        cr_assert_eq(parse_duration(buf, &d), 0, "%s", buf);
        cr_assert_float_eq(d, durs[i], 1e-12, "%s", buf);
    }
    format_duration(0.1, buf, sizeof buf);
    cr_assert_str_eq(buf, "100ms");
}
