#!/usr/bin/env python3
"""Writes a profiler capture in torch_npu's text layout whose kernel rows are given launches.

  make_torch_capture.py LAUNCH_DIR... --kernel NAME -o ROOT [--skew-us R:K:US] [--extra-slice]

Each LAUNCH_DIR holds the native dumps (rank<N>.bin) of one launch, in launch order (e.g. two runs
of `optrace demo`). For every rank it writes ROOT/rank<N>_ascend_pt/ with:
  profiler_info_<N>.json  start_info {freq, start_cnt, start_monotonic}, end_info {collectionTimeEnd,
                          MonotonicTimeEnd}: the counter of the slots (word 2) on a monotonic clock
                          whose offset to Unix time is not zero, so the relation is exercised whole
  ASCEND_PROFILER_OUTPUT/kernel_details.csv  per launch: a MatMul before the kernel on its stream,
                          the kernel's task slice (from 3 us before the first slot starts to 2 us
                          after the last event), an HCCL all-reduce after it on another stream
  ASCEND_PROFILER_OUTPUT/trace_view.json     the host: the Python operator call and the CANN
                          launch API around each launch
--skew-us R:K:US moves rank R's slice of launch K by US microseconds (a clock that does not line up);
--extra-slice adds a launch of the kernel that has no dumps (launches that cannot be matched).
The capture is test data made at test time; nothing of a real capture is copied. Standard library only.
"""
import argparse
import json
import os
import re
import struct

MAGIC = 0x5254504F
HEADER = ("Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
          "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,"
          "Output Shapes,Output Data Types,Output Formats,Context ID")


def read_dump(path):
    """(clock Hz, earliest slot start, latest event tick) of a native dump."""
    data = open(path, "rb").read()
    words = struct.unpack("<%dQ" % (len(data) // 8), data[: len(data) // 8 * 8])
    clock, first, last, pos = 0, None, None, 0
    while pos + 8 <= len(words):
        w0 = words[pos]
        slot_words = words[pos + 4] >> 32 if pos + 4 < len(words) else 0
        if (w0 & 0xFFFFFFFF) != MAGIC or slot_words < 10:
            pos += 1  # an unwritten slot: find the next header
            continue
        clock = words[pos + 2]
        start, count = words[pos + 3], words[pos + 5]
        first = start if first is None else min(first, start)
        for i in range(count):
            t = words[pos + 8 + 2 * i + 1]
            last = t if last is None else max(last, t)
        pos += slot_words
    return clock, first, last


def us(ns):
    """Microseconds with three decimals, exactly (Unix ns do not fit a float's digits)."""
    return "%d.%03d" % (ns // 1000, ns % 1000)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("launches", nargs="+")
    p.add_argument("--kernel", required=True)
    p.add_argument("-o", "--out", required=True)
    p.add_argument("--skew-us", action="append", default=[])
    p.add_argument("--extra-slice", action="store_true")
    a = p.parse_args()
    skew = {}
    for s in a.skew_us:
        r, k, v = s.split(":")
        skew[(int(r), int(k))] = float(v)
    ranks = {}
    for k, folder in enumerate(a.launches):
        for name in sorted(os.listdir(folder)):
            m = re.fullmatch(r"rank(\d+)\.bin", name)
            if m:
                ranks.setdefault(int(m.group(1)), []).append((k, read_dump(os.path.join(folder, name))))
    for rank, launches in sorted(ranks.items()):
        hz = launches[0][1][0]
        to_ns = lambda ticks: ticks * 1_000_000_000 // hz  # noqa: E731
        t0 = min(l[1][1] for l in launches) - hz // 20  # the profiler starts 50 ms before the first launch
        mono0 = 172_163_581_670_080 + rank * 1_000  # CLOCK_MONOTONIC_RAW at start: any value
        offset = to_ns(t0) - mono0  # Unix ns of the counter = the counter in ns, as the slots read it
        end_unix = to_ns(max(l[1][2] for l in launches)) + 10_000_000
        d = os.path.join(a.out, "rank%d_ascend_pt" % rank)
        out = os.path.join(d, "ASCEND_PROFILER_OUTPUT")
        os.makedirs(out, exist_ok=True)
        info = {"config": {"common_config": {"activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"]},
                           "experimental_config": {"_profiler_level": "Level1"}},
                "start_info": {"syscnt_enable": True, "freq": hz / 1e6, "start_cnt": t0, "start_monotonic": mono0},
                "end_info": {"collectionTimeEnd": end_unix, "MonotonicTimeEnd": end_unix - offset},
                "rank_id": rank}
        json.dump(info, open(os.path.join(d, "profiler_info_%d.json" % rank), "w"), indent=1)
        rows, host, task = [], [], 100
        slices = [(k, to_ns(first) - 3_000, to_ns(last) + 2_000) for k, (_, first, last) in launches]
        if a.extra_slice:
            k, s, e = slices[-1]
            slices.append((k + 1, e + 200_000, e + 200_000 + (e - s)))
        for k, s, e in slices:
            s += int(skew.get((rank, k), 0) * 1000)
            e += int(skew.get((rank, k), 0) * 1000)
            row = lambda tid, stream, name, typ, core, start, dur: (  # noqa: E731
                "1,4294967295,%d,%d,%s,%s,dynamic,%s,%s\t,%s,0,24,0,NO,\"\"\"8,64\"\"\",FLOAT16,ND,\"\"\"8,64\"\"\",FLOAT16,ND,N/A"
                % (tid, stream, name, typ, core, us(start), us(dur)))
            rows.append(row(task, 2, "MatMul_%d" % k, "MatMul", "AI_CORE", s - 40_000, 30_000))
            rows.append(row(task + 1, 2, a.kernel, a.kernel, "MIX_AIV", s, e - s))
            rows.append(row(task + 2, 5, "hcom_allReduce__%d_0_1" % k, "hcom_allReduce_", "HCCL", e + 5_000, 20_000))
            task += 3
            host.append({"ph": "X", "name": "aten::npu_%s" % a.kernel.lower(), "pid": 4000 + rank, "tid": 4000 + rank,
                         "ts": us(s - 80_000), "dur": "%.3f" % ((e - s + 90_000) / 1000), "cat": "cpu_op"})
            host.append({"ph": "X", "name": "AscendCL@aclnn%s" % a.kernel, "pid": 5000 + rank, "tid": 4000 + rank,
                         "ts": us(s - 60_000), "dur": "12.500", "cat": "AscendCL"})
        with open(os.path.join(out, "kernel_details.csv"), "w") as f:
            f.write(HEADER + "\n" + "\n".join(rows) + "\n")
        host += [{"ph": "M", "name": "process_name", "pid": 4000 + rank, "tid": 0, "args": {"name": "Python"}},
                 {"ph": "M", "name": "process_name", "pid": 5000 + rank, "tid": 0, "args": {"name": "CANN"}}]
        json.dump(host, open(os.path.join(out, "trace_view.json"), "w"))


if __name__ == "__main__":
    main()
