#!/usr/bin/env python3
"""Runs the commands the documentation shows, so a skill or the README cannot rot.

    doc_commands_test.py --bin BUILD/bin --repo ROOT FILE.md...

skills/*/SKILL.md: every ```sh block, in order, as one bash script (set -euo pipefail) run in an
empty scratch folder: a skill travels without optrace's source tree, so it may use only the binary
(and what `optrace samples` writes). README.md: every "$ command" line of the 5-minute walkthrough (with its "\\"
continuation lines), in order, as one script run in a scratch copy of the repository's data
folders (the walkthrough edits files), "/tmp/" pointing into a scratch folder. A command must exit
0 unless its line says "# exits N". Commands that need ../shared (the project's corpus, absent in
a user's clone) are skipped with the ones that use what they made. Exits 1 naming the first
failing command and its output.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

COPIED = ["examples", "tests", "emu", "include", "data", "python"]


def sh_blocks(text):
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)


def walkthrough_commands(text):
    """(command, expected exit code) for each "$ " line of the walkthrough section."""
    start = text.find("## 5-minute walkthrough")
    end = text.find("\n## ", start + 1)
    section = text[start:end] if start >= 0 else ""
    out = []
    lines = section.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            cmd = line[2:]
            while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
            m = re.search(r"#\s*exits (\d+)", cmd)
            cmd = re.sub(r"\s+#\s.*$", "", cmd)  # the line's comment
            out.append((cmd, int(m.group(1)) if m else 0))
        i += 1
    return out


def run_script(script, cwd, env, label):
    r = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.stderr.write(f"{label}: failed (exit {r.returncode})\n--- stdout (end)\n{r.stdout[-3000:]}\n"
                         f"--- stderr (end)\n{r.stderr[-3000:]}\n")
        return False
    return True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--repo", required=True)
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(a.bin) + os.pathsep + env.get("PATH", "")
    repo = os.path.abspath(a.repo)
    shared = os.path.normpath(os.path.join(repo, "..", "shared"))
    ok = True
    for f in a.files:
        text = open(f, encoding="utf-8").read()
        name = os.path.relpath(f, repo)
        if os.path.basename(f) == "SKILL.md":
            blocks = sh_blocks(text)
            if not blocks:
                sys.stderr.write(f"{name}: no ```sh block to run\n")
                ok = False
                continue
            script = "set -euo pipefail\n" + "\n".join(blocks)
            with tempfile.TemporaryDirectory(prefix="optrace-skill-") as scratch:
                ok &= run_script(script, scratch, dict(env, TMPDIR=scratch), name)
            print(f"{name}: {sum(len([l for l in b.splitlines() if l.strip() and not l.startswith('#')]) for b in blocks)} command(s) ran")
            continue
        with tempfile.TemporaryDirectory(prefix="optrace-doc-") as scratch:
            work = os.path.join(scratch, "repo")
            tmp = os.path.join(scratch, "tmp")
            os.makedirs(tmp)
            for d in COPIED:
                if os.path.isdir(os.path.join(repo, d)):
                    shutil.copytree(os.path.join(repo, d), os.path.join(work, d), symlinks=True)
            if os.path.isdir(shared):
                os.symlink(os.path.realpath(shared), os.path.join(scratch, "shared"))
            lines, skipped_paths, ran, skipped = ["set -uo pipefail"], set(), 0, 0
            for cmd, code in walkthrough_commands(text):
                made = set(re.findall(r"/tmp/[\w.-]+", cmd))
                if ("../shared" in cmd and not os.path.isdir(shared)) or made & skipped_paths:
                    skipped_paths |= made
                    skipped += 1
                    continue
                cmd = cmd.replace("/tmp/", tmp + "/")
                quoted = cmd.replace("'", "'\\''")
                if re.fullmatch(r"cd [\w./-]+", cmd.strip()):  # changes the directory of what follows
                    lines.append(cmd.strip() + " || exit 1")
                    ran += 1
                    continue
                lines.append(f"( {cmd} ); rc=$?; if [ $rc -ne {code} ]; then "
                             f"echo 'command exited '$rc' (expected {code}): {quoted}' >&2; exit 1; fi")
                ran += 1
            ok &= run_script("\n".join(lines), work, env, name)
            print(f"{name}: {ran} walkthrough command(s) ran, {skipped} skipped (need ../shared)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
