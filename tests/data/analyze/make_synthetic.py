#!/usr/bin/env python3
"""Writes synthetic_8rank/: a torch_npu text export of 8 ranks x 5 steps with two planted problems.

Planted (tests/analyze/diagnose/diagnose_test.cc checks that exactly these findings come out):
  * slow rank: rank 5 launches every step 600 us late, so at the first allreduce of each step
    the other ranks wait for it and its allreduce is the shortest (5 of 15 collectives).
  * recurring bubble: rank 2 idles 1.5 ms after the last allreduce of steps 10..13 (4 of 5
    complete steps); it catches up in the inter-step gap, so its arrivals are not late.
Everything else is uniform: 3 layers per step (FusedInferAttentionScore anchors), identical
shapes (one step class), jitter of a few microseconds.
Usage: python3 make_synthetic.py [OUT_DIR [RANKS]]   (stdlib only; deterministic; RANKS default 8, the
committed sample: more ranks only for looking at the report's plots at scale)
"""
import json
import os
import random
import sys

HEADER = ("Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
          "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,"
          "Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,"
          "aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,"
          "aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,"
          "aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,"
          "aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,"
          "cube_utilization(%)")

RANKS = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 8
STEPS = list(range(10, 15))
BASE_US = 1736400000000000.0
STEP_PERIOD_US = 68000.0
SLOW_RANK, SLOW_US = 5, 600.0
BUBBLE_RANK, BUBBLE_US, BUBBLE_STEPS = 2, 1500.0, {10, 11, 12, 13}

# (name, type, core, duration us, shapes, bound) per layer; None marks the allreduce.
HEAD = [("RmsNorm_0", "RmsNorm", "AI_VECTOR_CORE", 900, "1,4096,7168", "vec"),
        ("MatMulV2_qkv", "MatMulV2", "AI_CORE", 1800, "4096,7168;7168,2048", "mac")]
LAYER = [("FusedInferAttentionScore", "FusedInferAttentionScore", "MIX_AIC", 4200, "1,4096,2048;1,32768,512", "mac"),
         ("MatMulV2_o_proj", "MatMulV2", "AI_CORE", 1700, "4096,2048;2048,7168", "mac"),
         None,
         ("RmsNorm_1", "RmsNorm", "AI_VECTOR_CORE", 900, "1,4096,7168", "vec"),
         ("MoeGatingTopK", "MoeGatingTopK", "AI_VECTOR_CORE", 600, "4096,256", "vec"),
         ("GroupedMatmul_up", "GroupedMatmul", "MIX_AIC", 3900, "4096,7168;8,7168,4096", "mte2"),
         ("SwiGlu", "SwiGlu", "AI_VECTOR_CORE", 800, "4096,4096", "vec"),
         ("GroupedMatmul_down", "GroupedMatmul", "MIX_AIC", 3600, "4096,2048;8,2048,7168", "mte2"),
         ("RmsNorm_0", "RmsNorm", "AI_VECTOR_CORE", 900, "1,4096,7168", "vec"),
         ("MatMulV2_qkv", "MatMulV2", "AI_CORE", 1800, "4096,7168;7168,2048", "mac")]
TAIL = [("MatMulV2_lm_head", "MatMulV2", "AI_CORE", 2500, "4096,7168;7168,16384", "mac"),
        ("SoftmaxV2", "SoftmaxV2", "AI_VECTOR_CORE", 700, "4096,16384", "vec")]
LAYERS = 3
GAP_US = 8.0          # launch gap between kernels
ALLREDUCE_US = 800.0  # transfer part of the allreduce once everyone arrived


def pmu(core, dur, bound):
    """46-column tail: pipeline fields consistent with the bound."""
    na = ["N/A"] * 25
    if core == "HCCL":
        return na
    aic = core in ("AI_CORE", "MIX_AIC")
    aiv = core in ("AI_VECTOR_CORE", "MIX_AIC")
    t = dur * 0.95
    f = {}
    if aic:
        mac, mte2 = (0.7, 0.3) if bound == "mac" else (0.35, 0.8)
        f.update(aicore=t, aic_cycles=int(t * 1800 * 24), mac=t * mac, scalar=t * 0.1, mte1=t * 0.2, mte2=t * mte2,
                 fixpipe=t * 0.1)
    if aiv:
        vec = 0.75 if bound == "vec" else 0.3
        f.update(aiv=t, aiv_cycles=int(t * 1800 * 48), vec=t * vec, vscalar=t * 0.1, vmte2=t * 0.4, vmte3=t * 0.2)

    def tr(key, total_key):
        if key not in f:
            return ["0.0", "0.0"]
        return ["%.3f" % f[key], "%.3f" % (f[key] / f[total_key])]
    out = ["%.3f" % f.get("aicore", 0.0), str(f.get("aic_cycles", 0))]
    for k in ("mac", "scalar", "mte1", "mte2", "fixpipe"):
        out += tr(k, "aicore")
    out += ["0.01" if aic else "0.0"]
    out += ["%.3f" % f.get("aiv", 0.0), str(f.get("aiv_cycles", 0))]
    for k in ("vec", "vscalar", "vmte2", "vmte3"):
        out += tr(k, "aiv")
    out += ["0.02" if aiv else "0.0", "%.3f" % (50.0 if aic else 0.0)]
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                  "synthetic_8rank")
    rng = random.Random(20260611)
    rows = {r: [] for r in range(RANKS)}
    task = {r: 1000 for r in range(RANKS)}

    def emit(r, step, op, start, dur, wait):
        name, typ, core, _, shapes, bound = op
        task[r] += 1
        tid, sid = (str(task[r]), "2") if core != "HCCL" else ("N/A", "N/A")
        blk, mix = ("24", "48" if core == "MIX_AIC" else "0") if core != "HCCL" else ("0", "N/A")
        shp = '"""%s"""' % shapes if shapes else "N/A"
        row = [str(step), "4294967295", tid, sid, name, typ, "dynamic" if core != "HCCL" else "N/A", core,
               "%.3f\t" % start, "%.3f" % dur, "%.3f" % wait, blk, mix, "NO" if core != "HCCL" else "N/A",
               shp, "DT_BF16" if shapes else "N/A", "ND" if shapes else "N/A", shp,
               "DT_BF16" if shapes else "N/A", "ND" if shapes else "N/A", "N/A"] + pmu(core, dur, bound)
        rows[r].append((start, ",".join(row)))

    for si, step in enumerate(STEPS):
        t0 = BASE_US + si * STEP_PERIOD_US
        cur = {r: t0 + (SLOW_US if r == SLOW_RANK else 0.0) + rng.uniform(0, 3) for r in range(RANKS)}
        last_end = {r: None for r in range(RANKS)}

        def run(r, op):
            start = cur[r]
            dur = op[3] * (1 + rng.uniform(-0.002, 0.002))
            emit(r, step, op, start, dur, 0.0 if last_end[r] is None else start - last_end[r])
            last_end[r] = start + dur
            cur[r] = start + dur + GAP_US + rng.uniform(0, 4)

        for r in range(RANKS):
            for op in HEAD:
                run(r, op)
        for layer in range(LAYERS):
            for op in LAYER:
                if op is not None:
                    for r in range(RANKS):
                        run(r, op)
                    continue
                # allreduce: each rank enters on arrival, all leave together.
                done = max(cur.values()) + ALLREDUCE_US + rng.uniform(0, 5)
                name = "hcom_allReduce__358_%d_1" % layer
                for r in range(RANKS):
                    start = cur[r]
                    op_ar = (name, "hcom_allReduce_", "HCCL", 0, "", "")
                    emit(r, step, op_ar, start, done - start, start - last_end[r])
                    last_end[r] = done
                    cur[r] = done + GAP_US + rng.uniform(0, 4)
        for r in range(RANKS):
            if r == BUBBLE_RANK and step in BUBBLE_STEPS:
                cur[r] += BUBBLE_US
            for op in TAIL:
                run(r, op)

    for r in range(RANKS):
        d = os.path.join(out_dir, "node0_%d_20260611120000000_ascend_pt" % (4000 + r))
        os.makedirs(os.path.join(d, "ASCEND_PROFILER_OUTPUT"), exist_ok=True)
        with open(os.path.join(d, "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"), "w", newline="") as f:
            f.write(HEADER + "\n")
            for _, line in sorted(rows[r]):
                f.write(line + "\n")
        info = {"config": {"experimental_config": {"_profiler_level": "Level1",
                                                   "_aic_metrics": "ACL_AICORE_PIPE_UTILIZATION",
                                                   "_export_type": ["text"]}},
                "rank_id": r, "torch_npu_version": "2.7.1", "cann_version": "8.3.RC1"}
        with open(os.path.join(d, "profiler_info_%d.json" % r), "w") as f:
            json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
