#!/usr/bin/env python3
"""Writes the small legacy (.pt) fixtures of tests/collect: run from anywhere, writes beside itself.

    legacy/rank000.pt      [AIC 2 x 16, AIV 2 x 16] int64, hand-written records (see ROWS)
    legacy/point_map.json  legacy map: 1/2 = processing B/E, 3/4 = send B/E
    bare/rank001.pt        one bare int64 tensor (AIV rows)
    not_torch/rank000.pt   a zip without data.pkl
    float/rank000.pt       a list holding a float32 (torch.FloatStorage) tensor
    dict/rank000.pt        a torch-style zip whose pickle is a dict, not tensors
    zero/rank000.pt        int64 tensors whose rows were never written
"""
import json
import os
import struct
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "legacy"))
from legacy_pt import write_pt  # noqa: E402

PROF = 16


def row(records, initial):
    """records: (point id, extra, tick) -> one legacy row."""
    r = np.zeros(PROF, dtype=np.int64)
    r[0] = 1 + len(records)
    r[-1] = initial
    for i, (pid, extra, tick) in enumerate(records):
        r[1 + i] = pid | (extra << 32)
        r[PROF - 2 - i] = tick
    return r


ROWS_AIC = [row([(1, 0, 100), (2, 0, 600)], 90), np.zeros(PROF, dtype=np.int64)]
ROWS_AIV = [row([(1, 0, 110), (3, 1 << 8, 120), (4, 1 << 8, 220), (3, 2 << 8 | 5, 300), (4, 2 << 8 | 5, 350),
                 (2, 0, 500)], 100),
            row([(3, 0, 130), (9, 0, 140)], 120)]


def main():
    def out(*parts):
        p = os.path.join(HERE, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    write_pt(out("legacy", "rank000.pt"), [np.stack(ROWS_AIC), np.stack(ROWS_AIV)])
    points = {"1": ("processing", "B"), "2": ("processing", "E"), "3": ("send", "B"), "4": ("send", "E")}
    with open(out("legacy", "point_map.json"), "w") as f:
        json.dump({"points": {k: {"label": l, "event_type": t, "file": "op_kernel/moe.cpp", "line": 10 + int(k),
                                  "event_id": int(k)} for k, (l, t) in points.items()}}, f, indent=2)
    write_pt(out("bare", "rank001.pt"), [np.stack(ROWS_AIV)], bare=True)
    with zipfile.ZipFile(out("not_torch", "rank000.pt"), "w") as z:
        z.writestr("notes/readme.txt", "not a tensor")
    write_pt(out("float", "rank000.pt"), [np.zeros((2, PROF), dtype=np.int64)], storage_type="FloatStorage")
    with zipfile.ZipFile(out("dict", "rank000.pt"), "w") as z:
        z.writestr("rank000/data.pkl", b"\x80\x02}q\x00X\x05\x00\x00\x00stepsq\x01K\x03s.")
        z.writestr("rank000/byteorder", "little")
    write_pt(out("zero", "rank000.pt"), [np.zeros((2, PROF), dtype=np.int64), np.zeros((2, PROF), dtype=np.int64)])


if __name__ == "__main__":
    main()
