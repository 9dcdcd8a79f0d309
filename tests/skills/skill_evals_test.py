#!/usr/bin/env python3
"""The agent skills travel with the binary and their evals pass on the data it ships.

    skill_evals_test.py --bin BUILD/bin --source ROOT/skills

1. `optrace skills install --to T/skills` writes exactly the files of ROOT/skills, byte for byte.
2. Each installed skill is well formed: front matter `name` equal to its folder (lowercase words
   joined by '-', at most 64 characters), a `description` of at most 1024 characters that says when
   to use it and holds every trigger word its evals.json lists (Chinese and English), links that
   resolve inside the skill, no path into optrace's source tree, an evals/evals.json.
3. Every eval runs: its commands, in a fresh folder with only the binary's folder added to PATH,
   each must exit with its expected code; then its expectations are checked.

evals.json: {"skill_name", "triggers": [...], "evals": [{"id", "title", "prompt",
"expected_output", "commands": ["cmd" | {"run": "cmd", "exit": N}], "expectations": [...]}]}.
`prompt` and `expected_output` are for an agent and its reviewer; the expectations pin the answer
to what the commands print. Expectation types:
  contains / not_contains     {"command": i, "pattern": s}   stdout + stderr of command i (0-based)
  file_exists                 {"path": p}
  file_contains               {"path": p, "pattern": s}
  json_equals                 {"path": p | "command": i, "select": "a.b[2].c[type=x].d", "equals": v}
                              (numbers equal within 1e-9 relative)
  json_contains               the same with "pattern": the selected string, or one string of the
                              selected list, holds it
Standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# Folders of optrace's source tree a shipped skill must not name (it runs where they do not exist).
REPO_PATH = re.compile(r"(?<![\w./-])(tests/(data|testing)|examples/moe_dispatch_combine|emu/|src/(analyze|cli|source)|"
                       r"scripts/[\w-]+\.sh|cmake/[\w-]+\.py)")
LINK = re.compile(r"\]\(([^)#\s]+)\)")
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def front_matter(text):
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---", 3)
    fields = {}
    for line in text[4:end].splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return fields


def select(value, path):
    for part in filter(None, re.split(r"\.(?![^\[]*\])", path)):
        m = re.fullmatch(r"([^\[\]]*)((?:\[[^\]]+\])*)", part)
        if m.group(1):
            value = value[m.group(1)]
        for idx in re.findall(r"\[([^\]]+)\]", m.group(2)):
            if "=" in idx:
                key, want = idx.split("=", 1)
                matches = [v for v in value if isinstance(v, dict) and str(v.get(key)) == want]
                if not matches:
                    raise KeyError(f"no element with {key} = {want}")
                value = matches[0]
            else:
                value = value[int(idx)]
    return value


def same(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def check_skill(skill_dir, name, problems):
    text = open(os.path.join(skill_dir, "SKILL.md"), encoding="utf-8").read()
    fm = front_matter(text)
    desc = fm.get("description", "")
    if fm.get("name") != name or not NAME.match(name) or len(name) > 64:
        problems.append(f"{name}: front matter name {fm.get('name')!r} must equal the folder name (a-z0-9 words, '-')")
    if not desc or len(desc) > 1024:
        problems.append(f"{name}: description must be 1..1024 characters (has {len(desc)})")
    if "Use when" not in desc:
        problems.append(f"{name}: description must say when to use the skill ('Use when ...')")
    for root, _, files in os.walk(skill_dir):
        for f in files:
            path = os.path.join(root, f)
            rel = os.path.relpath(path, skill_dir)
            body = open(path, encoding="utf-8").read()
            for m in REPO_PATH.finditer(body):
                problems.append(f"{name}/{rel}: names a path of optrace's source tree ({m.group(0)}); "
                                "a shipped skill must use `optrace samples` or a command")
            if f.endswith(".md"):
                for target in LINK.findall(body):
                    if "://" in target:
                        continue
                    if not os.path.exists(os.path.normpath(os.path.join(root, target))):
                        problems.append(f"{name}/{rel}: link {target} does not resolve inside the skill")
    evals_path = os.path.join(skill_dir, "evals", "evals.json")
    if not os.path.isfile(evals_path):
        problems.append(f"{name}: no evals/evals.json")
        return None
    evals = json.load(open(evals_path, encoding="utf-8"))
    if evals.get("skill_name") != name:
        problems.append(f"{name}: evals.json skill_name is {evals.get('skill_name')!r}")
    triggers = evals.get("triggers", [])
    if not any(re.search(r"[\u4e00-\u9fff]", t) for t in triggers) or not any(t.isascii() for t in triggers):
        problems.append(f"{name}: evals.json triggers must hold Chinese and English trigger words")
    for t in triggers:
        if t.lower() not in desc.lower():
            problems.append(f"{name}: trigger word {t!r} is not in the description")
    return evals


def run_eval(name, case, bin_dir, work, problems):
    env = {"PATH": bin_dir + os.pathsep + "/usr/local/bin:/usr/bin:/bin", "HOME": work, "TMPDIR": work,
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    label = f"{name} eval {case['id']} ({case['title']})"
    outputs = []
    for i, cmd in enumerate(case["commands"]):
        run, want = (cmd, 0) if isinstance(cmd, str) else (cmd["run"], cmd.get("exit", 0))
        r = subprocess.run(["bash", "-c", run], cwd=work, env=env, capture_output=True, text=True, timeout=600)
        outputs.append(r.stdout + r.stderr)
        if r.returncode != want:
            problems.append(f"{label}: command {i} `{run}` exited {r.returncode}, expected {want}\n"
                            f"{(r.stdout + r.stderr)[-2000:]}")
            return
    for e in case.get("expectations", []):
        kind = e["type"]
        try:
            if kind in ("contains", "not_contains"):
                found = e["pattern"] in outputs[e["command"]]
                if found != (kind == "contains"):
                    problems.append(f"{label}: output of command {e['command']} {'lacks' if kind == 'contains' else 'holds'} "
                                    f"{e['pattern']!r}\n{outputs[e['command']][-1500:]}")
            elif kind == "file_exists":
                if not os.path.exists(os.path.join(work, e["path"])):
                    problems.append(f"{label}: {e['path']} was not written")
            elif kind == "file_contains":
                body = open(os.path.join(work, e["path"]), encoding="utf-8").read()
                if e["pattern"] not in body:
                    problems.append(f"{label}: {e['path']} lacks {e['pattern']!r}")
            elif kind == "json_equals":
                doc = (json.load(open(os.path.join(work, e["path"]), encoding="utf-8")) if "path" in e
                       else json.loads(outputs[e["command"]]))
                got = select(doc, e["select"])
                if not same(got, e["equals"]):
                    problems.append(f"{label}: {e.get('path', 'command %s' % e.get('command'))} {e['select']} is "
                                    f"{got!r}, expected {e['equals']!r}")
            elif kind == "json_contains":
                doc = (json.load(open(os.path.join(work, e["path"]), encoding="utf-8")) if "path" in e
                       else json.loads(outputs[e["command"]]))
                got = select(doc, e["select"])
                items = got if isinstance(got, list) else [got]
                if not any(isinstance(x, str) and e["pattern"] in x for x in items):
                    problems.append(f"{label}: {e.get('path', 'command %s' % e.get('command'))} {e['select']} holds no "
                                    f"{e['pattern']!r}: {str(got)[:500]}")
            else:
                problems.append(f"{label}: unknown expectation type {kind!r}")
        except (OSError, KeyError, IndexError, TypeError, ValueError) as err:
            problems.append(f"{label}: expectation {e} could not be checked: {err!r}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--source", required=True, help="skills/ of the source tree")
    a = p.parse_args()
    bin_dir = os.path.abspath(a.bin)
    problems = []
    with tempfile.TemporaryDirectory(prefix="optrace-skills-") as tmp:
        installed = os.path.join(tmp, "skills")
        r = subprocess.run([os.path.join(bin_dir, "optrace"), "skills", "install", "--to", installed],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"optrace skills install failed ({r.returncode}): {r.stderr}", file=sys.stderr)
            return 1
        for root, _, files in os.walk(a.source):
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), a.source)
                got = os.path.join(installed, rel)
                if not os.path.isfile(got) or open(got, "rb").read() != open(os.path.join(root, f), "rb").read():
                    problems.append(f"{rel}: the installed copy differs from the source tree's (rebuild optrace)")
        cases = 0
        for name in sorted(os.listdir(installed)):
            evals = check_skill(os.path.join(installed, name), name, problems)
            for case in (evals or {}).get("evals", []):
                work = os.path.join(tmp, f"{name}-{case['id']}")
                os.makedirs(work)
                before = len(problems)
                run_eval(name, case, bin_dir, work, problems)
                print(f"{'ok  ' if len(problems) == before else 'FAIL'} {name} eval {case['id']}: {case['title']}")
                cases += 1
        print(f"{len(os.listdir(installed))} skills, {cases} evals")
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
