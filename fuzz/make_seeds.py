#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, from tests/data (stdlib only).

usage: make_seeds.py SOURCE_DIR OUT_DIR [OPTRACE]   -> OUT_DIR/<target>/<seed files>
(OPTRACE: the optrace binary of the same build, for the stage-file seeds)

Targets that drive several parsers read a selector byte first (fuzz/<target>.cc says which);
their seeds are the real files prefixed with the byte of the parser that reads them.
"""
import glob
import os
import sys

src, out = sys.argv[1], sys.argv[2]
data = os.path.join(src, "tests", "data")


def files(pattern):
    return sorted(p for p in glob.glob(os.path.join(data, pattern), recursive=True) if os.path.isfile(p))


def write(target, name, payload, selector=None):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if selector is not None:
        payload = bytes([selector]) + payload
    with open(os.path.join(d, name), "wb") as f:
        f.write(payload)


def read(p):
    with open(p, "rb") as f:
        return f.read()


def seed(target, patterns, selector=None, limit=2 << 20):
    n = 0
    for pat in patterns:
        for p in files(pat):
            b = read(p)
            if len(b) > limit:
                continue
            write(target, f"s{selector if selector is not None else 'x'}_{n}", b, selector)
            n += 1


seed("fuzz_collect_native", ["format/*.bin", "**/rank*.bin"])
# A small native dump built here (2 slots of 32 words), so the target has one even without dumps in tests/data.
import struct
words = []
HEADER = 8  # include/optrace/format.h kHeaderWords
for core, events in ((0x01, [(0x10, 100), (0x11, 200)]), (0x02 | (1 << 32), [(0x10, 110), (0x11, 210)])):
    slot = [0] * 32
    slot[0] = 0x5254504F | (1 << 32) | (HEADER << 48)  # magic "OPTR", version 1, header words
    slot[1] = core                                      # kind | core index << 32
    slot[2] = 50_000_000                                # clock Hz
    slot[4] = ((32 - HEADER) // 2) | (32 << 32)         # capacity | slot words << 32
    slot[5] = len(events)
    for i, (pid, t) in enumerate(events):
        slot[HEADER + 2 * i] = pid
        slot[HEADER + 2 * i + 1] = t
    words += slot
write("fuzz_collect_native", "built", struct.pack("<%dQ" % len(words), *words))
seed("fuzz_pftrace_vs_json", ["format/*.bin", "**/rank*.bin"])
write("fuzz_pftrace_vs_json", "built", struct.pack("<%dQ" % len(words), *words))
# fuzz_escaping: selector 0 = CSV cell, 1 = shell word, 2 = Markdown.
for i, text in enumerate([b"=cmd|' /C calc'!A0", b"-1.5e3", b'a,"b"\r\nc', b"x\\`<img src=x onerror=alert(1)>`",
                          b"it's a `$(id)` > f; echo", b"| `a | <b> ` |", b"\xef\xbb\xbf\t@SUM(1)"]):
    for sel in range(3):
        write("fuzz_escaping", f"e{i}_{sel}", text, sel)
seed("fuzz_collect_legacy", ["collect/**/*.pt"])
seed("fuzz_point_map_roles", ["collect/**/point_map.json", "**/point_map*.json"], 0)
seed("fuzz_point_map_roles", ["evidence/opprof/roles*.txt", "**/roles*.txt"], 1)
for i, pat in enumerate(["analyze/**/kernel_details.csv", "analyze/**/step_trace_time.csv", "analyze/**/trace_view.json",
                         "analyze/**/communication.json", "analyze/**/profiler_metadata.json",
                         "analyze/**/op_summary*.csv", "analyze/**/*.db"]):
    seed("fuzz_analyze_inputs", [pat], i)
# Stage files of a real root, made by the optrace binary given as the third argument (the same
# build as the fuzz targets, so the stage format matches); seeds are the files without their
# checksum trailer (the target appends a valid one).
import subprocess
import tempfile
if len(sys.argv) > 3:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.argv[3], "analyze", os.path.join(data, "analyze", "tp_l0_text"), "-o", tmp,
                        "--to-stage", "segment"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i, name in enumerate(["discover", "normalize", "segment"]):
            p = os.path.join(tmp, "stages", name + ".bin")
            if os.path.exists(p):
                write("fuzz_analyze_stage", name, read(p)[:-8], i)
for i in range(3):
    write("fuzz_analyze_stage", f"empty{i}", b"OPTRACE-STAGE\n" + struct.pack("<IIB", 3, 1, i), i)
# Operator calculation: real shape rows (type, input shapes, output shapes, dtypes) per seed.
import csv
n = 0
for p in files("analyze/**/kernel_details.csv"):
    with open(p, newline="", encoding="utf-8-sig") as f:
        seen = set()
        for row in csv.DictReader(f):
            key = (row.get("Type") or "", row.get("Input Shapes") or "", row.get("Output Shapes") or "",
                   row.get("Input Data Types") or "")
            if not key[1] or key in seen or len(seen) >= 24:
                continue
            seen.add(key)
            write("fuzz_op_cost", f"row{n}", "\n".join(key).encode())
            n += 1
seed("fuzz_explain_trace", ["collect/golden/*.json", "explain/*.json"])
write("fuzz_explain_trace", "be_pairs",
      b'{"traceEvents":[{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"AIV 3"}},'
      b'{"ph":"B","name":"combine","pid":0,"tid":7,"ts":0},{"ph":"B","name":"wait_recv","pid":0,"tid":7,"ts":1},'
      b'{"ph":"E","pid":0,"tid":7,"ts":5},{"ph":"E","name":"combine","pid":0,"tid":7,"ts":9},'
      b'{"ph":"X","name":"dispatch [extra:3] #7","pid":1,"tid":100000,"ts":2,"dur":4}]}')
seed("fuzz_plan_rules", ["plan/**/*.json"], 0)
for i, name in enumerate(["op_taxonomy.json", "segmentation_rules.json", "block_rules.json", "diagnosis_rules.json",
                          "dixon_q95.json", "efficiency_rules.json", "hardware_peaks.json"]):
    p = os.path.join(src, "data", "analyze", name)
    if os.path.exists(p):
        write("fuzz_plan_rules", f"rules{i}", read(p), i + 1)
seed("fuzz_evidence_csv", ["evidence/latency/*.csv"], 0)
seed("fuzz_evidence_csv", ["evidence/opprof/*/PipeUtilization.csv"], 1)
seed("fuzz_evidence_csv", ["evidence/stall/*.csv"], 2)
seed("fuzz_evidence_csv", ["evidence/opprof/roles*.txt"], 3)
seed("fuzz_source", ["index/**/*.cpp", "lint/**/*.cpp", "plan/**/*.cpp"], 0, limit=64 << 10)
seed("fuzz_source", ["index/**/*.h", "index/**/*.hpp", "lint/**/*.h"], 1, limit=64 << 10)
# Pickle machine: the data.pkl of every legacy dump; zip reader: the dumps and one deflated archive.
import io
import zipfile
n = 0
for p in files("collect/**/*.pt"):
    try:
        with zipfile.ZipFile(p) as z:
            for name in z.namelist():
                if name.endswith("data.pkl"):
                    write("fuzz_pickle", f"pkl{n}", z.read(name))
                    n += 1
    except zipfile.BadZipFile:
        pass
write("fuzz_pickle", "nested", b"\x80\x02" + b"]" * 64 + b"." )
seed("fuzz_zip", ["collect/**/*.pt"])
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("archive/data.pkl", b"\x80\x02]q\x00.")
    z.writestr("archive/data/0", bytes(4096))
write("fuzz_zip", "deflated", buf.getvalue())
# Macro expander: every fixture header that defines macros, and the doubly exponential bomb.
n = 0
examples = sorted(glob.glob(os.path.join(src, "examples", "**", "*.h"), recursive=True))
for p in files("**/*.h") + files("**/*.cpp") + examples:
    b = read(p)
    if b"#define" in b and len(b) < (64 << 10):
        write("fuzz_macro", f"m{n}", b, n % 2)
        n += 1
write("fuzz_macro", "bomb", b"#define A0(x) x x\n#define A1(x) A0(A0(x))\n#define A2(x) A1(A1(x))\n"
      b"#define A3(x) A2(A2(x))\n#define A4(x) A3(A3(x))\n#define USE(x) A4(A4(x))\n#define KERNEL_BODY USE(y)\n", 1)
write("fuzz_macro", "paste", b"#define CAT(a, b) a##b\n#define STR(a) #a\n#define V(f, ...) f(__VA_ARGS__)\n"
      b"void k() { V(CAT, x, y)(); STR(V(a)); }\n", 0)
seed("fuzz_hook", ["hook/*.sh"])
write("fuzz_hook", "minimal", b"#!/bin/bash\nset -e\ncp -r src dst\nbash build.sh\n")
for t in sorted(os.listdir(out)):
    print(f"{t}: {len(os.listdir(os.path.join(out, t)))} seed(s)")

# fuzz_export_db_sql: SQL run on a copy of tp_l0_db's db (the shapes of issue 53's db campaign).
endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
for i, sql in enumerate([
        "SELECT 1;",
        "ALTER TABLE TASK RENAME TO T0; CREATE VIEW TASK AS " + endless + " SELECT T0.* FROM T0, c;",
        "CREATE VIEW MEMORY_RECORD AS " + endless + " SELECT x AS component, x AS timestamp, x AS totalAllocated, "
        "x AS totalReserved FROM c; CREATE VIEW CANN_API AS " + endless + " SELECT x % 7 AS connectionId, x AS startNs FROM c;",
        "CREATE TABLE C2 AS SELECT * FROM COMPUTE_TASK_INFO; DROP TABLE COMPUTE_TASK_INFO; "
        "ALTER TABLE C2 RENAME TO COMPUTE_TASK_INFO; UPDATE TASK SET globalTaskId = 7; UPDATE COMPUTE_TASK_INFO SET globalTaskId = 7;",
        "UPDATE TASK SET startNs = NULL WHERE rowid % 3 = 0; UPDATE TASK SET endNs = 'x' WHERE rowid % 5 = 0;",
        "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER); "
        "INSERT INTO MEMORY_RECORD SELECT id, id * 1000, id, id FROM STRING_IDS;",
        "DROP TABLE STRING_IDS; CREATE TABLE STRING_IDS (id INTEGER, value TEXT); INSERT INTO STRING_IDS VALUES (1, 'a'), (1, 'b');",
]):
    write("fuzz_export_db_sql", f"sql{i}", sql.encode())

