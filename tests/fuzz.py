#!/usr/bin/env python3
"""tests/fuzz.py: a mutation fuzzer for the five commands that read files from outside.

    tests/fuzz.py BUILD --target check|analyze|summarize|report|view [--seconds S] [--seed N] [--mem-mib M] [--out DIR]

Starts from real inputs (the scenarios shipped in scenarios/, the CSV traces in docs/data and tests/scenarios, the
records of short sim runs made here, one of two nodes under mpirun where the build has MPI and mpirun is found),
mutates them (bytes flipped, inserted and cut; lines repeated, swapped and cut; tokens that have broken parsers
before: hex, huge and tiny numbers, NULs, quoted and tagged YAML scalars, dates far off, a file's own rows far off in
time, torn last lines, NUL padding; in JSON, a value replaced by one of another type or far out of range) and runs
`BUILD/gauntlet <target>` on each, one process per input, for S seconds (default 60). `report` and `view` get a whole
results folder (summary.json, scenario.yaml, events.jsonl, power.csv of a run with a fault and a restart, of a
mitigation sweep, that sweep's summary as `summarize` rebuilds it, and of the run of two nodes with its
power-nodes.csv, the nodes' summed power that `view` reads), one or two of its files mutated, now and then one removed
(a killed run's folder); `summarize` gets events.jsonl and power.csv of a run with a fault and a restart, and of the
run of two nodes with its power-nodes.csv, from which it rebuilds the cluster's power; `view` runs with `--snapshot`
only (text, no terminal), at a time drawn from the record's start, middle, end and past it. BUILD is meant to be a
build with -DGAUNTLET_SANITIZE=ON (tests/sanitize-all.sh makes build-asan/): AddressSanitizer and
UndefinedBehaviorSanitizer stop at their first report.

An input fails the fuzz when the command
  - is killed by a signal or exits with a code that is not 0, 1 or 2 (bad input is exit 2; 3 is only for the
    machine, which a fuzzed file is not),
  - prints a sanitizer report,
  - runs longer than 10 s (a hang: every input is a few kB),
  - `report` or `view` only: exits 1 (neither has a check to fail), or exits 2 without naming the folder's file it
    refuses,
  - or reaches a resident size over --mem-mib (default 1024 MiB, the sanitizer's own overhead included).
Each failing input is kept under --out (default /tmp/gauntlet-fuzz-<target>) with the command's output; the exit
status is 1 when any input failed, else 0. The same --seed gives the same inputs.
"""
import argparse
import atexit
import copy
import glob
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TOKENS = [b"0x12c", b"0X1p4", b"1e308", b"-1e308", b"1e-308", b"inf", b"-inf", b"nan", b"9223372036854775807",
          b"-9223372036854775808", b"18446744073709551616", b"4294967296", b"-1", b"0", b"00000000000000000001",
          b"\x00", b"'3'", b"!!str 3", b"!!float 3", b"!!binary AAAA", b"&a", b"*a", b"<<: *a", b"[", b"]", b"{",
          b"}", b"- ", b": ", b"\"\\0\"", b"\"a\\0b\"", b"9999/01/01 00:00:00.000", b"1000/01/01 00:00:00.000",
          b"2026/13/45 25:61:61.999", b"\xef\xbb\xbf", b"\r\n", b"\t", b"%", b"200%", b"1e9h", b"1ms", b"0s",
          b"1e-12", b"\"", b",", b",,,,", b"\xff\xfe", b"A" * 300, b"9" * 40, b"{\"event\":", b"\"iter\":"]

YAML_KEYS = [b"iterations", b"ranks", b"nodes", b"seed", b"tflops", b"sample_hz", b"floor", b"interval", b"timeout",
             b"bytes", b"every", b"path", b"name", b"count", b"m", b"n", b"k", b"cap", b"groups", b"offset"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four mutations of data."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(10)
        pos = rng.randrange(len(b) + 1) if b else 0
        if op == 0 and b:                                   # flip a byte
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif op == 1:                                       # insert a token
            b[pos:pos] = rng.choice(TOKENS)
        elif op == 2 and b:                                 # replace a number-like run with a token
            i = rng.randrange(len(b))
            j = i
            while j < len(b) and chr(b[j]) in "0123456789.eE+-:/":
                j += 1
            b[i:max(j, i + 1)] = rng.choice(TOKENS)
        elif op == 3 and b:                                 # cut a span
            i = rng.randrange(len(b))
            del b[i:i + rng.randint(1, 64)]
        elif op == 4:                                       # repeat, drop or swap lines
            lines = bytes(b).split(b"\n")
            if len(lines) > 1:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                what = rng.randrange(3)
                if what == 0:
                    lines.insert(j, lines[i])
                elif what == 1:
                    del lines[i]
                else:
                    lines[i], lines[j] = lines[j], lines[i]
                b = bytearray(b"\n".join(lines))
        elif op == 5 and b:                                 # a torn last line
            del b[rng.randrange(len(b)):]
        elif op == 6:                                       # NUL padding, as a killed writer's file system leaves
            b += b"\x00" * rng.randint(1, 4096)
        elif op == 7:                                       # a YAML key with a hostile value
            b[pos:pos] = b"\n" + rng.choice(YAML_KEYS) + b": " + rng.choice(TOKENS) + b"\n"
        elif op == 8 and b:                                 # a row far away in time
            lines = [ln for ln in bytes(b).split(b"\n")[1:] if b"," in ln]
            if lines and rng.random() < 0.5:                # one of the file's own, its first field far off
                ln = rng.choice(lines)
                row = rng.choice([b"19000000", b"1e15", b"-5", b"4294967296", b"86400", b"1e-300"]) + ln[ln.find(b","):]
                at = bytes(b).rfind(b"\n", 0, rng.randrange(len(b) + 1)) + 1
                b[at:at] = row + b"\n"
            else:
                b += b"\n" + rng.choice([b"19000000,300", b"1e15,300", b"-5,300",
                                         b"2261/01/01 00:00:00.000, 0, 1 W"]) + b"\n"
        elif op == 9:                                       # deep nesting
            d = rng.randint(1, 200)
            b[pos:pos] = b"[" * d + b"]" * rng.randint(0, d)
    return bytes(b)


JSON_VALUES = [None, True, False, 0, -1, 1, 0.5, -0.0, 1e308, -1e308, 1e-308, 5e-324, 2 ** 63 - 1, -2 ** 63, 2 ** 64,
               10 ** 40, 4096, 65536, 1e12, 1e13, "", "x", "A" * 300, "\u0000", "none", "bess", "filler", "end",
               "run_begin", "run_end", "iteration", [], [0], [1e308, -1e308], [[[]]], {}, {"a": 1}]


def mutate_json(data: bytes, rng: random.Random, jsonl: bool) -> bytes:
    """A JSON document (jsonl: one line of a JSON Lines file) with one to three of its values replaced by one of another
    type or far out of range, a key dropped or a list cut; data as it was where it is no JSON."""
    lines = data.split(b"\n")
    i = rng.randrange(len(lines)) if jsonl else 0
    try:
        doc = json.loads(lines[i] if jsonl else data)
    except ValueError:
        return data
    for _ in range(rng.randint(1, 3)):
        spots = []   # (container, key) of every value

        def walk(v, depth=0):
            if depth > 12:
                return
            for k in (range(len(v)) if isinstance(v, list) else v.keys() if isinstance(v, dict) else ()):
                spots.append((v, k))
                walk(v[k], depth + 1)
        walk(doc)
        if not spots:
            break
        c, k = rng.choice(spots)
        op = rng.randrange(6)
        if op < 4:   # a copy: the value may itself be mutated next, and must never come to hold itself
            c[k] = copy.deepcopy(rng.choice(JSON_VALUES))
        elif op == 4 and isinstance(c, dict):
            del c[k]
        elif op == 4:
            del c[k:]
        elif isinstance(c[k], (int, float)) and not isinstance(c[k], bool):
            c[k] = c[k] * rng.choice([-1, 10 ** 6, 1e-6, 3, 0]) + rng.choice([0, 1, -1])
        else:
            c[k] = [c[k]] * rng.randint(2, 40) if rng.random() < 0.5 else copy.deepcopy(rng.choice(JSON_VALUES))
    text = json.dumps(doc, indent=None if jsonl else rng.choice([None, 2])).encode()
    if jsonl:
        lines[i] = text
        return b"\n".join(lines)
    return text + b"\n"


def sim_run(build: str, work: str, name: str, yaml: str) -> str:
    """A short sim run of the scenario yaml into work/name; its folder."""
    scen = os.path.join(work, name + ".yaml")
    with open(scen, "w") as f:
        f.write(yaml)
    run = os.path.join(work, name)
    rc = subprocess.run([os.path.join(build, "gauntlet"), "run", scen, "--backend", "sim", "--headless", "--out", run],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300).returncode
    if rc != 0:
        sys.exit(f"fuzz: the seed run {name} exited {rc}")
    return run


RUN_FILES = ["summary.json", "scenario.yaml", "events.jsonl", "power.csv", "power-nodes.csv"]

# two nodes under mpirun, forward: nodes (power-nodes.csv on node 0), node 1 crashed at 15 and shrunk away (its
# node_left, its rows ending): what `view` and `summarize` read of several nodes
CLUSTER = ("name: cluster\nnodes: 2\nranks: 1\niterations: 30\nseed: 7\n"
           "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
           "power: {sample_hz: 200}\nrecovery: {shrink: {replicate_every: 5}}\n"
           "faults:\n  - {kind: node-crash, at: 15, node: 1}\n")


def cluster_run(build: str, work: str, mpi: bool):
    """The folder of a two-node sim run under mpirun (CLUSTER), or None, said, where mpirun or the build's MPI is
    missing."""
    if not mpi or not shutil.which("mpirun"):
        print("fuzz: " + ("mpirun not found" if mpi else "this build has no MPI") +
              ": no seed of two nodes (power-nodes.csv is not fuzzed)", flush=True)
        return None
    scen = os.path.join(work, "cluster.yaml")
    with open(scen, "w") as f:
        f.write(CLUSTER)
    run = os.path.join(work, "cluster")
    env = dict(os.environ, PMIX_MCA_psec="native", HWLOC_COMPONENTS="-gl",   # as tests/e2e.c: no munge, no DNS
               ASAN_OPTIONS="detect_leaks=0")   # Open MPI's own allocations, kept to its exit
    p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2", os.path.join(build, "gauntlet"),
                        "run", scen, "--backend", "sim", "--headless", "--out", run], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env=env, timeout=300)
    if p.returncode != 0 or not os.path.exists(os.path.join(run, "power-nodes.csv")):
        sys.exit(f"fuzz: the seed run of two nodes exited {p.returncode}"
                 f"{'' if p.returncode else ' without power-nodes.csv'}:\n" + p.stdout.decode(errors="replace")[-3000:])
    return run


def folder_seeds(build: str, work: str, mpi: bool):
    """A run with a fault and a restart, a mitigation sweep, the sweep's summary rebuilt by summarize, and a run of two
    nodes where mpirun is found: a list of (name, {file: bytes})."""
    runs = [("faults", sim_run(build, work, "faults",
                              "name: faults\nranks: 2\niterations: 30\nseed: 1\n"
                              "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                              "faults:\n  - {kind: crash, at: 10, rank: 1}\nrecovery: restart\n")),
            ("sweep", sim_run(build, work, "sweep",
                             "name: sweep\nranks: 2\niterations: 12\nseed: 2\n"
                             "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                             "power: {sample_hz: 200}\nmitigations:\n  - none\n  - filler: {floor: [50%, 80%]}\n"
                             "  - ramp: {ramp_w_s: 5000}\n  - bess: {capacity_mwh: 10, power_mw: 20, window: 2s}\n"))]
    rebuilt = os.path.join(work, "rebuilt")
    shutil.copytree(runs[1][1], rebuilt)
    os.unlink(os.path.join(rebuilt, "summary.json"))
    rc = subprocess.run([os.path.join(build, "gauntlet"), "summarize", rebuilt], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, timeout=120).returncode
    if rc != 0:
        sys.exit(f"fuzz: summarize of the seed run exited {rc}")
    runs.append(("rebuilt", rebuilt))
    cluster = cluster_run(build, work, mpi)
    if cluster:
        runs.append(("cluster", cluster))
    return [(name, {f: open(os.path.join(d, f), "rb").read() for f in RUN_FILES if os.path.exists(os.path.join(d, f))})
            for name, d in runs]


def mutate_folder(files: dict, target: str, rng: random.Random) -> dict:
    """A results folder with one or two of the files target reads mutated (a JSON one half the time by its values),
    one in twenty times one of them removed instead."""
    out = dict(files)
    names = [f for f in out if target == "report" or f in ("events.jsonl", "power.csv", "power-nodes.csv")]
    if rng.random() < 0.05:
        del out[rng.choice(names)]
        return out
    for f in rng.sample(names, 2 if rng.random() < 0.2 and len(names) > 1 else 1):
        if f.endswith((".json", ".jsonl")) and rng.random() < 0.5:
            out[f] = mutate_json(out[f], rng, f.endswith(".jsonl"))
        else:
            out[f] = mutate(out[f], rng)
    return out


SUMMARIZE_FILES = ["events.jsonl", "power.csv", "power-nodes.csv"]
SPLIT = b"\x01SPLIT\x01"


def seeds(src: str, target: str, build: str, work: str, mpi: bool):
    """The starting inputs: a list of (name, bytes) — for summarize, the SUMMARIZE_FILES a run wrote joined by SPLIT;
    for report and view, (name, {file: bytes}) of a results folder."""
    if target in ("report", "view"):
        return folder_seeds(build, work, mpi)
    if target == "check":
        files = sorted(glob.glob(os.path.join(src, "scenarios", "*.yaml")) +
                       glob.glob(os.path.join(src, "scenarios", "acceptance", "*.yaml")) +
                       glob.glob(os.path.join(src, "tests", "scenarios", "**", "*.yaml"), recursive=True))
        return [(os.path.basename(f), open(f, "rb").read()) for f in files]
    if target == "analyze":
        files = sorted(glob.glob(os.path.join(src, "docs", "data", "*.csv")) +
                       glob.glob(os.path.join(src, "tests", "scenarios", "**", "*.csv"), recursive=True))
        out = []
        for f in files:   # the first 120 rows: small inputs, many of them
            lines = open(f, "rb").read().split(b"\n")
            out.append((os.path.basename(f), b"\n".join(lines[:120]) + b"\n"))
        out.append(("tiny.csv", b"t_s,watts\n0,300\n0.01,400\n0.02,300\n0.03,420\n0.04,300\n"))
        return out
    # summarize: the record of a short real run
    scen = os.path.join(work, "seed.yaml")
    with open(scen, "w") as f:
        f.write("name: seed\nranks: 2\niterations: 30\nseed: 1\n"
                "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                "faults:\n  - {kind: crash, at: 10, rank: 1}\nrecovery: restart\n")
    run = os.path.join(work, "seed-run")
    rc = subprocess.run([os.path.join(build, "gauntlet"), "run", scen, "--backend", "sim", "--headless", "--out", run],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120).returncode
    if rc != 0:
        sys.exit(f"fuzz: the seed run exited {rc}")
    out = [("run", run)]
    cluster = cluster_run(build, work, mpi)
    if cluster:
        out.append(("cluster", cluster))
    return [(name, SPLIT.join(open(os.path.join(d, f), "rb").read() for f in SUMMARIZE_FILES
                              if os.path.exists(os.path.join(d, f)))) for name, d in out]


def run_one(cmd, env, limit, timeout_s):
    """Runs cmd; returns (exit code or -signal, output, seconds, max RSS KiB, timed_out)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                         start_new_session=True, preexec_fn=limit)
    timed_out = False
    try:
        out, _ = p.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)   # the largest of any child so far: checked against the cap
    return p.returncode, out, time.monotonic() - t0, ru.ru_maxrss, timed_out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--target", required=True, choices=["check", "analyze", "summarize", "report", "view"])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mem-mib", type=int, default=1024)
    ap.add_argument("--out")
    a = ap.parse_args()
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exe = os.path.join(a.build, "gauntlet")
    if not os.access(exe, os.X_OK):
        sys.exit(f"fuzz: {exe}: not built")
    out_dir = a.out or f"/tmp/gauntlet-fuzz-{a.target}"
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    work = tempfile.mkdtemp(prefix=f"gauntlet-fuzz-{a.target}-")
    atexit.register(shutil.rmtree, work, True)   # on every way out: an exception, ^C, sys.exit
    reports = os.path.join(work, "reports")
    os.makedirs(reports)
    env = dict(os.environ)
    # the sanitizer enforces the memory cap itself (hard_rss_limit_mb: a report, then exit); a plain build gets an
    # address-space limit instead (the sanitizer's shadow memory rules that out under it)
    env["ASAN_OPTIONS"] = (f"detect_leaks=0:halt_on_error=1:abort_on_error=0:handle_segv=1:log_path={reports}/asan:"
                           f"hard_rss_limit_mb={a.mem_mib}")
    env["UBSAN_OPTIONS"] = f"halt_on_error=1:print_stacktrace=1:log_path={reports}/ubsan"
    ldd = subprocess.run(["ldd", exe], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    sanitized = b"libasan" in ldd
    limit = None if sanitized else (lambda: resource.setrlimit(resource.RLIMIT_AS, (a.mem_mib << 21, a.mem_mib << 21)))
    rng = random.Random(a.seed)
    pool = seeds(src, a.target, a.build, work, b"libmpi" in ldd)
    if not pool:
        sys.exit("fuzz: no seed inputs found")
    end = time.monotonic() + a.seconds
    n = failed = 0
    slowest = 0.0
    while time.monotonic() < end:
        name, base = rng.choice(pool)
        case = os.path.join(work, "case")
        shutil.rmtree(case, ignore_errors=True)
        os.makedirs(case)
        if a.target in ("report", "view"):
            for f, data in mutate_folder(base, a.target, rng).items():
                open(os.path.join(case, f), "wb").write(data)
            cmd = [exe, a.target, case]
            if a.target == "view":
                cmd += ["--snapshot", rng.choice(["120x40", "40x12", "80x24", "300x100"])]
                if rng.random() < 0.7:
                    cmd += ["--at", rng.choice(["0", "0.5", "1", "2", "3.7", "5", "1000000"])]
        else:
            data = mutate(base, rng)
        if a.target == "check":
            path = os.path.join(case, "in.yaml")
            open(path, "wb").write(data)
            cmd = [exe, "check", path]
        elif a.target == "analyze":
            path = os.path.join(case, "in.csv")
            open(path, "wb").write(data)
            cmd = [exe, "analyze", path, "--threads", "1"]
            if rng.random() < 0.3:
                cmd += rng.choice([["--json"], ["--gpus", rng.choice(["1", "100000", "3000000000", "-5", "1e9"])],
                                   ["--groups", rng.choice(["1", "7", "3000000000"])],
                                   ["--jitter", rng.choice(["0", "10ms", "1e308h", "-1s"])],
                                   ["--hz", rng.choice(["1", "1e9", "0.001", "0"])], ["--strict"]])
        elif a.target == "summarize":
            parts = base.split(SPLIT)
            if rng.random() < 0.5:   # one file at a time keeps the others valid
                i = rng.randrange(len(parts))
                parts[i] = mutate(parts[i], rng)
            else:   # the files joined, mutated as one (a separator cut: the files after it empty)
                parts = (data.split(SPLIT) + [b""] * len(parts))[:len(parts)]
            for f, part in zip(SUMMARIZE_FILES, parts):
                open(os.path.join(case, f), "wb").write(part)
            cmd = [exe, "summarize", case]
        for f in os.listdir(reports):
            os.unlink(os.path.join(reports, f))
        rc, out, secs, rss_kib, timed_out = run_one(cmd, env, limit, 10)
        n += 1
        slowest = max(slowest, secs)
        sanitizer = os.listdir(reports)
        why = ("a hang (over 10 s)" if timed_out else
               f"a sanitizer report ({', '.join(sanitizer)})" if sanitizer else
               f"killed by signal {-rc}" if rc < 0 else
               f"exit {rc}" if rc not in ((0, 2) if a.target in ("report", "view") else (0, 1, 2)) else
               "exit 2 naming no file of the folder" if rc == 2 and a.target in ("report", "view") and
               case.encode() not in out else
               f"{rss_kib // 1024} MiB resident (cap {a.mem_mib})" if rss_kib > a.mem_mib * 1024 else None)
        if why:
            failed += 1
            keep = os.path.join(out_dir, f"fail-{failed:03d}")
            shutil.copytree(case, keep)
            with open(os.path.join(keep, "why.txt"), "wb") as f:
                f.write(f"{why}\ncommand: {' '.join(cmd)}\nseed input: {name}\n\n".encode() + out[-20000:])
                for r in sanitizer:
                    f.write(b"\n--- " + r.encode() + b"\n" + open(os.path.join(reports, r), "rb").read()[-20000:])
            print(f"fuzz {a.target}: FAIL {keep}: {why}", flush=True)
            if rss_kib > a.mem_mib * 1024:
                break   # RUSAGE_CHILDREN keeps the largest: later inputs could not be judged
            if failed >= 20:
                break
    print(f"fuzz {a.target}: {n} inputs in {a.seconds:.0f} s, {failed} failed (slowest {slowest:.2f} s); "
          f"failures kept in {out_dir}" if failed else
          f"fuzz {a.target}: {n} inputs in {a.seconds:.0f} s, none failed (slowest {slowest:.2f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
