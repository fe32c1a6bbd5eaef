#!/usr/bin/env python3
"""tests/check_events.py GAUNTLET SOURCE_DIR [--preload STALL_PRELOAD] [--mpi]: docs/results.md's events table (section `events.jsonl`,
from the line `| event | fields | when |`) names every event a run writes and every field of each.

Static, both ways: every event type the source can write (the type given to results_event: a string literal, or the
literals a variable passed there is assigned in its file; an `"event", "NAME"` pair packed whole, as nodeagg.c's
node_iteration) has a row, and every row's event is written somewhere. Each emission site's fields that the source
spells (the top-level keys of the json_pack it passes, or packs into the variable it passes, and the keys set on that
variable before the call) are named in the row.

Dynamic: sim runs that together write most event types (the shipped fault-drill, checkpoint-async and fault-latency,
small scenarios for each recovery's own events, a damaged checkpoint and a restore that fails (tests/stall_preload.c, given), a spare
killed and SIGINT, the live view's keys through a pseudo-terminal, the mitigation search with a battery, and two nodes
under mpirun where this build has MPI (--mpi) and mpirun is found: node 1's supervisor stopped under shrink, a worker
of node 1 killed while node 0 still recovers, and four nodes with a relay deaf to one of them (the preload given)):
every line's event has a row and each of its fields is
named in it (`t_s` and `event` on every line; `node` on every line of a run of several nodes, as the section's
introduction says). Each run's own events must appear (a run that stopped writing them no longer checks them). Prints
the event types no run wrote. Exits 1 on any disagreement."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

exe, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
opts = sys.argv[3:]
preload = opts[opts.index('--preload') + 1] if '--preload' in opts else None
have_mpi = '--mpi' in opts
bad = []


# ---- the table
def doc_rows():
    """{event: its fields column} from docs/results.md's events table."""
    rows, intable = {}, False
    path = os.path.join(root, 'docs', 'results.md')
    for no, line in enumerate(open(path, encoding='utf-8'), 1):
        if line.startswith('| event | fields'):
            intable = True
            continue
        if intable and not line.startswith('|'):
            break
        if not intable or line.startswith('|---'):
            continue
        cols = [c.strip() for c in re.split(r'(?<!\\)\|', line.strip().strip('|'))]
        names = re.findall(r'`([a-z_]+)`', cols[0])
        if not names or len(cols) < 3:
            bad.append(f'docs/results.md:{no}: an events row without `event` names and three columns')
            continue
        for n in names:
            if n in rows:
                bad.append(f'docs/results.md:{no}: `{n}` has two rows')
            rows[n] = cols[1]
    if not rows:
        bad.append('docs/results.md: no events table (a line "| event | fields | when |")')
    return rows


def named(field, text):
    return re.search(r'(?<![A-Za-z0-9_])' + re.escape(field) + r'(?![A-Za-z0-9_])', text) is not None


# ---- the source
def strip_comments(src):
    """The C text with comments blanked (strings kept, line numbers kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def call_args(src, open_paren):
    """The top-level arguments of the call whose '(' is at open_paren, and the index after its ')'."""
    args, depth, start, i = [], 0, open_paren + 1, open_paren
    while i < len(src):
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < len(src) and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            i = j
        elif c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append(src[start:i].strip())
                return args, i + 1
        elif c == ',' and depth == 1:
            args.append(src[start:i].strip())
            start = i + 1
        i += 1
    return args, len(src)


def literals(text):
    return re.findall(r'"((?:[^"\\]|\\.)*)"', text)


def pack_keys(args):
    """The top-level keys of json_pack(args): its format's object keys at depth 1, each a literal argument."""
    if not args or not re.fullmatch(r'"[^"]*"', args[0]):
        return None
    fmt, rest, keys = literals(args[0])[0], args[1:], []
    depth, want_key, ai, i = 0, False, 0, 0
    while i < len(fmt):
        c = fmt[i]
        i += 1
        if c in ' \t,:':
            continue
        if c in '{[':
            depth += 1
            want_key = c == '{'
            if depth == 1 and c != '{':
                return None
            continue
        if c in '}]':
            depth -= 1
            want_key = depth >= 1   # an object's next key (arrays nested in objects only here)
            continue
        while i < len(fmt) and fmt[i] in '#%?*+':   # s#, s%, s?, o?, o* ...
            ai += 1 if fmt[i] in '#%' else 0
            i += 1
        if c == 'n':
            want_key = False if depth and not want_key else want_key
            continue
        if ai >= len(rest):
            return None
        if want_key and c == 's':
            if depth == 1:
                key = literals(rest[ai])
                if len(key) != 1 or not re.fullmatch(r'"[^"]*"', rest[ai]):
                    return None
                keys.append(key[0])
            want_key = False
        else:
            want_key = True
        ai += 1
    return keys


SET = re.compile(r'json_object_set(?:_new)?(?:_nocheck)?\s*\(')
DEF = re.compile(r'^[A-Za-z].*\)\s*\n\{', re.M)   # a function's head and its opening brace


def sites():
    """Every emission site: (file:line, [types], [keys] or None where the source does not spell them)."""
    found = []
    for top in ('harness', 'tui'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith('.c'):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                src = strip_comments(open(path, encoding='utf-8').read())
                heads = [m.end() for m in DEF.finditer(src)]
                prev, done = 0, set()
                for m in re.finditer(r'\bresults_event\s*\(', src):
                    args, end = call_args(src, m.end() - 1)
                    line = src.count('\n', 0, m.start()) + 1
                    if len(args) != 4 or re.match(r'(const\s+)?(struct|char|int)\b', args[0]):   # its definition
                        continue
                    func = max([h for h in heads if h <= m.start()], default=0)
                    seg_start = max(func, prev)
                    prev = end
                    targ, obj = args[2], args[3]
                    if re.fullmatch(r'[A-Za-z_]\w*', targ):   # a variable: the literals it is assigned in this file
                        if (rel, targ) in done:
                            continue
                        done.add((rel, targ))
                        assigns = [a for a in re.finditer(r'\b' + targ + r'\s*=\s*([^;=][^;]*);', src) if literals(a.group(1))]
                        for a in assigns:
                            # the fields packed for that type: from its assignment to the next break, return or call
                            stop = re.compile(r'\bbreak\s*;|\breturn\b|\bresults_event\s*\(').search(src, a.end())
                            seg = src[a.start():stop.start() if stop else len(src)]
                            found.append((f'{rel}:{src.count(chr(10), 0, a.start()) + 1}', literals(a.group(1)),
                                          keys_in(seg, obj)))
                        if not assigns:
                            bad.append(f'{rel}:{line}: results_event with a type ({targ}) this check cannot read')
                        continue
                    types = literals(targ)
                    if not types:
                        bad.append(f'{rel}:{line}: results_event with a type ({targ}) this check cannot read')
                        continue
                    found.append((f'{rel}:{line}', types, keys_in(src[seg_start:m.start()], obj)))
                for m in re.finditer(r'"event"\s*,\s*"([a-z_]+)"', src):   # a line packed whole
                    start = src.rfind('json_pack', 0, m.start())
                    args, _ = call_args(src, src.index('(', start))
                    keys = pack_keys(args)
                    found.append((f'{rel}:{src.count(chr(10), 0, m.start()) + 1}', [m.group(1)],
                                  [k for k in keys if k not in ('t_s', 'event')] if keys is not None else None))
    return found


def keys_in(seg, obj):
    """The keys of the object obj (a json_pack call, or a variable packed and set within seg); None: not spelled."""
    if obj == 'NULL':
        return []
    m = re.match(r'json_pack\s*\(', obj)
    if m:
        return pack_keys(call_args(obj, m.end() - 1)[0])
    if not re.fullmatch(r'[A-Za-z_]\w*', obj):
        return None
    keys, packed = [], False
    for a in re.finditer(r'\b' + obj + r'\s*=\s*json_pack\s*\(', seg):
        k = pack_keys(call_args(seg, a.end() - 1)[0])
        if k is None:
            return None
        keys += k
        packed = True
    for a in SET.finditer(seg):
        args, _ = call_args(seg, a.end() - 1)
        if len(args) == 3 and args[0] == obj:
            keys += literals(args[1])
    return keys if packed else None


rows = doc_rows()
emitted = {}
unspelled = []
for where, types, keys in sites():
    for t in types:
        emitted.setdefault(t, []).append(where)
        if t not in rows:
            bad.append(f'{where}: event `{t}` has no row in docs/results.md\'s events table')
        elif keys is None:
            unspelled.append(f'{t} ({where})')
        else:
            for k in keys:
                if not named(k, rows[t]):
                    bad.append(f'{where}: `{t}` writes field `{k}`, which its row in docs/results.md does not name')
for t in rows:
    if t not in emitted:
        bad.append(f'docs/results.md: `{t}` has a row but nothing in harness/ or tui/ writes it')
print(f'static: {len(emitted)} event types written at {sum(len(v) for v in emitted.values())} sites, {len(rows)} rows; '
      f'fields not spelled in the source (checked by the runs only): {", ".join(sorted(unspelled)) or "none"}')

# ---- the runs
tmp = tempfile.mkdtemp(prefix='gauntlet-check-events-')
seen, fields, ran = {}, {}, []

SMALL = ('name: small\nranks: 4\niterations: 40\nseed: 3\n'
         'workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 16KiB}\n'
         '  checkpoint: {every: 5, bytes: 16KiB, path: @TMPDIR@}\n'
         'sim: {max_elems: 4096}\nheartbeat: {interval: 100ms, timeout: 1s}\n')
RESTART = SMALL + ('detectors: [fingerprint]\nrecovery: restart\nfaults:\n'
                   '  - {kind: bitflip, at: 11, rank: 1, target: gemm-output, where: exponent}\n'
                   '  - {kind: crash, at: 13, rank: 2}\n')
# ~14 ms iterations: time to press keys, kill a spare, send a signal
SLOW = ('name: slow\nranks: 4\niterations: 400\nseed: 3\n'
        'workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n'
        '  checkpoint: {every: 10, bytes: 64KiB, path: @TMPDIR@}\n'
        'power: {sample_hz: 100}\nheartbeat: {interval: 50ms, timeout: 2s}\nsim: {tflops: 0.01}\n')
CLUSTER = ('name: cluster\nnodes: 2\nranks: %d\niterations: 30\nseed: 7\n'
           'workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n'
           '  checkpoint: {every: 10, bytes: 1MiB, path: @TMPDIR@}\n'
           'sim: {tflops: 0.005}\npower: {sample_hz: 100}\n')
FLIP10 = 'faults:\n  - {kind: bitflip, at: 10, rank: 1, target: weights, where: exponent}\n'
# the recovery events of tests/test_recovery_events.c: two findings of one vote, two ranks hung at one iteration
TIMELINE = ('name: timeline\nranks: 4\niterations: 24\nseed: 1\n'
            'workload:\n  gemm: {m: 1024, n: 1024, k: 1024, count: 2}\n  allreduce: {bytes: 64KiB}\n'
            'sim: {tflops: 1, max_elems: 4096, max_dim: 32}\nrecovery: {inprocess: {replicate_every: 2}}\n')


def scenario(name, text):
    d = tempfile.mkdtemp(dir=tmp)
    path = os.path.join(tmp, name + '.yaml')
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text.replace('@TMPDIR@', d))
    return path


def count(out, t):
    try:
        with open(os.path.join(out, 'events.jsonl'), encoding='utf-8') as f:
            return sum(1 for line in f if f'"event":"{t}"' in line)
    except OSError:
        return 0


def wait_for(out, t, n=1, limit=60.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if count(out, t) >= n:
            return True
        time.sleep(0.02)
    return False


def spare_killed_then_sigint(p, out):
    """Kills the spare (SIGKILL: spare_lost), then stops the run with SIGINT (interrupted)."""
    if not wait_for(out, 'iteration', 8):
        return 'no iteration'
    spare = next((e for e in map(json.loads, open(os.path.join(out, 'events.jsonl'))) if e['event'] == 'worker_start'
                  and e['rank'] < 0), None)
    if not spare:
        return 'no spare started'
    os.kill(spare['pid'], signal.SIGKILL)
    if not wait_for(out, 'spare_lost', 1, 20):
        return 'no spare_lost'
    p.send_signal(signal.SIGINT)
    return None


def held_crash(p, out):
    """Rank 2's crash held (GAUNTLET_TEST_RAISE_HOLD_*): rank 1 killed, then rank 2 let die while the ranks stop."""
    if not wait_for(out, 'fault_injected', 1):
        return 'no fault_injected'
    w = [e['pid'] for e in map(json.loads, open(os.path.join(out, 'events.jsonl'))) if e['event'] == 'worker_start']
    os.kill(w[1], signal.SIGKILL)
    began = wait_for(out, 'recovery_begin', 1, 30)
    open(os.path.join(tmp, 'release'), 'w').close()
    return None if began else 'no recovery_begin'


def live_view(p, out, master):
    """The view's keys: f (crash on rank 1), p, p, m, then q y p (the run is stopping: view_refused)."""
    listed = subprocess.run([exe, 'list'], capture_output=True, text=True, timeout=60).stdout
    kinds = re.findall(r'^  ([a-z-]+) ', listed.split('\nfaults:', 1)[1].split('\ndetectors:', 1)[0], re.M)
    if 'crash' not in kinds:
        return '`gauntlet list` names no crash fault'
    if not wait_for(out, 'iteration', 8):
        return 'no iteration'
    for keys, ev in ((f'f{kinds.index("crash") + 1}1\r', 'recovered'), ('p', 'paused'), ('p', 'resumed'),
                     ('m', 'run_skip')):
        os.write(master, keys.encode())
        if not wait_for(out, ev, 1, 30):
            return f'keys {keys!r}: no {ev}'
    os.write(master, b'q')
    time.sleep(0.3)
    os.write(master, b'yp')
    return None


def events_of(path):
    """The whole lines of a JSON Lines file being written: a list of objects ([] while it is not there)."""
    try:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except OSError:
        return []
    out = []
    for line in text.split('\n')[:-1]:   # the last: empty, or a line still being written
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def parent_of(pid):
    """The parent pid of pid (0 where it is gone)."""
    try:
        with open(f'/proc/{pid}/stat', encoding='utf-8') as f:
            return int(f.read().rsplit(')', 1)[1].split()[1])   # pid (comm) state ppid ...
    except (OSError, IndexError, ValueError):
        return 0


def node1_stalled(p, out):
    """Node 1's supervisor (the parent of a node 1 worker) stopped for good (SIGSTOP, then SIGKILL once node 0 has
    written its summary): node 0 hears nothing from it for the heartbeat timeout (node_silent), and shrink goes on
    without it (node_lost)."""
    if not wait_for(out, 'iteration', 10):
        return 'no iteration'
    sup = next((parent_of(e['pid']) for e in events_of(os.path.join(out, 'events.jsonl'))
                if e.get('event') == 'worker_start' and e.get('node') == 1), 0)
    if sup <= 0:
        return "node 1's supervisor not found"
    os.kill(sup, signal.SIGSTOP)
    end = time.monotonic() + 60
    while not os.path.exists(os.path.join(out, 'summary.json')) and time.monotonic() < end and p.poll() is None:
        time.sleep(0.05)
    os.kill(sup, signal.SIGKILL)   # the stalled node never comes back
    return None


def node1_fails_again(p, out):
    """Once node 1 has ended its part of the fifth recovery of rank 0's crashes (node 0 backs off 0.8 s now), rank
    3's worker killed: node 1 asks a recovery while node 0 still recovers (recovery_queued, unless this script was
    kept from the CPU past the back-off: said, not judged)."""
    path, end = os.path.join(out, 'events-node1.jsonl'), time.monotonic() + 90
    while p.poll() is None and time.monotonic() < end:
        evs = events_of(path)
        pids = [e['pid'] for e in evs if e.get('event') == 'worker_start' and e.get('rank') == 3]
        if sum(e.get('event') == 'recovery_end' for e in evs) >= 5 and pids:
            os.kill(pids[-1], signal.SIGKILL)
            return None
        time.sleep(0.002)
    return "node 1 never ended its fifth recovery: rank 3 was not killed"


def relay_muted(p, out):
    """Once the run is under way, the mute file made: node 3 sends nothing more to its relay (node 1)."""
    if not wait_for(out, 'iteration', 10):
        return 'no iteration'
    open(os.path.join(tmp, 'mute'), 'w').close()
    return None


def run(name, text, expect, soft=(), argv=None, env=None, want_rc=(0,), during=None, view=False, mpi=False, np=2):
    """Runs a scenario on sim into its own folder; checks its exit code and that it wrote expect (soft: said only)."""
    path = text if text.endswith('.yaml') else scenario(name, text)
    out = os.path.join(tmp, name)
    cmd = [exe, 'run', path, '--backend', 'sim', '--out', out] + ([] if view else ['--headless'])
    if mpi:
        cmd = ['mpirun', '--oversubscribe', '--allow-run-as-root', '-np', str(np)] + cmd
    e = dict(os.environ, **(env or {}))
    t0 = time.monotonic()
    log = open(os.path.join(tmp, name + '.log'), 'w+', encoding='utf-8', errors='replace')
    master = None
    if view:
        import fcntl, struct, termios
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 140, 0, 0))
        e['TERM'] = 'xterm'
        p = subprocess.Popen(cmd, cwd=root, stdin=slave, stdout=slave, stderr=log, env=e, start_new_session=True)
        os.close(slave)

        def drain():
            while True:
                try:
                    if not os.read(master, 65536):
                        break
                except OSError:
                    break
        threading.Thread(target=drain, daemon=True).start()
    else:
        p = subprocess.Popen(cmd, cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=e)
    why = during(p, out, master) if view else during(p, out) if during else None
    killed = False
    try:
        rc = p.wait(120)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        killed = True   # a line being written may be cut: the last one, said with it
    if master is not None:
        os.close(master)
    log.seek(0)
    text_log = log.read()[-3000:]
    ran.append(f'{name} {time.monotonic() - t0:.1f}s')
    if why:
        bad.append(f'run {name}: {why}\n{text_log}')
    if rc not in want_rc:
        bad.append(f'run {name}: exit {rc}, expected {" or ".join(map(str, want_rc))}\n{text_log}')
    files = [os.path.join(out, f) for f in sorted(os.listdir(out))
             if f.startswith('events') and f.endswith('.jsonl')] if os.path.isdir(out) else []
    types = set()
    for fpath in files:
        nodes = 1
        for no, line in enumerate(open(fpath, encoding='utf-8'), 1):
            try:
                ev = json.loads(line)
            except ValueError as x:
                bad.append(f'{fpath}:{no}: not JSON ({x})' +
                           (' (the run was killed at 120 s: a line being written may be cut)' if killed else ''))
                continue
            t = ev.get('event')
            if t == 'start':
                nodes = max(nodes, ev.get('nodes') or 1)
            types.add(t)
            seen.setdefault(t, set()).add(name)
            common = {'t_s', 'event'} | ({'node'} if nodes > 1 else set())   # "each line then has "node""
            for k in ev:
                if k not in common:
                    fields.setdefault(t, {}).setdefault(k, f'{os.path.basename(fpath)}:{no} of run {name}')
    for t in expect:
        if t not in types:
            bad.append(f'run {name}: wrote no `{t}` (it is there to check it)\n{text_log}')
    for t in soft:
        if t not in types:
            print(f'run {name}: wrote no `{t}` this time (timing: not judged)')


run('fault-drill', os.path.join(root, 'scenarios', 'fault-drill.yaml'), ['hang', 'worker_died', 'detector_fired', 'recovered'])
run('checkpoint-async', os.path.join(root, 'scenarios', 'checkpoint-async.yaml'), ['checkpoint_written'])
run('fault-latency', os.path.join(root, 'scenarios', 'fault-latency.yaml'), ['worker_reaped', 'state_restored'])
run('shrink', SMALL + 'recovery: {shrink: {replicate_every: 5}}\nfaults:\n'
    '  - {kind: bitflip, at: 3, rank: 3, target: weights, where: exponent}\n  - {kind: crash, at: 12, rank: 3}\n',
    ['rank_dropped'])
run('spare', SMALL + 'recovery: {spare: {replicate_every: 5}}\nfaults: [{kind: crash, at: 12, rank: 2}]\n', ['spare_adopted'])
run('spare-lost', SLOW + 'recovery: {spare: {replicate_every: 5}}\n', ['spare_lost', 'interrupted'],
    want_rc=(1,), during=spare_killed_then_sigint)
run('not-injected', 'name: notinj\nranks: 4\niterations: 60\nseed: 3\n'
    'workload:\n  gemm: {m: 512, n: 512, k: 512, count: 4}\n  allreduce: {bytes: 1MiB}\n'
    'heartbeat: {interval: 50ms, timeout: 800ms}\nsim: {tflops: 0.1}\nrecovery: none\nfaults:\n'
    '  - {kind: crash, at_s: 300ms, rank: 1}\n  - {kind: crash, at_s: 300ms, rank: 1}\n', ['fault_not_injected'],
    want_rc=(1,))
if preload:   # rank 1's checkpoint of 10 damaged as written: restart goes back to 5; damaged once read whole: fails
    asan = os.environ.get('ASAN_OPTIONS', '')
    pre = {'LD_PRELOAD': preload, 'ASAN_OPTIONS': (asan + ':' if asan else '') + 'verify_asan_link_order=0'}
    damage = dict(pre, GAUNTLET_TEST_DAMAGE_CKPT='-rank1-')
    run('restart-damaged', RESTART, ['checkpoint_damaged', 'fault_rolled_back'],
        env=dict(damage, GAUNTLET_TEST_DAMAGE_WHEN='rename', GAUNTLET_TEST_DAMAGE_ITER='10'))
    run('restore-fails', RESTART, ['worker_error'], want_rc=(1,),
        env=dict(damage, GAUNTLET_TEST_DAMAGE_WHEN='verify', GAUNTLET_TEST_DAMAGE_ITER='-1'))
    run('seen', TIMELINE + 'heartbeat: {interval: 10ms, timeout: 10s}\nfaults: [{kind: crash, at: 10, rank: 2}]\n',
        ['seen_during_recovery', 'fault_undone'], during=held_crash,
        env=dict(pre, GAUNTLET_TEST_RAISE_HOLD_SLOT='2',
                 GAUNTLET_TEST_RAISE_HOLD_FILE=os.path.join(tmp, 'release')))
else:
    print('no STALL_PRELOAD given: the damaged checkpoint runs and the held crash are left out')
    run('restart', RESTART, ['fault_rolled_back'])
run('abandoned', TIMELINE + 'detectors: [fingerprint]\nfaults:\n'
    '  - {kind: bitflip, at: 10, rank: 1, target: allreduce-buffer, where: value, value: 1000}\n'
    '  - {kind: bitflip, at: 10, rank: 2, target: allreduce-buffer, where: value, value: 1000}\n',
    ['detection_abandoned', 'fault_undone'])
run('hung', TIMELINE + 'heartbeat: {interval: 10ms, timeout: 2s}\n'
    'faults:\n  - {kind: hang, at: 10, rank: 1}\n  - {kind: hang, at: 10, rank: 2}\n', ['hung_in_recovery'])
run('live-view', SLOW + 'recovery: restart\nmitigations: [none, {filler: {floor: 60%}}]\n',
    ['fault_requested', 'paused', 'resumed', 'run_skip', 'interrupted'], soft=['view_refused'], want_rc=(1,),
    during=live_view, view=True)
run('search', 'name: mit\nranks: 2\niterations: 4\nseed: 3\n'
    'workload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 16}\n'
    '  allreduce: {bytes: 256MiB, emulate_busbw: 20, emulate_ranks: 1024}\npower: {sample_hz: 200}\n'
    'projection: {gpus: 100000, spec: {dynamic_range_mw: 20}}\nsearch_budget: 16\nmitigations: auto\n',
    ['bess_sized', 'smoothing', 'mitigation_tuned'], soft=['search_refine'])
if have_mpi and shutil.which('mpirun'):
    os.environ.setdefault('PMIX_MCA_psec', 'native')   # no munge retries, no DNS for X displays (tests/e2e.c)
    os.environ.setdefault('HWLOC_COMPONENTS', '-gl')
    run('nodes-restart', CLUSTER % 2 + 'recovery: restart\ndetectors: [{heartbeat: {factor: 4, min_excess: 300ms}}]\n'
        'faults:\n  - {kind: node-crash, at: 15, node: 1}\n', ['node_iteration', 'recovery_request'], mpi=True)
    run('nodes-shrink', CLUSTER % 2 + 'recovery: {shrink: {replicate_every: 5}}\n'
        'faults:\n  - {kind: node-crash, at: 15, node: 1}\n', ['node_left'], mpi=True)
    run('nodes-tie', CLUSTER % 1 + 'detectors: [fingerprint]\n' + FLIP10, ['fingerprint_tie'], want_rc=(1,), mpi=True)
    run('nodes-differ', CLUSTER % 1 + FLIP10, ['states_differ'], mpi=True)
    # the liveness and coordination events of tests/test_cluster.c: a stalled node shrunk away, a request while node
    # 0 still recovers, a relay deaf to one node
    run('nodes-stalled', CLUSTER.replace('iterations: 30', 'iterations: 200') % 2 +
        'heartbeat: {interval: 100ms, timeout: 2s}\nrecovery: {shrink: {replicate_every: 5}}\n',
        ['node_silent', 'node_lost'], want_rc=(0, 1, 137), during=node1_stalled, mpi=True)
    # 1 or 137: mpirun's, for the node this script killed (SIGKILL: 128 + 9 where mpirun sees the kill before node 0's
    # end, as in CI on 2026-12-02; 1 or 0 otherwise); node 0's own exit is in its summary, judged by the events
    run('nodes-queued', CLUSTER % 2 + 'heartbeat: {timeout: 5s, startup: 20s}\n'
        'recovery: {inprocess: {replicate_every: 5}}\nfaults:\n' + '  - {kind: crash, at: 14, rank: 0}\n' * 5,
        [], soft=['recovery_queued'], during=node1_fails_again, mpi=True)
    if preload:   # 4 nodes of gather_fanout 2: node 3's relay is node 1; 200 iterations of at least 34 ms each
        run('nodes-deaf-relay', 'name: deaf-relay\nnodes: 4\nranks: 1\niterations: 200\nseed: 7\ngather_fanout: 2\n'
            'workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n'
            'sim: {tflops: 0.002}\npower: {sample_hz: 100}\nheartbeat: {interval: 100ms, timeout: 2s}\n',
            ['relay_lost'], want_rc=(0, 1), during=relay_muted, mpi=True, np=4,   # 1: mpirun's, no MPI_Finalize
            env=dict(pre, GAUNTLET_TEST_UP_MUTE='3:1', GAUNTLET_TEST_UP_MUTE_FILE=os.path.join(tmp, 'mute')))
else:
    print('the runs of two nodes are left out: ' + ('mpirun not found' if have_mpi else 'this build has no MPI'))

for t in sorted(seen):
    if t not in rows:
        bad.append(f'run {sorted(seen[t])[0]}: event `{t}` has no row in docs/results.md\'s events table')
        continue
    for k, where in sorted(fields.get(t, {}).items()):
        if not named(k, rows[t]):
            bad.append(f'{where}: `{t}` has field `{k}`, which its row in docs/results.md does not name')
if os.environ.get('GAUNTLET_TEST_KEEP', '0') != '0' or bad:   # the runs' folders and logs, for a failure to be followed
    print(f'runs kept in {tmp}')
else:
    shutil.rmtree(tmp, ignore_errors=True)
print('runs:', ', '.join(ran))
print(f'dynamic: {len(seen)} of {len(rows)} event types written; not by these runs: '
      f'{" ".join(sorted(set(rows) - set(seen)))}')
for b in bad:
    print(b)
print(f'check_events: {len(bad)} problem(s)')
sys.exit(1 if bad else 0)
