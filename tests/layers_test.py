#!/usr/bin/env python3
"""Every layer and room includes only its own headers and those of the rooms its DEPS reach.

    tests/layers_test.py [REPO]

Reads the optrace_room(<target> DIR <dir> DEPS ...) calls of src/**/CMakeLists.txt (the only
place the layering is written down), then every #include "..." and __has_include("...") of each
room's own files, and fails on an include of a room that is not below it. Also fails when a room
has no README.md saying what lives there and what it may use. Standard library only.
"""
import os
import re
import sys

REPO = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
SRC = os.path.join(REPO, 'src')


def read_rooms():
    rooms, aliases = {}, {'optrace::device': 'optrace_device', 'optrace::format': 'optrace_device'}
    for d, _, names in os.walk(SRC):
        if 'CMakeLists.txt' not in names:
            continue
        text = open(os.path.join(d, 'CMakeLists.txt')).read()
        text = re.sub(r'#[^\n]*', '', text)
        var = {'CMAKE_CURRENT_SOURCE_DIR': d}
        for m in re.finditer(r'set\((\w+)\s+([^)]*)\)', text):
            var[m.group(1)] = m.group(2).strip()
        expand = lambda s: re.sub(r'\$\{(\w+)\}', lambda m: var.get(m.group(1), m.group(0)), s)
        for m in re.finditer(r'add_library\((\S+)\s+ALIAS\s+(\S+)\)', text):
            aliases[expand(m.group(1))] = expand(m.group(2))
        for m in re.finditer(r'optrace_room\(([^)]*)\)', text):
            words = expand(m.group(1)).split()
            target, key, deps, room_dir = words[0], None, [], None
            for w in words[1:]:
                if w in ('DIR', 'DEPS', 'LIBS', 'PCH_FROM'):
                    key = w
                elif key == 'DIR':
                    room_dir = os.path.normpath(w)
                elif key == 'DEPS':
                    deps.append(w)
            rooms[target] = {'dir': room_dir, 'deps': deps}
    for r in rooms.values():
        r['deps'] = [aliases.get(x, x) for x in r['deps']]
    return rooms


def closure(rooms, target, seen=None):
    seen = set() if seen is None else seen
    for dep in rooms.get(target, {}).get('deps', []):
        if dep not in seen:
            seen.add(dep)
            closure(rooms, dep, seen)
    return seen


def main():
    rooms = read_rooms()
    by_dir = {r['dir']: t for t, r in rooms.items()}
    by_dir[os.path.join(REPO, 'include', 'optrace')] = 'optrace_device'
    problems = []

    def owner(include):
        # the room of an include path: the deepest room folder holding the file
        for base in (SRC, os.path.join(REPO, 'include')):
            d = os.path.normpath(os.path.join(base, os.path.dirname(include)))
            while d.startswith(base) and d != base:
                if d in by_dir and os.path.exists(os.path.join(base, include)):
                    return by_dir[d]
                d = os.path.dirname(d)
        return None

    for target, r in sorted(rooms.items()):
        allowed = closure(rooms, target) | {target}
        if not os.path.isfile(os.path.join(r['dir'], 'README.md')):
            problems.append(f'{os.path.relpath(r["dir"], REPO)}: no README.md (what lives in this room, what it may use)')
        for name in sorted(os.listdir(r['dir'])):
            path = os.path.join(r['dir'], name)
            if not os.path.isfile(path) or not name.endswith(('.h', '.cc')):
                continue
            for n, line in enumerate(open(path, encoding='utf-8'), 1):
                for inc in re.findall(r'(?:#\s*include|__has_include\()\s*"([^"]+)"', line):
                    o = owner(inc)
                    if o is not None and o not in allowed:
                        problems.append(f'{os.path.relpath(path, REPO)}:{n}: includes "{inc}" of {o}, which '
                                        f'{target} does not link (its DEPS reach: {", ".join(sorted(allowed - {target})) or "nothing"})')
    for p in problems:
        print(p)
    print(f'layers: {len(rooms)} rooms, {len(problems)} problem(s)')
    return 1 if problems else 0


sys.exit(main())
