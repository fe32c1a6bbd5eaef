#!/usr/bin/env python3
"""tests/check_docs.py GAUNTLET SOURCE_DIR: the commands README.md and docs/*.md show in their code blocks stay true.

Every `gauntlet COMMAND ...` line in a fenced block is read as a user would read it:
  - a synopsis (it has placeholders: [--opt X], SCENARIO.yaml, RUNDIR, a|b) must name a command that exists and
    only options that command's own `--help` lists (the help comes from the same table as its parser);
  - a concrete command (files that exist in the source tree, sim) is run as written, on sim, into a temporary
    folder, and must exit 0.
Commands that need what this machine has not (mpirun over a hostfile, srun, a file written elsewhere in the doc)
are checked as synopses only. Prints what it checked; exits 1 on the first disagreement of each line."""
import glob
import os
import re
import subprocess
import sys
import tempfile

exe, root = sys.argv[1], sys.argv[2]
files = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md')))
helps, bad, ran, checked = {}, [], 0, 0


def help_of(words):
    """The options `gauntlet WORDS --help` lists (None when the command does not exist)."""
    key = ' '.join(words)
    if key not in helps:
        p = subprocess.run([exe] + words + ['--help'], capture_output=True, text=True, timeout=60)
        helps[key] = set(re.findall(r'^\s+(--[a-z][a-z0-9-]*)', p.stdout, re.M)) if p.returncode == 0 else None
    return helps[key]


for path in files:
    rel = os.path.relpath(path, root)
    block = False
    for no, line in enumerate(open(path, encoding='utf-8'), 1):
        if line.startswith('```'):
            block = not block
            continue
        text = re.sub(r'^\$ ', '', line.strip())
        m = re.match(r'^(?:build/)?gauntlet (.*)$', text) if block else None
        if not m:
            continue
        cmd = m.group(1).split('#', 1)[0].strip()
        words = cmd.split()
        if not words or not re.match(r'^[a-z]+$', words[0]):
            continue   # not a command line (a screen drawn in the doc)
        sub = [words[0]] + ([words[1]] if words[0] == 'bench' and len(words) > 1 and re.match(r'^[a-z]+$', words[1])
                            else [])
        if words[0] == 'bench' and len(words) > 1 and '|' in words[1]:
            sub = ['bench']
        if words[0] == 'bench' and sub[-1] in ('gemm', 'allreduce'):
            sub = ['bench']   # the GPU benchmarks: their options are theirs (a build without CUDA has none)
        opts = help_of(sub)
        checked += 1
        if opts is None:
            bad.append(f'{rel}:{no}: `gauntlet {" ".join(sub)}` is no command (its --help fails)')
            continue
        for o in re.findall(r'(--[a-z][a-z0-9-]*)', cmd):
            if o not in opts and o != '--help':
                bad.append(f'{rel}:{no}: `gauntlet {" ".join(sub)}` has no option {o} (its --help: {" ".join(sorted(opts))})')
        synopsis = re.search(r'[\[\]|]|\.\.\.|\b[A-Z][A-Z_.]*[A-Z]\b|[A-Z]+\.(yaml|csv)', cmd)
        if synopsis or words[0] != 'run':
            continue
        files_named = [w for w in words[1:] if w.endswith('.yaml')]
        if not all(os.path.exists(os.path.join(root, f)) for f in files_named):
            continue   # a file the doc writes elsewhere: a synopsis here
        with tempfile.TemporaryDirectory() as tmp:
            argv = [exe] + words + (['--out', os.path.join(tmp, 'run')] if '--out' not in words else [])
            argv += [] if '--backend' in words else ['--backend', 'sim']
            argv += [] if '--headless' in words else ['--headless']
            p = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=300)
            ran += 1
            if p.returncode != 0:
                bad.append(f'{rel}:{no}: `{text}` exits {p.returncode}:\n{p.stdout[-2000:]}{p.stderr[-2000:]}')
for b in bad:
    print(b)
print(f'check_docs: {checked} command lines checked, {ran} run, {len(bad)} problem(s)')
sys.exit(1 if bad else 0)
