#!/usr/bin/env python3
"""Generates legacy dumps (rank<NNN>.pt) and a legacy point_map.json like the seed toolchain's.

Each rank file is torch.save([aic, aiv]) of int64 tensors [cores, PROF_SIZE]: word 0 = 1 + count,
record i's combined id (point id | extra << 32) at word 1 + i, initial timestamp at word -1,
record i's timestamp at word -2 - i (50 MHz cycles). Records follow a nested phase structure with
expert loops (extra = tag | seq << 8), and optionally some noise: unmatched B/E and unmapped ids.

Default size is the benchmark set: 16 ranks x 72 cores (24 AIC + 48 AIV) x ~400 records, ~30 MB.
    generate_legacy_set.py --out /tmp/legacy            # benchmark set
    generate_legacy_set.py --out d --ranks 2 --aic 2 --aiv 4 --records 60 --noise 0.05 --seed 7
"""
import argparse
import json
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from legacy_pt import write_pt  # noqa: E402

LABELS = ["processing", "dispatch", "dispatch send", "dispatch wait", "expert loop", "gemm tile",
          "combine", "combine recv", "combine reduce", "sync all", "copy in", "copy out"]


def _children(parent):
    # A label whose leading words name another label ("dispatch send") runs inside that one, as a
    # real kernel's do: collect checks legacy maps by this nesting (map_mismatch).
    out = []
    for i, label in enumerate(LABELS):
        if i == 0:
            continue
        words = label.rsplit(" ", 1)[0] if " " in label else None
        if words is None or words not in LABELS or words == LABELS[parent]:
            out.append(i)
    return out


CHILDREN = [_children(i) for i in range(len(LABELS))]


def point_map(labels):
    points = {}
    pid = 1
    for i, label in enumerate(labels):
        for t in ("B", "E"):
            points[str(pid)] = {"label": label, "event_type": t, "file": "op_kernel/moe_kernel.cpp",
                                "line": 100 + 10 * i + (t == "E"), "event_id": pid}
            pid += 1
    return {"points": points}


def core_records(rng, n_target, max_records, noise):
    """A list of (point id, extra, tick) following nested phases until about n_target records."""
    recs = []
    t = rng.randrange(1000, 5000)

    def ev(label_idx, is_end, extra=0):
        nonlocal t
        t += rng.randrange(1, 40)
        recs.append((2 * label_idx + 1 + (1 if is_end else 0), extra, t))

    def phase(label_idx, depth, extra=0):
        ev(label_idx, False, extra)
        if depth < 3 and len(recs) < n_target:
            for _ in range(rng.randrange(1, 4)):
                child = rng.choice(CHILDREN[label_idx])
                if rng.random() < 0.4:  # an expert loop: same label, seq numbers in the extra word
                    tag = rng.randrange(0, 4)
                    for seq in range(rng.randrange(1, 5)):
                        phase(child, depth + 1, tag | (seq << 8))
                else:
                    phase(child, depth + 1)
        ev(label_idx, True, extra)

    while len(recs) < n_target:
        phase(0, 0)
    recs = recs[:min(n_target, max_records)]
    if noise > 0:
        out = []
        for r in recs:
            x = rng.random()
            if x < noise / 3:
                continue                                  # drop a record: orphans its partner
            if x < 2 * noise / 3:
                out.append((9999, 0, r[2]))               # an id the map does not know
            out.append(r)
        recs = out[:max_records]
    return recs


def make_tensor(rng, cores, records, prof_size, noise):
    max_records = (prof_size - 2) // 2
    a = np.zeros((cores, prof_size), dtype=np.int64)
    for c in range(cores):
        n = max(2, int(rng.gauss(records, records * 0.1)))
        recs = core_records(rng, n, max_records, noise)
        a[c, 0] = 1 + len(recs)
        a[c, -1] = recs[0][2] - rng.randrange(10, 100) if recs else 0
        for i, (pid, extra, tick) in enumerate(recs):
            a[c, 1 + i] = pid | (extra << 32)
            a[c, prof_size - 2 - i] = tick
    return a


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--ranks", type=int, default=16)
    p.add_argument("--aic", type=int, default=24)
    p.add_argument("--aiv", type=int, default=48)
    p.add_argument("--records", type=int, default=400, help="mean records per core")
    p.add_argument("--prof-size", type=int, default=3264, help="int64 words per core row")
    p.add_argument("--noise", type=float, default=0.0, help="share of records dropped or made unmappable")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "point_map.json"), "w") as f:
        json.dump(point_map(LABELS), f, indent=2)
    total = 0
    for rank in range(a.ranks):
        tensors = [make_tensor(rng, a.aic, a.records, a.prof_size, a.noise),
                   make_tensor(rng, a.aiv, a.records, a.prof_size, a.noise)]
        total += int(sum((t[:, 0] - 1).clip(min=0).sum() for t in tensors))
        write_pt(os.path.join(out, f"rank{rank:03d}.pt"), tensors)
    print(f"wrote {a.ranks} rank files with {total} records to {out}")


if __name__ == "__main__":
    main()
