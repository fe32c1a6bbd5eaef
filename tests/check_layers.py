#!/usr/bin/env python3
"""tests/check_layers.py SOURCE_DIR: every #include "..." in harness/ resolves to a header of its own folder or of a
folder tests/layers.txt allows for it; prints each one that does not and exits 1. Also: no header name twice in
harness/ (includes name headers by file name alone), no folder allowed one it does not use (the file stays true), and
no loop: the folders and what each may use form layers, nothing reaches back up (a cycle is named). And the sizes
a reader can hold: no source file of harness/, kernels/ or tui/ over 600 lines, no function over 150."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
harness = os.path.join(root, 'harness')
allowed, bad, used = {}, [], {}
for line in open(os.path.join(root, 'tests', 'layers.txt')):
    line = line.split('#', 1)[0].strip()
    if line:
        folder, deps = line.split(':', 1)
        allowed[folder.strip()] = set(deps.split())
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
        if f in where:   # the view's sources see harness/'s headers too
            bad.append(f'{f}: in harness/{where[f]}/ and tui/ (a header name must be unique)')
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
            if folder is not None:
                used.setdefault(me, set()).add(folder)
            if folder is None:
                pass
            elif folder != (me if me != 'main' else '.') and folder not in allowed[me]:
                bad.append(f'{os.path.relpath(os.path.join(d, f), root)}:{no}: includes {folder}/{h}, which harness/{me}/ may not use '
                           f'(tests/layers.txt: {" ".join(sorted(allowed[me])) or "nothing"})')
for me, deps in sorted(allowed.items()):
    for dep in sorted(deps - used.get(me, set())):
        bad.append(f'tests/layers.txt: {me} may use {dep} but includes nothing of it (take it out)')
state = {}


def visit(node, path):
    """Depth-first: a folder met again on the path it was reached by is a loop."""
    if state.get(node) == 'done':
        return
    if state.get(node) == 'open':
        cycle = path[path.index(node):] + [node]
        bad.append('a loop: ' + ' -> '.join(cycle))
        return
    state[node] = 'open'
    for dep in sorted(allowed.get(node, ())):
        visit(dep, path + [node])
    state[node] = 'done'


for node in sorted(allowed):
    visit(node, [])
for top in ('harness', 'kernels', 'tui'):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            if not f.endswith(('.c', '.h', '.cu', '.cuh')):
                continue
            path = os.path.join(d, f)
            lines = open(path, encoding='utf-8').read().split('\n')
            rel = os.path.relpath(path, root)
            if len(lines) - 1 > 600:
                bad.append(f'{rel}: {len(lines) - 1} lines (at most 600: split it by what its parts do)')
            start = None   # a function: "{" alone at column 0 after its signature (one line or several), "}" alone at its end
            for no, line in enumerate(lines, 1):
                if line == '{' and no > 1:
                    start = no
                elif line == '}' and start is not None:
                    if no - start - 1 > 150:
                        bad.append(f'{rel}:{start - 1}: a function of {no - start - 1} lines (at most 150)')
                    start = None
for b in bad:
    print(b)
print(f'check_layers: {len(bad)} problem(s)')
sys.exit(1 if bad else 0)
