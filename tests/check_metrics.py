#!/usr/bin/env python3
"""tests/check_metrics.py FILE openmetrics|prometheus [SERIES...]: parses FILE with the Prometheus project's own
parser for that format (prometheus_client: OpenMetrics as served over HTTP, the text format node_exporter's
textfile collector reads), checks every SERIES (a family name) is there with at least one sample, and runs
`promtool check metrics` on it too when promtool is installed. Exit 0 ok, 1 invalid, 77 the parser is missing
(the caller skips, saying why)."""
import shutil
import subprocess
import sys


def main():
    path, fmt, want = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        if fmt == "openmetrics":
            from prometheus_client.openmetrics.parser import text_string_to_metric_families
        else:
            from prometheus_client.parser import text_string_to_metric_families
    except ImportError as e:
        print(f"check_metrics: no prometheus_client ({e}): apt-get install python3-prometheus-client")
        return 77
    text = open(path, encoding="utf-8").read()
    try:
        fams = {f.name: f for f in text_string_to_metric_families(text)}
    except Exception as e:   # the parser's own words: what is malformed
        print(f"check_metrics: {path} is not valid {fmt}: {e}")
        return 1
    for name in want:
        if name not in fams or not fams[name].samples:
            print(f"check_metrics: {path}: no samples of {name} (families: {sorted(fams)})")
            return 1
    promtool = shutil.which("promtool")
    if promtool and fmt == "prometheus":
        r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
        if r.returncode != 0:   # promtool also lints names and help; its problems are printed
            print(f"check_metrics: promtool check metrics: {r.stdout}{r.stderr}")
            return 1
    print(f"check_metrics: {path}: {fmt} ok, {len(fams)} families"
          + ("" if promtool else " (promtool not installed: not run)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
