#!/usr/bin/env python3
"""Corpus sweep: plan, instrument and lint every operator of real operator repositories.

For every operator folder (the parent of an op_kernel/ folder, not under a tests/ folder) of each
--repo, on a scratch copy of its repository:

  1. lint --op (the shipping tree, JSON): errors per rule
  2. plan --op --format json
  3. instrument --op (with --check-compile against --sdk for the operators of the compile sample)
  4. lint --op again (JSON): the errors instrument left, per rule, with their messages
  5. scan (the point map of the instrumented tree): every (label, phase) written in the sources
     is in the map, no id collides
  6. instrument --op --revert, then a byte comparison with the pristine copy

each with its exit code, wall time and peak RSS (wait4). One JSON row per operator goes to
OUT/rows.jsonl; OUT/summary.md has the totals, the operators per remaining error rule, the
failures grouped by cause and every command above 5 s. The scratch copy is restored from the
pristine one after every operator, so one operator's failure never leaks into the next.

  bench/corpus/sweep.py --optrace build/release/bin/optrace --out /tmp/sweep \\
      --repo /tmp/corpus/ops-nn --repo /tmp/corpus/ops-transformer --jobs 2 \\
      [--sdk SDK --compile-include DIR ... --compile-sample 200 --seed 1] [--only REGEX] [--limit N]

The repositories are inputs (fetched or cloned beside the project), never part of it.
Standard library only.
"""
import argparse
import concurrent.futures
import filecmp
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

SLOW_SECONDS = 5.0
TIMEOUT = 120


def run(cmd, timeout=TIMEOUT, cwd=None):
    """Runs cmd; returns (exit code, 'timeout' or -signal; seconds; peak RSS MiB of that command,
    from wait4; stdout; stderr)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, start_new_session=True)
    chunks = {"out": b"", "err": b""}

    def drain(name, stream):
        chunks[name] = stream.read()

    readers = [threading.Thread(target=drain, args=("out", p.stdout)), threading.Thread(target=drain, args=("err", p.stderr))]
    for t in readers:
        t.start()
    rc, rss = None, 0.0
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            rc = os.waitstatus_to_exitcode(status)
            rss = usage.ru_maxrss / 1024.0
            p.returncode = rc  # reaped here: Popen must not wait for it again
            break
        if time.monotonic() - t0 > timeout:
            os.killpg(p.pid, signal.SIGKILL)
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = -9
            rc, rss = "timeout", usage.ru_maxrss / 1024.0
            break
        time.sleep(0.005)
    for t in readers:
        t.join()
    seconds = time.monotonic() - t0
    return rc, seconds, rss, chunks["out"].decode("utf-8", "replace"), chunks["err"].decode("utf-8", "replace")


KERNEL_EXTENSIONS = {".cpp", ".cc", ".cxx", ".cu", ".asc", ".cce"}
SKIPPED_FOLDERS = ("tests", "test", ".git")
CODE_NOISE_RE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"', re.S)


def defines_kernel(path):
    """True when the file's code (comments and strings removed) writes __global__."""
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return False
    return "__global__" in text and re.search(r"\b__global__\b", CODE_NOISE_RE.sub(" ", text)) is not None


def find_operators(repo):
    """Operator folders of a repository: parents of op_kernel/ folders; and, for layouts without
    one (cann-samples: a sample folder with its CMakeLists.txt and a main.asc), the nearest folder
    holding a CMakeLists.txt above each kernel source outside those. Folders named tests/ or test/
    are skipped."""
    ops = set()
    for dirpath, dirnames, _ in os.walk(repo):
        rel = Path(dirpath).relative_to(repo)
        if any(part in SKIPPED_FOLDERS for part in rel.parts):
            dirnames[:] = []
            continue
        if "op_kernel" in dirnames:
            ops.add(rel)
            dirnames.remove("op_kernel")  # an op_kernel/ inside op_kernel/ is the same operator
    for dirpath, dirnames, files in os.walk(repo):
        rel = Path(dirpath).relative_to(repo)
        if any(part in SKIPPED_FOLDERS for part in rel.parts) or any(rel == o or o in rel.parents for o in ops):
            dirnames[:] = []
            continue
        for name in files:
            if os.path.splitext(name)[1].lower() not in KERNEL_EXTENSIONS or not defines_kernel(Path(dirpath) / name):
                continue
            folder = rel
            while folder != Path(".") and not (repo / folder / "CMakeLists.txt").is_file():
                folder = folder.parent
            ops.add(folder if folder != Path(".") else rel)
    return sorted(ops)


def family(rel):
    return rel.parts[0] if rel.parts else "."


def lint_errors(text):
    try:
        j = json.loads(text)
    except ValueError:
        return None, []
    errors = [d for d in j.get("diagnostics", []) if d["severity"] == "error"]
    return Counter(d["rule"] for d in errors), errors


SIDE_RE = re.compile(r"\(kernel (\d+) compile\(s\), (\d+) error\(s\), (\d+) stopped at a fatal error; "
                     r"host (\d+) compile\(s\), (\d+) error\(s\), (\d+) stopped at a fatal error\)")


def with_sides(result, line):
    """Adds the kernel / host split of a summary line (printed when host sources were checked):
    the kernel entries in CPU-debug mode, the host sources instrument edits as host code."""
    m = SIDE_RE.search(line)
    if m:
        v = [int(x) for x in m.groups()]
        result["kernel"] = {"compiles": v[0], "errors": v[1], "fatal": v[2]}
        result["host"] = {"compiles": v[3], "errors": v[4], "fatal": v[5]}
    elif result.get("errors") is not None:
        result["kernel"] = {"compiles": result["compiles"], "errors": result["errors"], "fatal": result["fatal"]}
    return result


def compile_line(text):
    """The numbers of `instrument --check-compile`'s summary line."""
    m = re.search(r"compile check \((.*)\): (\d+) compile\(s\), (\d+) error\(s\) before and after, none new"
                  r"(?:; (\d+) stopped at a fatal error)?[^\n]*", text)
    if m:
        return with_sides({"compiles": int(m.group(2)), "errors": int(m.group(3)), "fatal": int(m.group(4) or 0),
                           "new": 0}, m.group(0))
    m = re.search(r"refused: the edits add (\d+) compile error", text)
    if m:
        b = re.search(r"before the edits: (\d+) compile\(s\), (\d+) error\(s\)(?:, (\d+) stopped at a fatal error)?"
                      r"[^\n]*", text)
        return with_sides({"new": int(m.group(1)), "compiles": int(b.group(1)) if b else None,
                           "errors": int(b.group(2)) if b else None, "fatal": int(b.group(3) or 0) if b else None},
                          b.group(0) if b else "")
    m = re.search(r"note: (compile check not run: [^\n]*)", text)
    if m:
        return {"unchecked": m.group(1)}
    return None


SOURCE_EXTENSIONS = {".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++", ".cu", ".cuh",
                     ".inl", ".inc", ".ipp", ".tpp", ".asc", ".cce"}
TRACE_POINT_RE = re.compile(r'TRACE_POINT\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"([A-Za-z]+)"\s*\)')


def written_points(op):
    """The distinct (label, phase) pairs of TRACE_POINT("label", "B") written in op's sources
    (not in the optrace_trace.h instrument placed: optrace's, and scan skips it)."""
    found = set()
    for d, _, files in os.walk(op):
        for name in files:
            if os.path.splitext(name)[1].lower() not in SOURCE_EXTENSIONS or name == "optrace_trace.h":
                continue
            try:
                text = open(os.path.join(d, name), encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            found.update(TRACE_POINT_RE.findall(text))
    return found


AUTO_INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)".*//\s*optrace:auto')


def added_includes(op):
    """(includes instrument added, those that do not resolve to a file inside op): each quoted
    include tagged optrace:auto, looked up beside its including file, as the team's build does."""
    added, bad = 0, []
    root = os.path.realpath(op)
    for d, _, files in os.walk(op):
        for name in files:
            if os.path.splitext(name)[1].lower() not in SOURCE_EXTENSIONS:
                continue
            path = os.path.join(d, name)
            try:
                lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
            except OSError:
                continue
            for n, line in enumerate(lines, 1):
                m = AUTO_INCLUDE_RE.match(line)
                if not m:
                    continue
                added += 1
                target = os.path.realpath(os.path.join(d, m.group(1)))
                if not os.path.isfile(target) or not (target + os.sep).startswith(root + os.sep):
                    bad.append(f"{os.path.relpath(path, op)}:{n}: {m.group(1)}")
    return added, bad


def same_tree(a, b):
    """True when folders a and b hold the same files with the same bytes."""
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    if mismatch or errors:
        return False
    return all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


def sweep_one(args, repo, scratch, rel, compile_it):
    op = scratch / rel
    pristine = repo / rel
    row = {"repo": repo.name, "op": str(rel), "family": family(rel), "compile_sample": compile_it, "steps": {}}
    opt = args.optrace

    def step(name, cmd, timeout=TIMEOUT):
        rc, sec, rss, out, err = run(cmd, timeout)
        row["steps"][name] = {"rc": rc, "seconds": round(sec, 3), "rss_mib": round(rss, 1)}
        if isinstance(rc, int) and (rc < 0 or rc >= 128):
            row["steps"][name]["crash"] = (err or out)[-2000:]
        return rc, out, err

    rc, out, _ = step("lint_before", [opt, "lint", "--op", str(op), "--format", "json"])
    counts, _ = lint_errors(out)
    row["lint_before"] = dict(counts) if counts is not None else None
    rc, out, err = step("plan", [opt, "plan", "--op", str(op), "--format", "json"])
    row["plan_error"] = err.strip()[-500:] if rc not in (0,) else ""
    cmd = [opt, "instrument", "--op", str(op)]
    if compile_it:
        cmd += ["--check-compile", "--sdk", args.sdk]
        for d in args.compile_include:
            cmd += ["-I", d]
    rc, out, err = step("instrument", cmd, timeout=TIMEOUT * (4 if compile_it else 1))
    row["instrument_error"] = err.strip()[-1500:] if rc != 0 else ""
    if compile_it:
        row["compile"] = compile_line(out + err)
        if row["compile"] and row["compile"].get("new"):
            row["compile"]["messages"] = [l for l in err.splitlines() if ": error: " in l][:20]
    rc, out, _ = step("lint_after", [opt, "lint", "--op", str(op), "--format", "json"])
    counts, errors = lint_errors(out)
    row["lint_after"] = dict(counts) if counts is not None else None
    row["lint_after_messages"] = [f"{e['file']}:{e['line']}: {e['message']} [{e['rule']}]" for e in errors][:40]
    if row["steps"]["instrument"]["rc"] == 0:
        added, bad = added_includes(op)
        row["includes"] = {"added": added, "unresolved": bad[:10]}
        map_path = Path(args.work) / f"point_map-{os.getpid()}.json"
        rc, out, err = step("scan", [opt, "scan", str(op), "--format", "json", "-o", str(map_path)])
        try:
            summary = json.loads(out)
        except ValueError:
            summary = {}
        expected = written_points(op)
        row["scan"] = {"rc": rc, "points": summary.get("points"), "expected": len(expected),
                       "collisions": len(summary.get("collisions") or []),
                       "diagnostics": [str(d)[:300] for d in (summary.get("diagnostics") or [])][:5]}
        if rc != 0:
            row["scan"]["error"] = err.strip()[-500:]
        map_path.unlink(missing_ok=True)
    step("revert", [opt, "instrument", "--op", str(op), "--revert"])
    row["revert_exact"] = same_tree(op, pristine)
    # Back to the pristine operator whatever happened.
    shutil.rmtree(op, ignore_errors=True)
    shutil.copytree(pristine, op, symlinks=True)
    return row


def worker(args, repo_str, jobs):
    repo = Path(repo_str)
    scratch = Path(args.work) / f"{repo.name}-{os.getpid()}"
    if not scratch.exists():
        shutil.copytree(repo, scratch, symlinks=True)
    rows = []
    for rel_str, compile_it in jobs:
        try:
            rows.append(sweep_one(args, repo, scratch, Path(rel_str), compile_it))
        except Exception as e:  # noqa: BLE001 - a sweep row, not a crash of the sweep
            rows.append({"repo": repo.name, "op": rel_str, "family": family(Path(rel_str)), "sweep_error": repr(e),
                         "steps": {}})
    return rows


def compile_sample(ops_by_repo, n, seed):
    """A stratified sample: every family folder of every repository, in proportion, and every
    mc2 / MoE operator."""
    rng = random.Random(seed)
    chosen = set()
    all_ops = [(repo, rel) for repo, ops in ops_by_repo.items() for rel in ops]
    for repo, rel in all_ops:
        name = str(rel).lower()
        if family(rel) in ("mc2", "moe") or "moe" in name or "mc2" in name:
            chosen.add((repo, rel))
    by_family = defaultdict(list)
    for repo, rel in all_ops:
        by_family[(repo, family(rel))].append(rel)
    for key in sorted(by_family):
        members = sorted(by_family[key])
        share = max(1, round(n * len(members) / max(1, len(all_ops))))
        for rel in rng.sample(members, min(share, len(members))):
            chosen.add((key[0], rel))
    return chosen


def compiled(row, side=None):
    """(compiled before instrument, compiled after) from the compile check, or (None, None) when the
    operator was not compile-checked (or has no such side). Compiled = no error and no fatal stop (a
    missing header). side: None (the whole check), "kernel" or "host". A refusal counts against
    every side that compiled before (the message does not say which side the new error is on)."""
    c = row.get("compile") or {}
    part = c if side is None else c.get(side)
    if not part or not part.get("compiles") or part.get("errors") is None or part.get("fatal") is None:
        return None, None
    before = part["errors"] == 0 and part["fatal"] == 0
    return before, before and not c.get("new")


def per_repository(rows, not_op):
    """The per-repository table issue 50 asks for; `lint clean but does not compile` is the worst row."""
    out = ["", "| repository | operators | instrument exit 0 | compiles before (checked) | compiles after "
           "(of those) | kernel: before (checked) / after | host: before (checked) / after | lint clean after | "
           "lint clean, does not compile | revert byte-exact | slowest command |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    worst = []
    for repo in sorted({r["repo"] for r in rows}):
        rr = [r for r in rows if r["repo"] == repo and r not in not_op]
        ok = [r for r in rr if r["steps"].get("instrument", {}).get("rc") == 0]
        clean = [r for r in ok if r.get("lint_after") is not None and sum(r["lint_after"].values()) == 0]
        checked = [r for r in rr if compiled(r)[0] is not None]
        before = [r for r in checked if compiled(r)[0]]
        after = [r for r in before if compiled(r)[1]]
        bad = [r for r in clean if any(compiled(r, side) == (True, False) for side in ("kernel", "host"))]
        worst += bad
        exact = [r for r in rows if r["repo"] == repo and r.get("revert_exact")]
        slow = max(((s["seconds"], name, r["op"]) for r in rr for name, s in r["steps"].items()), default=(0, "", ""))
        sides = []
        for side in ("kernel", "host"):
            sc = [r for r in rr if compiled(r, side)[0] is not None]
            sb = [r for r in sc if compiled(r, side)[0]]
            sa = [r for r in sb if compiled(r, side)[1]]
            sides.append(f"{len(sb)} ({len(sc)}) / {len(sa)}")
        out.append(f"| {repo} | {len(rr)} | {len(ok)} | {len(before)} ({len(checked)}) | {len(after)} | {sides[0]} | "
                   f"{sides[1]} | {len(clean)} | {len(bad)} | {len(exact)} | {slow[0]:.1f} s ({slow[1]}, {slow[2]}) |")
    for r in worst:
        out.append(f"- lint clean and does not compile after instrument: {r['repo']}/{r['op']}: "
                   + "; ".join((r.get("compile") or {}).get("messages", [])[:2]))
    return out + [""]


def summarize(rows, out_dir, args):
    n = len(rows)
    crashes = [r for r in rows if any("crash" in s for s in r["steps"].values()) or r.get("sweep_error")]
    not_op = [r for r in rows if "no kernel entry found" in (r.get("instrument_error") or "")]
    rows_ops = [r for r in rows if r not in not_op]
    inst_ok = [r for r in rows_ops if r["steps"].get("instrument", {}).get("rc") == 0]
    clean_after = [r for r in inst_ok if r.get("lint_after") is not None and sum(r["lint_after"].values()) == 0]
    revert_ok = [r for r in rows if r.get("revert_exact")]
    scanned = [r for r in inst_ok if r.get("scan")]
    scan_ok = [r for r in scanned if r["scan"]["rc"] == 0 and r["scan"]["points"] == r["scan"]["expected"]
               and r["scan"]["collisions"] == 0]
    slow = [(r["repo"], r["op"], name, s["seconds"]) for r in rows for name, s in r["steps"].items()
            if s["seconds"] > SLOW_SECONDS and not (name == "instrument" and r.get("compile_sample"))]
    per_rule = Counter()
    for r in inst_ok:
        for rule in (r.get("lint_after") or {}):
            per_rule[rule] += 1
    with_inc = [r for r in rows if (r.get("includes") or {}).get("added")]
    inc_ok = [r for r in with_inc if not r["includes"]["unresolved"]]
    lines = [
        f"# Corpus sweep ({time.strftime('%Y-%m-%d')})",
        "",
        f"Repositories: {', '.join(sorted({r['repo'] for r in rows}))}; {n} operator folders.",
        "",
        "| measure | operators | share |",
        "|---|---|---|",
        f"| no crash in any step | {n - len(crashes)} | {100 * (n - len(crashes)) / max(1, n):.1f}% |",
        f"| folders without a kernel entry (shared code: `common/`, `*_common/`, libraries) | {len(not_op)} | |",
        f"| `instrument` exit 0 (of the {len(rows_ops)} operators) | {len(inst_ok)} | "
        f"{100 * len(inst_ok) / max(1, len(rows_ops)):.1f}% |",
        f"| `lint --op` after instrument: 0 errors (of those instrumented) | {len(clean_after)} | "
        f"{100 * len(clean_after) / max(1, len(inst_ok)):.1f}% |",
        f"| `scan` after instrument: exit 0, every written (label, phase) in the map, no id collision "
        f"(of the {len(scanned)} scanned) | {len(scan_ok)} | {100 * len(scan_ok) / max(1, len(scanned)):.1f}% |",
        f"| every include instrument added resolves inside the operator tree (of the {len(with_inc)} that got one) | "
        f"{len(inc_ok)} | {100 * len(inc_ok) / max(1, len(with_inc)):.1f}% |",
        f"| `instrument --revert` byte-exact | {len(revert_ok)} | {100 * len(revert_ok) / max(1, n):.1f}% |",
        f"| a command above {SLOW_SECONDS:g} s (compile checks aside) | {len({(a, b) for a, b, _, _ in slow})} | |",
        "",
    ]
    lines += per_repository(rows, not_op)
    steps = ["lint_before", "plan", "instrument", "lint_after", "scan", "revert"]
    lines += ["| step | median s | max s | max peak RSS MiB |", "|---|---|---|---|"]
    for st in steps:
        secs = sorted(r["steps"][st]["seconds"] for r in rows if st in r["steps"])
        rss = [r["steps"][st]["rss_mib"] for r in rows if st in r["steps"]]
        if secs:
            lines.append(f"| {st} | {secs[len(secs) // 2]:.2f} | {secs[-1]:.2f} | {max(rss):.0f} |")
    lines += ["", "Operators per remaining error rule after instrument:", ""]
    lines += ["| rule | operators |", "|---|---|"] + [f"| `{k}` | {v} |" for k, v in per_rule.most_common()]
    comp = [r for r in rows if r.get("compile_sample")]
    if comp:
        checked = [r for r in comp if r.get("compile") and "compiles" in r["compile"]]
        new = [r for r in comp if r.get("compile") and r["compile"].get("new")]
        clean = [r for r in checked if r["compile"]["errors"] == 0 and r["compile"]["fatal"] == 0]
        fatal = [r for r in checked if r["compile"]["fatal"] > 0]
        unchecked = [r for r in comp if not r.get("compile") or "unchecked" in (r.get("compile") or {})]
        lines += ["", f"Compile check ({args.sdk}) on a stratified sample of {len(comp)} operators "
                  f"({len({r['family'] for r in comp})} family folders):", "",
                  "| measure | operators |", "|---|---|",
                  f"| checked before and after instrument | {len(checked) + len(new)} |",
                  f"| new compile errors after instrument | {len(new)} |",
                  f"| shipping kernels with no compile error at all | {len(clean)} |",
                  f"| stopped at a fatal error (a header outside the SDK and -I folders) | {len(fatal)} |",
                  f"| not checked (instrument failed first, or no SDK) | {len(unchecked)} |"]
        for r in new:
            lines.append(f"- NEW in {r['repo']}/{r['op']}: " + "; ".join(r["compile"].get("messages", [])[:3]))
    lines += ["", "## Failures", ""]
    for r in rows:
        why = []
        if r.get("sweep_error"):
            why.append(r["sweep_error"])
        for name, s in r["steps"].items():
            if "crash" in s:
                why.append(f"{name} crashed ({s['rc']})")
        if r["steps"].get("instrument", {}).get("rc") not in (0, None):
            why.append("instrument: " + (r.get("instrument_error") or "").splitlines()[-1][:300]
                       if r.get("instrument_error") else "instrument failed")
        if r.get("lint_after"):
            why.append("lint after: " + "; ".join(r.get("lint_after_messages", [])[:3]))
        sc = r.get("scan")
        if sc and not (sc["rc"] == 0 and sc["points"] == sc["expected"] and sc["collisions"] == 0):
            why.append(f"scan: exit {sc['rc']}, {sc['points']} point(s) in the map of {sc['expected']} written, "
                       f"{sc['collisions']} collision(s) {sc.get('error', '')[:200]}")
        if not r.get("revert_exact"):
            why.append("revert not byte-exact")
        if why:
            lines.append(f"- {r['repo']}/{r['op']}: " + " | ".join(why))
    if slow:
        lines += ["", f"## Commands above {SLOW_SECONDS:g} s", ""]
        lines += [f"- {a}/{b} {st}: {s:.1f} s" for a, b, st, s in sorted(slow, key=lambda x: -x[3])]
    (out_dir / "summary.md").write_text("\n".join(lines) + "\n")
    return "\n".join(lines[:40])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--optrace", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--repo", action="append", default=[], help="a repository: every operator folder in it")
    p.add_argument("--work", default="/tmp/optrace-sweep-work", help="scratch copies of the repositories")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--sdk", default="", help="SDK for the compile check (instrument --check-compile --sdk)")
    p.add_argument("--compile-include", action="append", default=[], help="-I folders of the compile check")
    p.add_argument("--compile-sample", type=int, default=0, help="operators in the stratified compile sample")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", default="", help="regular expression on repo/op")
    p.add_argument("--limit", type=int, default=0)
    args = p.parse_args()
    args.optrace = str(Path(args.optrace).resolve())
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    ops_by_repo = {}
    for r in args.repo:
        repo = Path(r).resolve()
        ops = find_operators(repo)
        if args.only:
            ops = [o for o in ops if re.search(args.only, f"{repo.name}/{o}")]
        ops_by_repo[repo] = ops
    sample = compile_sample(ops_by_repo, args.compile_sample, args.seed) if args.compile_sample and args.sdk else set()
    rows = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = []
        for repo, ops in ops_by_repo.items():
            todo = ops[: args.limit] if args.limit else ops
            chunks = [todo[i:: args.jobs] for i in range(args.jobs)]
            for chunk in chunks:
                jobs = [(str(rel), (repo, rel) in sample) for rel in chunk]
                futures.append(pool.submit(worker, args, str(repo), jobs))
        for f in concurrent.futures.as_completed(futures):
            rows.extend(f.result())
    rows.sort(key=lambda r: (r["repo"], r["op"]))
    with open(out_dir / "rows.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(summarize(rows, out_dir, args))


if __name__ == "__main__":
    sys.exit(main())
