#!/usr/bin/env python3
"""Derives tests/data/plan/moe_uninstrumented/ from examples/moe_dispatch_combine/op_kernel/.

Mechanical: drops every line that is only a MoeTracing(...) call, then if/else statements whose
branches held nothing but those calls. The profiling plumbing stays (the profilingData kernel
parameter, OPTRACE_KERNEL_BEGIN/END and the *_base.h configuration with its tracing include),
so `optrace instrument` only has to add the B/E marks.

  python3 tests/data/plan/make_uninstrumented.py      # from the repository root
"""
import pathlib
import re
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[3]
SRC = ROOT / "examples" / "moe_dispatch_combine" / "op_kernel"
DST = pathlib.Path(__file__).resolve().parent / "moe_uninstrumented" / "op_kernel"

TRACE_LINE = re.compile(r"^[ \t]*MoeTracing[ \t]*(<[^>\n]*>)?[ \t]*\(.*\);[ \t]*(//.*)?\n", re.M)
EMPTY_IF_ELSE = re.compile(r"^[ \t]*if \([^\n]*\) \{\n\s*\} else \{\n\s*\}\n", re.M)
EMPTY_IF = re.compile(r"^[ \t]*if \([^\n]*\) \{\n\s*\}\n", re.M)


def strip(text: str) -> str:
    text = TRACE_LINE.sub("", text)
    text = EMPTY_IF_ELSE.sub("", text)
    return EMPTY_IF.sub("", text)


def main() -> None:
    if DST.exists():
        shutil.rmtree(DST)
    for path in sorted(SRC.rglob("*")):
        if not path.is_file():
            continue
        out = DST / path.relative_to(SRC)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(strip(path.read_text()))


if __name__ == "__main__":
    main()
