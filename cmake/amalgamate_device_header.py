#!/usr/bin/env python3
"""Writes optrace_trace.h: include/optrace/trace.h with every `#include "optrace/..."` replaced by
the text of that header, recursively: the device API in one self-contained file that `optrace
instrument` and `optrace headers` place in an operator tree (the way simdjson amalgamates).

  amalgamate_device_header.py INCLUDE_DIR OUT VERSION

A header is inlined where it is first included outside any #if; inside a conditional branch
(backend.h picks one backend) it is inlined in each branch, and its own include guard keeps a
second copy inert. Every header must therefore have an include guard: this script checks it.
System and SDK includes (<stdint.h>, "kernel_operator.h") stay as they are. Standard library only.
"""
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s+"(optrace/[^"]+)"')
OPENS = re.compile(r"^\s*#\s*if(n?def)?\b")
CLOSES = re.compile(r"^\s*#\s*endif\b")
GUARD = re.compile(r"^\s*#\s*ifndef\s+(OPTRACE_\w+_H_)\s*$")
FORMAT_VERSION = re.compile(r"constexpr uint32_t kVersion = (\d+);")


def inline(root: Path, rel: str, depth: int, done: set, stack: list) -> str:
    if rel in stack:
        sys.exit(f"amalgamate: include cycle: {' -> '.join(stack + [rel])}")
    path = root / rel
    text = path.read_text(encoding="utf-8")
    if not any(GUARD.match(line) for line in text.splitlines()):
        sys.exit(f"amalgamate: {path} has no OPTRACE_..._H_ include guard; add one (a header inlined in two "
                 "branches relies on it)")
    out = [f"// ---- {rel} ----\n"]
    level = depth
    guard_seen = False
    for line in text.splitlines(keepends=True):
        m = INCLUDE.match(line)
        if m:
            child = m.group(1)
            if child in done:
                continue
            if level == 0:
                done.add(child)
            out.append(inline(root, child, level, done, stack + [rel]))
            continue
        if not guard_seen and GUARD.match(line):
            guard_seen = True  # the file's own guard: what it includes is as unconditional as the file
        elif OPENS.match(line):
            level += 1
        elif CLOSES.match(line) and level > depth:
            level -= 1
        out.append(line)
    if not out[-1].endswith("\n"):
        out.append("\n")
    return "".join(out)


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit("usage: amalgamate_device_header.py INCLUDE_DIR OUT VERSION")
    root, out, version = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    fmt = FORMAT_VERSION.search((root / "optrace/format.h").read_text(encoding="utf-8"))
    if not fmt:
        sys.exit("amalgamate: optrace/format.h has no `constexpr uint32_t kVersion = N;`")
    body = inline(root, "optrace/trace.h", 0, {"optrace/trace.h"}, [])
    head = (
        f"// optrace_trace.h: optrace {version}, buffer format v{fmt.group(1)}. Generated; do not edit.\n"
        "// optrace's device API in one file (AscendC, CUDA and host backends, the buffer format, the\n"
        "// point-id hash), made from include/optrace/trace.h. `optrace instrument` places it beside the\n"
        "// kernel sources and updates it in place; `optrace headers -o DIR` writes it for hand\n"
        "// instrumentation; `optrace instrument --revert` removes it. Include it by a path relative to\n"
        "// the including file (#include \"optrace_trace.h\"): the build needs no -I for optrace.\n"
        "#ifndef OPTRACE_SINGLE_HEADER_H_\n"
        "#define OPTRACE_SINGLE_HEADER_H_\n"
        f"#define OPTRACE_SINGLE_HEADER_VERSION \"{version}\"\n"
        f"#define OPTRACE_SINGLE_HEADER_FORMAT {fmt.group(1)}\n\n"
    )
    text = head + body + "\n#endif  // OPTRACE_SINGLE_HEADER_H_\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists() and out.read_text(encoding="utf-8") == text:
        return
    out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
