#!/usr/bin/env python3
"""Runs two optrace binaries on the same roots and reports any output that differs.

    bench/analyze/compare_outputs.py REF_BIN NEW_BIN [--full] ROOT [ROOT ...]

Each root is analyzed by both binaries (fast mode, and full mode with --full); every file of the
report set is compared byte for byte after masking what changes from run to run (stage timings,
memory, paths of the output directory). Roots that the reference refuses must be refused by the
new binary with the same exit code. Exit status 1 when anything differs.

A reference built before 3325fd4 opens WAL-mode db exports the usual SQLite way and leaves
<db>-wal / <db>-shm beside them: those that were not in a root before are removed after it.
"""
import os
import re
import subprocess
import sys
import tempfile
import zipfile

MASKS = [
    (re.compile(rb'"(seconds|total_seconds|rss_mb|peak_rss_mb)"\s*:\s*[-0-9.eE+]+'), rb'"\1": X'),
    # artifact sizes in manifest.json: the files themselves are compared (an xlsx's size moves
    # with its stored write time)
    (re.compile(rb'"bytes"\s*:\s*\d+'), rb'"bytes": X'),
    (re.compile(rb'<dcterms:(created|modified)[^<]*</dcterms:\1>'), rb''),
    (re.compile(rb'\d+\.\d+ s\b'), rb'X s'),
]


def run(binary, root, out, full, capture=0):
    cmd = [binary, "analyze", root, "-o", out] + (["--mode", "full"] if full else [])
    cmd += ["--run", str(capture)] if capture else []
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode


def masked(path, out_dir):
    if path.endswith(".xlsx"):  # a zip: compare members (the archive stores write times)
        with zipfile.ZipFile(path) as z:
            data = b"".join(n.encode() + b"\0" + z.read(n) for n in sorted(z.namelist()))
    else:
        data = open(path, "rb").read()
    data = data.replace(out_dir.encode(), b"OUT")
    for rx, sub in MASKS:
        data = rx.sub(sub, data)
    return data


def files_of(out):
    found = {}
    for d, dirs, names in os.walk(out):
        dirs[:] = [x for x in dirs if x != "stages"]
        for n in names:
            if n == ".optrace.lock":
                continue
            p = os.path.join(d, n)
            found[os.path.relpath(p, out)] = p
    return found


def sqlite_side_files(root):
    if not os.path.isdir(root):
        return set()
    return {os.path.join(d, n) for d, _, names in os.walk(root) for n in names if n.endswith(("-wal", "-shm"))}


def main(argv):
    full = "--full" in argv
    argv = [a for a in argv if a != "--full"]
    if len(argv) < 3:
        print(__doc__)
        return 2
    ref, new, roots = argv[0], argv[1], argv[2:]
    bad = 0
    jobs = [(root, 0) for root in roots]
    while jobs:
        root, capture = jobs.pop(0)
        side_files_before = sqlite_side_files(root)
        for mode_full in ([False, True] if full else [False]):
            with tempfile.TemporaryDirectory() as tmp:
                a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
                ra, rb = run(ref, root, a, mode_full, capture), run(new, root, b, mode_full, capture)
                label = f"{root}{f' --run {capture}' if capture else ''}{' (full)' if mode_full else ''}"
                # A root of several captures is refused (exit 2): compare each capture too,
                # until --run N is past the last one.
                if not mode_full and ra == 0 and capture:
                    jobs.insert(0, (root, capture + 1))
                if not mode_full and ra == 2 and capture == 0:
                    jobs.insert(0, (root, 1))
                if ra != rb:
                    print(f"DIFF {label}: exit {ra} vs {rb}")
                    bad += 1
                    continue
                fa, fb = files_of(a) if os.path.isdir(a) else {}, files_of(b) if os.path.isdir(b) else {}
                diffs = sorted(set(fa) ^ set(fb))
                for rel in sorted(set(fa) & set(fb)):
                    if masked(fa[rel], a) != masked(fb[rel], b):
                        diffs.append(rel)
                if diffs:
                    print(f"DIFF {label}: {', '.join(diffs)}")
                    bad += 1
                else:
                    print(f"same {label}: exit {ra}, {len(fa)} files")
        for left in sqlite_side_files(root) - side_files_before:
            os.remove(left)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
