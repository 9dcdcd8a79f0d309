#!/usr/bin/env python3
"""Writes the un-instrumented variant of the example operator's kernel.

A build step: `optrace samples` ships it (operator_bare/) and the tests instrument it.

Mechanical: drops every line that is only a MoeTracing(...) call, then if / if-else statements
whose branches held nothing but those calls. The profiling plumbing stays (the profilingData
kernel parameter, OPTRACE_KERNEL_BEGIN/END and the *_base.h configuration with its tracing
include), so `optrace instrument` only has to add the B/E marks.

  python3 cmake/make_uninstrumented.py SRC_OP_KERNEL DST_OP_KERNEL
"""
import pathlib
import re
import shutil
import sys

TRACE_LINE = re.compile(r"^[ \t]*MoeTracing[ \t]*(<[^>\n]*>)?[ \t]*\(.*\);[ \t]*(//.*)?\n", re.M)
EMPTY_IF_ELSE = re.compile(r"^[ \t]*if [^\n]*\{\n\s*\} else \{\n\s*\}\n", re.M)
EMPTY_IF = re.compile(r"^[ \t]*if [^\n]*\{\n\s*\}\n", re.M)


def strip(text: str) -> str:
    text = TRACE_LINE.sub("", text)
    text = EMPTY_IF_ELSE.sub("", text)
    return EMPTY_IF.sub("", text)


def main() -> None:
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    if dst.exists():
        shutil.rmtree(dst)
    for path in sorted(src.rglob("*")):
        if not path.is_file():
            continue
        out = dst / path.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(strip(path.read_text()))


if __name__ == "__main__":
    main()
