#!/usr/bin/env python3
"""tests/check_layers.py SOURCE_DIR: every #include "..." in harness/ resolves to a header of its own folder or of a
folder tests/layers.txt allows for it; prints each one that does not and exits 1. Also: no header name twice in
harness/ (includes name headers by file name alone)."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
harness = os.path.join(root, 'harness')
allowed, bad = {}, []
for line in open(os.path.join(root, 'tests', 'layers.txt')):
    line = line.split('#', 1)[0].strip()
    if line:
        folder, deps = line.split(':', 1)
        allowed[folder.strip()] = {d.split('(')[0] for d in deps.split()}
where = {}
for d, _, files in os.walk(harness):
    for f in files:
        if f.endswith('.h'):
            folder = os.path.relpath(d, harness)
            if f in where:
                bad.append(f'{f}: in harness/{where[f]}/ and harness/{folder}/ (a header name must be unique)')
            where[f] = folder
for f in os.listdir(os.path.join(root, 'kernels')):
    if f.endswith('.h'):
        where.setdefault(f, 'kernels')
for f in os.listdir(os.path.join(root, 'tui')):
    if f.endswith('.h'):
        where.setdefault(f, 'tui')
for d, _, files in os.walk(harness):
    me = os.path.relpath(d, harness)
    me = 'main' if me == '.' else me
    if me not in allowed and any(f.endswith(('.c', '.h')) for f in files):
        bad.append(f'harness/{me}/: not in tests/layers.txt')
        continue
    for f in files:
        if not f.endswith(('.c', '.h')):
            continue
        for no, line in enumerate(open(os.path.join(d, f), encoding='utf-8'), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            h = os.path.basename(m.group(1))
            folder = where.get(h)
            if folder is None:
                bad.append(f'{os.path.relpath(os.path.join(d, f), root)}:{no}: "{m.group(1)}" is no header of harness/, kernels/ or tui/')
            elif folder != (me if me != 'main' else '.') and folder not in allowed[me]:
                bad.append(f'{os.path.relpath(os.path.join(d, f), root)}:{no}: includes {folder}/{h}, which harness/{me}/ may not use '
                           f'(tests/layers.txt: {" ".join(sorted(allowed[me])) or "nothing"})')
for b in bad:
    print(b)
print(f'check_layers: {len(bad)} problem(s)')
sys.exit(1 if bad else 0)
