#!/usr/bin/env python3
"""The .pftrace against the JSON trace of the same collect: size, collect time, slices per track.

    pftrace_vs_json.py OPTRACE_BIN SET_DIR [RUNS=3]

SET_DIR is a legacy set (generate_legacy_set.py: rank<NNN>.pt + point_map.json). Runs
`optrace collect` to JSON and to .pftrace RUNS times each (median wall and CPU), then decodes the
.pftrace (stdlib: zlib + a minimal protobuf reader, compressed_packets and interning resolved)
and compares the number of slices per (rank, thread name) with the JSON's "X" events.
Prints a Markdown table; exits 1 when a track differs.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter


def varint(b, p):
    v = shift = 0
    while True:
        c = b[p]
        p += 1
        v |= (c & 0x7F) << shift
        if c < 0x80:
            return v, p
        shift += 7


def fields(b):
    p, out = 0, []
    while p < len(b):
        key, p = varint(b, p)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, p = varint(b, p)
        elif wt == 2:
            n, p = varint(b, p)
            v = b[p:p + n]
            p += n
        elif wt == 1:
            v, p = b[p:p + 8], p + 8
        elif wt == 5:
            v, p = b[p:p + 4], p + 4
        else:
            raise ValueError(f"wire type {wt}")
        out.append((num, v))
    return out


def packets(b):
    for num, v in fields(b):
        if num != 1:
            continue
        f = dict(fields(v))
        if 50 in f:
            yield from packets(zlib.decompress(f[50]))
        else:
            yield f


def pftrace_counts(path):
    data = open(path, "rb").read()
    thread_of = {}      # track uuid -> (pid, thread name)
    default_track = {}  # sequence -> track uuid
    counts = Counter()
    for f in packets(data):
        if 60 in f:
            d = dict(fields(f[60]))
            if 4 in d:
                t = dict(fields(d[4]))
                thread_of[d[1]] = (t[1], t[5].decode())
            elif 2 in d:
                thread_of[d[1]] = (None, d[2].decode())
            continue
        if 11 not in f:
            continue
        seq = f[10]
        if f.get(13, 0) & 1 and 59 in f:
            ted = dict(fields(dict(fields(f[59]))[11]))
            default_track[seq] = ted[11]
        ev = dict(fields(f[11]))
        if ev.get(9) == 1:  # slice begin
            counts[ev.get(11, default_track.get(seq))] += 1
    by_thread = Counter()
    for uuid, n in counts.items():
        pid, name = thread_of.get(uuid, (None, "?"))
        if name.endswith(" (crossed)"):  # the JSON keeps crossed ranges on the core's thread
            name = name[:-len(" (crossed)")]
            pid = (uuid >> 32)  # process uuid = (rank + 1) << 32
        by_thread[(pid, name)] += n
    return by_thread


def json_counts(path):
    t = json.load(open(path))
    names = {}
    for e in t["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    c = Counter()
    for e in t["traceEvents"]:
        if e.get("ph") == "X":
            c[(e["pid"] + 1, names.get((e["pid"], e["tid"]), str(e["tid"])))] += 1
    return c


def timed(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    binary, set_dir = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    work = tempfile.mkdtemp(prefix="optrace-pftrace-")
    rows = {}
    for ext in ("json", "pftrace"):
        out = os.path.join(work, "trace." + ext)
        cmd = [binary, "collect", set_dir, "--map", os.path.join(set_dir, "point_map.json"), "-o", out,
               "--extra-mode", "seq"]
        t = [timed(cmd) for _ in range(runs)]
        rows[ext] = (os.path.getsize(out), statistics.median(w for w, _ in t), statistics.median(c for _, c in t), out)
    j, p = json_counts(rows["json"][3]), pftrace_counts(rows["pftrace"][3])
    print("| trace | bytes | collect wall (median) | collect CPU (median) | slices | tracks |")
    print("|---|---|---|---|---|---|")
    for ext, counts in (("json", j), ("pftrace", p)):
        size, wall, cpu, _ = rows[ext]
        print(f"| {ext} | {size / 1e6:.1f} MB | {wall:.2f} s | {cpu:.2f} s | {sum(counts.values())} | {len(counts)} |")
    ratio = rows["json"][0] / rows["pftrace"][0]
    same = j == p
    print(f"\nJSON / pftrace size: {ratio:.1f}x; slices per track identical: {'yes' if same else 'NO'}")
    if not same:
        diff = [(k, j.get(k), p.get(k)) for k in sorted(set(j) | set(p), key=str) if j.get(k) != p.get(k)]
        print("differing tracks (first 10):", diff[:10])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
