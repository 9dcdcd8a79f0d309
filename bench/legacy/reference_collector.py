#!/usr/bin/env python3
"""Reference legacy collector: the seed toolchain's trace_collector as SPEC section 5 describes it.

Reads rank<NNN>.pt (torch.save of [AIC, AIV] int64 tensors [cores, PROF_SIZE]) and a legacy
point_map.json, pairs B/E per (rank, core type, core, label) and writes a Chrome trace. It is
written the way the seed's script works (Python loops over records, dicts of events), as the
baseline for bench/legacy/compare.sh and the oracle for optrace's legacy tests.

Pairing (--extra-mode):
  seq     each B is closed by the next E with the same sequence number (extra >> 8); among
          several open Bs with that number, the oldest first
  legacy  each E closes the oldest open B of its label (FIFO)
--depth N keeps intervals whose depth counted from the leaves is at most N (a leaf is 1; a
parent contains its child: p.start <= c.start and c.end <= p.end, per core, ties to the interval
closed first). Names (SPEC 5): "label [extra:<low 8 bits>] #<high 24 bits>" in seq mode,
"label [extra:<extra word>]" in FIFO mode.
Row layout: word 0 = 1 + count; record i's id | extra << 32 at word 1 + i; word -1 initial
timestamp; record i's timestamp at word -2 - i. A list of two tensors is [AIC, AIV]; one tensor
(or a bare tensor) holds AIV rows.

    reference_collector.py DIR --point-map map.json -o chrome_trace.json [--intervals-json out.json]
"""
import argparse
import glob
import json
import os
import re
import sys
from collections import defaultdict, deque

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from legacy_pt import read_pt  # noqa: E402


def core_types(n):
    if n == 2:
        return ["AIC", "AIV"]
    if n == 1:
        return ["AIV"]
    return ["core"] * n


def depth_from_leaves(intervals):
    """intervals: list of dicts of one core, in closing order. Sets 'depth'."""
    order = sorted(range(len(intervals)), key=lambda i: (intervals[i]["start"], -intervals[i]["end"], i))
    parent = {}
    stack = []
    for i in order:
        iv = intervals[i]
        while stack and intervals[stack[-1]]["end"] < iv["end"]:
            stack.pop()
        if stack:
            parent[i] = stack[-1]
        stack.append(i)
        iv["depth"] = 1
    for i in reversed(order):
        if i in parent:
            p = intervals[parent[i]]
            p["depth"] = max(p["depth"], intervals[i]["depth"] + 1)


def read_torch(path):
    """torch.load, as the seed's collector reads a dump (python3-torch)."""
    import torch
    obj = torch.load(path, map_location="cpu")
    return [obj] if isinstance(obj, torch.Tensor) else list(obj)


def collect(files, points, clock_mhz, extra_mode, depth, loader=read_pt):
    stats = {"records": 0, "skipped_no_mapping": 0, "unmatched": 0}
    ids_in_dumps = set()
    events = []
    intervals_out = []
    for path in files:
        rank = int(re.search(r"rank(\d+)\.pt$", path).group(1))
        tensors = loader(path)
        types = core_types(len(tensors))
        rank_events = []
        core_base = 0
        for t_idx, tensor in enumerate(tensors):
            ctype = types[t_idx]
            rows = tensor.tolist()
            for r, row in enumerate(rows):
                if row[0] == 0:
                    continue
                core = core_base + r if ctype == "core" else r
                count = row[0] - 1
                open_b = defaultdict(deque)
                core_intervals = []
                for i in range(count):
                    combined = row[1 + i] & 0xFFFFFFFFFFFFFFFF
                    pid = combined & 0xFFFFFFFF
                    extra = combined >> 32
                    ts = row[-2 - i]
                    stats["records"] += 1
                    ids_in_dumps.add(pid)
                    info = points.get(str(pid))
                    if info is None:
                        stats["skipped_no_mapping"] += 1
                        continue
                    label = info["label"]
                    key = (label, extra >> 8) if extra_mode == "seq" else label
                    if info["event_type"] == "B":
                        open_b[key].append((ts, extra, info))
                    else:
                        if not open_b[key]:
                            stats["unmatched"] += 1
                            continue
                        b_ts, b_extra, b_info = open_b[key].popleft()
                        core_intervals.append({"rank": rank, "type": ctype, "core": core, "label": label,
                                               "start": b_ts, "end": ts, "extra": b_extra,
                                               "file": b_info.get("file", ""), "line": b_info.get("line", 0)})
                stats["unmatched"] += sum(len(q) for q in open_b.values())
                depth_from_leaves(core_intervals)
                for iv in core_intervals:
                    if depth == 0 or iv["depth"] <= depth:
                        rank_events.append(iv)
            if ctype == "core":
                core_base += len(rows)
        if rank_events:
            t0 = min(e["start"] for e in rank_events)
            for e in rank_events:
                # SPEC 5: "<label> [extra:<low 8>] #<high 24>" (seq), "<label> [extra:<word>]" (FIFO).
                if extra_mode == "seq":
                    name = f"{e['label']} [extra:{e['extra'] & 0xff}] #{e['extra'] >> 8}"
                else:
                    name = f"{e['label']} [extra:{e['extra']}]"
                events.append({"name": name, "ph": "X", "pid": rank, "tid": f"{e['type']} {e['core']}",
                               "ts": (e["start"] - t0) / clock_mhz, "dur": (e["end"] - e["start"]) / clock_mhz,
                               "args": {"extra": e["extra"], "file": e["file"], "line": e["line"]}})
        intervals_out.extend(rank_events)
    in_map = set(int(k) for k in points)
    stats["ids_in_dumps"] = len(ids_in_dumps)
    stats["ids_in_map"] = len(in_map)
    stats["ids_in_both"] = len(ids_in_dumps & in_map)
    return events, intervals_out, stats


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="directory with rank<NNN>.pt")
    p.add_argument("--point-map", required=True)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--clock-mhz", type=float, default=50.0)
    p.add_argument("--extra-mode", choices=["seq", "legacy"], default="seq")
    p.add_argument("--depth", type=int, default=0)
    p.add_argument("--loader", choices=["numpy", "torch"], default="numpy",
                   help="torch: torch.load, as the seed's collector (python3-torch); numpy: read the zip directly")
    p.add_argument("--intervals-json", help="also write the intervals in ticks (for comparisons)")
    a = p.parse_args()
    files = sorted(glob.glob(os.path.join(os.path.abspath(a.input), "rank*.pt")),
                   key=lambda f: int(re.search(r"rank(\d+)\.pt$", f).group(1)))
    if not files:
        sys.exit(f"{a.input}: no rank*.pt")
    with open(a.point_map) as f:
        points = json.load(f)["points"]
    events, intervals, stats = collect(files, points, a.clock_mhz, a.extra_mode, a.depth,
                                       read_torch if a.loader == "torch" else read_pt)
    with open(a.output, "w") as f:
        json.dump({"traceEvents": events, "otherData": stats}, f)
    if a.intervals_json:
        with open(a.intervals_json, "w") as f:
            json.dump({"intervals": [[iv["rank"], iv["type"], iv["core"], iv["label"], iv["start"], iv["end"],
                                      iv["extra"]] for iv in intervals], "stats": stats}, f)
    print(f"{len(events)} events, skipped_no_mapping={stats['skipped_no_mapping']}, "
          f"ids: {stats['ids_in_dumps']} in dumps, {stats['ids_in_map']} in map, {stats['ids_in_both']} in both",
          file=sys.stderr)


if __name__ == "__main__":
    main()
