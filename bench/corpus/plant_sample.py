#!/usr/bin/env python3
"""Draws operators from swept repositories for the planted-defect harness (issue 51).

Writes one operator folder per line, the list `OPTRACE_PLANT_TREES` names:

  bench/corpus/plant_sample.py --repo /tmp/corpus/ops-nn --repo /tmp/corpus/ops-math \\
      --per-repo 8 --seed 7 -o /tmp/plant_trees.txt
  OPTRACE_PLANT_TREES=/tmp/plant_trees.txt build/ci/tests/cli_tests \\
      --gtest_filter='Optrees/PlantedDefectTest.*swept*:PlantedDefectSummary.*'

The operators are found as the sweep finds them (bench/corpus/sweep.py), drawn per repository
with a fixed seed, so a run can be repeated and a second seed gives operators not seen before.
The repositories are inputs, never part of the project. Standard library only.
"""
import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sweep import KERNEL_EXTENSIONS, defines_kernel, find_operators  # noqa: E402


def has_kernel(folder):
    """True when some file under the folder defines a __global__ kernel: folders of shared code the
    sweep also lists (ops-nn quant/quant_common) have no operator to plant defects in."""
    for f in folder.rglob("*"):
        if f.suffix.lower() in KERNEL_EXTENSIONS and f.is_file() and defines_kernel(f):
            return True
    return False


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", action="append", required=True, help="a swept repository (repeatable)")
    p.add_argument("--per-repo", type=int, default=8, help="operators drawn from each repository")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("-o", "--out", required=True, help="the list to write")
    args = p.parse_args()
    picked = []
    for repo in args.repo:
        root = Path(repo).resolve()
        ops = [rel for rel in find_operators(root) if has_kernel(root / rel)]
        rng = random.Random(f"{args.seed}:{root.name}")
        for rel in sorted(rng.sample(ops, min(args.per_repo, len(ops)))):
            picked.append(str(root / rel))
        print(f"{root.name}: {min(args.per_repo, len(ops))} of {len(ops)} operators", file=sys.stderr)
    Path(args.out).write_text("".join(f"{d}\n" for d in picked))


if __name__ == "__main__":
    main()
