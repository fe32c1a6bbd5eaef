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
