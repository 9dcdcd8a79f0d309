"""Runs moe_dispatch_combine on N NPUs and saves each rank's profiling output (seed 000, step 7).

    python moe_dispatch_combine_sample.py --world_size 2 --profiling_dir dumps \
        --point_map build/point_map.json --chrome_trace trace.json

Gates: the device is synchronised before save_profiling_data (G4); every path is resolved in the
parent, before multiprocessing spawn, so workers never resolve against another directory (G5).
"""
import argparse
import subprocess
from pathlib import Path

import torch
import torch.multiprocessing as mp
import torch_npu  # noqa: F401  (registers the NPU device)

from optrace import save_profiling_data

TOKENS, HIDDEN, GROUPS = 64, 32, 4


def run_rank(rank, world_size, profiling_dir):
    torch_npu.npu.set_device(rank)
    x = torch.randn(TOKENS, HIDDEN).npu()
    expert_ids = torch.randint(0, world_size * GROUPS, (TOKENS,), dtype=torch.int32).npu()
    weight = torch.randn(GROUPS, 2, HIDDEN, HIDDEN).npu()
    windows = torch.zeros(1 << 20, dtype=torch.int32).npu()
    outs = torch.ops.custom.moe_dispatch_combine(x, expert_ids, weight, windows, rank, world_size, GROUPS)
    *main_outputs, profiling = outs if len(outs) == 2 else (*outs, None)
    torch_npu.npu.synchronize()
    if profiling_dir is not None and profiling is not None:
        save_profiling_data(profiling, rank, profiling_dir)
    return main_outputs


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--world_size", type=int, default=2)
    parser.add_argument("--profiling_dir", default=None, help="where rank<N>.bin go")
    parser.add_argument("--point_map", default=None, help="point_map.json of the installed kernel")
    parser.add_argument("--chrome_trace", default="chrome_trace.json")
    args = parser.parse_args()

    profiling_dir = Path(args.profiling_dir).expanduser().resolve() if args.profiling_dir else None
    point_map = Path(args.point_map).expanduser().resolve() if args.point_map else None
    chrome_trace = Path(args.chrome_trace).expanduser().resolve()

    mp.spawn(run_rank, args=(args.world_size, profiling_dir), nprocs=args.world_size, join=True)

    if profiling_dir is not None and point_map is not None:
        subprocess.run(["optrace", "collect", str(profiling_dir), "--map", str(point_map), "-o", str(chrome_trace)],
                       check=True)


if __name__ == "__main__":
    main()
