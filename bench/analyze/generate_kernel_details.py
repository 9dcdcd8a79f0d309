#!/usr/bin/python3
"""Writes a large, realistic torch_npu kernel_details.csv (46 columns) and a matching trace_view.json.

Rows follow the Level1 PipeUtilization header (FORMATS.md 3.1): an LLM-like step of attention /
MoE / allreduce kernels repeated over steps, tab-suffixed start times, triple-quoted shapes, N/A
pipeline fields on HCCL rows, CRLF line ends (as TP-L1). trace_view.json holds the ProfilerStep#N
markers plus one Ascend Hardware X event per kernel (ts as a string, like torch_npu).
Usage: generate_kernel_details.py OUT_DIR [SIZE_MB=1024] [--ranks N] [--no-trace-view] [--dense]
  --dense: the denser shape of a real Level1/Level2 export (torch_npu 2.7.1 keeps Device_id; the
           PMU tail with aic_mte3): 49 columns, the many short vector kernels of a training step
           (Cast, Mul, Add, ...), about 3,200 rows per MB instead of 2,900.
  --ranks N: a root of N rank folders (rank<i>_ascend_pt/ASCEND_PROFILER_OUTPUT/ + profiler_info_<i>.json),
             SIZE_MB each, every rank with its own durations; without it OUT_DIR is one export folder.
(stdlib only, deterministic)
"""
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

DENSE_HEADER = "Device_id," + HEADER.replace(
    "aic_mte2_time(us),aic_mte2_ratio,", "aic_mte2_time(us),aic_mte2_ratio,aic_mte3_time(us),aic_mte3_ratio,")

DENSE_OPS = [  # short elementwise kernels dominate a real training step's row count
    ("aclnnCast_CastAiCore_Cast", "Cast", "AI_VECTOR_CORE", 6, "4096,7168", "DT_BF16", "ND", "4096,7168"),
    ("aclnnMul_MulAiCore_Mul", "Mul", "AI_VECTOR_CORE", 9, "4096,7168;4096,1", "FLOAT;FLOAT", "ND;ND", "4096,7168"),
    ("aclnnAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE", 8, "4096,7168;4096,7168", "DT_BF16;DT_BF16", "ND;ND", "4096,7168"),
    ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", 150, "4096,7168;7168,2112", "DT_BF16;DT_BF16", "ND;ND", "4096,2112"),
    ("aclnnSilu_SiluAiCore_Silu", "Silu", "AI_VECTOR_CORE", 7, "4096,2048", "DT_BF16", "ND", "4096,2048"),
    ("aclnnMul_MulAiCore_Mul", "Mul", "AI_VECTOR_CORE", 9, "4096,2048;4096,2048", "DT_BF16;DT_BF16", "ND;ND", "4096,2048"),
    ("hcom_allReduce__358_0_1", "hcom_allReduce_", "HCCL", 400, "", "", "", ""),
    ("aclnnRmsNorm_RmsNormAiCore_RmsNorm", "RmsNorm", "AI_VECTOR_CORE", 32, "4096,7168;7168", "DT_BF16;DT_BF16", "ND;ND", "4096,7168;4096,1"),
    ("aclnnGroupedMatmul_GroupedMatmul_GroupedMatmul", "GroupedMatmul", "MIX_AIC", 610, "32768,7168;32,7168,4096", "DT_BF16;DT_BF16", "ND;ND", "32768,4096"),
    ("aclnnCast_CastAiCore_Cast", "Cast", "AI_VECTOR_CORE", 5, "4096,2048", "FLOAT", "ND", "4096,2048"),
]

OPS = [  # name, type, core, mean dur us, input shapes, dtypes, formats, output shapes
    ("aclnnRmsNorm_RmsNormAiCore_RmsNorm", "RmsNorm", "AI_VECTOR_CORE", 32, "1,4096,7168;7168", "DT_BF16;DT_BF16", "ND;ND", "1,4096,7168;1,4096,1"),
    ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", 150, "4096,7168;7168,2112", "DT_BF16;DT_BF16", "ND;ND", "4096,2112"),
    ("aclnnFusedInferAttentionScore_FusedInferAttentionScore_FusedInferAttentionScore", "FusedInferAttentionScore", "MIX_AIC", 880, "1,4096,16,192;1,32768,1,576;1,32768,1,576", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND", "1,4096,16,128"),
    ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", 120, "4096,2048;2048,7168", "DT_BF16;DT_BF16", "ND;ND", "4096,7168"),
    ("hcom_allReduce__358_0_1", "hcom_allReduce_", "HCCL", 400, "", "", "", ""),
    ("aclnnMoeGatingTopK_MoeGatingTopK_MoeGatingTopK", "MoeGatingTopK", "AI_VECTOR_CORE", 25, "4096,256;256", "DT_BF16;FLOAT", "ND;ND", "4096,8;4096,8"),
    ("aclnnGroupedMatmul_GroupedMatmul_GroupedMatmul", "GroupedMatmul", "MIX_AIC", 610, "32768,7168;32,7168,4096", "DT_BF16;DT_BF16", "ND;ND", "32768,4096"),
    ("aclnnSwiGlu_SwiGlu_SwiGlu", "SwiGlu", "AI_VECTOR_CORE", 45, "32768,4096", "DT_BF16", "ND", "32768,2048"),
    ("aclnnGroupedMatmul_GroupedMatmul_GroupedMatmul", "GroupedMatmul", "MIX_AIC", 560, "32768,2048;32,2048,7168", "DT_BF16;DT_BF16", "ND;ND", "32768,7168"),
    ("aclnnAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE", 18, "1,4096,7168;1,4096,7168", "DT_BF16;DT_BF16", "ND;ND", "1,4096,7168"),
]


def pipe(rng, core, dur, dense=False):
    if core == "HCCL":
        return "," .join(["N/A"] * (27 if dense else 25))
    t = dur * 0.93
    aic = core in ("AI_CORE", "MIX_AIC")
    aiv = core in ("AI_VECTOR_CORE", "MIX_AIC")
    v = []
    if aic:
        r = [rng.uniform(0.2, 0.8) for _ in range(6 if dense else 5)]
        v += ["%.3f" % t, str(int(t * 43200))]
        for x in r:
            v += ["%.3f" % (t * x), "%.3f" % x]
        v += ["%.3f" % rng.uniform(0, 0.05)]
    else:
        v += ["0.0", "0"] + ["0.0"] * (12 if dense else 10) + ["0.0"]
    if aiv:
        r = [rng.uniform(0.1, 0.8) for _ in range(4)]
        v += ["%.3f" % t, str(int(t * 86400))]
        for x in r:
            v += ["%.3f" % (t * x), "%.3f" % x]
        v += ["%.3f" % rng.uniform(0, 0.05)]
    else:
        v += ["0.0", "0"] + ["0.0"] * 8 + ["0.0"]
    v += ["%.3f" % (rng.uniform(10, 80) if aic else 0.0)]
    return ",".join(v)


def write_rank(out, size, seed, trace_view, dense=False):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    ts = 1764246877073569.640
    step = 1
    task = 1000
    written = 0
    steps = []
    kernels_per_step = 600
    csv_path = os.path.join(out, "kernel_details.csv")
    tv = open(os.path.join(out, "trace_view.json") if trace_view else os.devnull, "w")
    tv.write("[")
    first_tv = True
    with open(csv_path, "w", newline="") as f:
        line = (DENSE_HEADER if dense else HEADER) + "\r\n"
        ops = DENSE_OPS if dense else OPS
        device = "0," if dense else ""
        f.write(line)
        written += len(line)
        while written < size:
            step_start = ts
            buf = []
            for i in range(kernels_per_step):
                name, typ, core, mean, ish, dt, fm, osh = ops[i % len(ops)]
                dur = mean * rng.uniform(0.9, 1.1)
                wait = rng.uniform(1, 12)
                ts += wait
                task += 1
                if core == "HCCL":
                    row = "%d,4294967295,N/A,N/A,%s,%s,N/A,HCCL,%.3f\t,%.3f,%.3f,0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,%s" % (
                        step, name, typ, ts, dur, wait, pipe(rng, core, dur, dense))
                else:
                    row = ('%d,4294967295,%d,2,%s,%s,dynamic,%s,%.3f\t,%.3f,%.3f,24,%s,NO,"""%s""",%s,%s,"""%s""",%s,%s,N/A,%s'
                           % (step, task, name, typ, core, ts, dur, wait, "48" if core == "MIX_AIC" else "0", ish, dt, fm,
                              osh, dt.split(";")[0], fm.split(";")[0], pipe(rng, core, dur, dense)))
                buf.append(device + row + "\r\n")
                ev = '{"ph":"X","name":"%s","pid":800,"tid":2,"ts":"%.3f","dur":%.3f,"cat":"kernel","args":{"Task Type":"%s"}}' % (
                    name, ts, dur, core)
                tv.write(("" if first_tv else ",\n") + ev)
                first_tv = False
                ts += dur
            chunk = "".join(buf)
            f.write(chunk)
            written += len(chunk)
            steps.append((step, step_start, ts - step_start))
            ts += rng.uniform(200, 400)
            step += 1
    for s, start, dur in steps:
        tv.write(',\n{"ph":"X","name":"ProfilerStep#%d","pid":1,"tid":1,"ts":"%.3f","dur":%.3f,"cat":"cpu_op"}' % (
            s, start - 50, dur + 100))
    tv.write("]\n")
    tv.close()
    print("%s: %.1f MB, %d steps, %d rows" % (csv_path, written / 1048576.0, len(steps), len(steps) * kernels_per_step))


PROFILER_INFO = ('{"config": {"common_config": {"activities": ["CPU", "NPU"], "schedule": {"wait": 1, "warmup": 1, '
                 '"active": 1}}, "experimental_config": {"_profiler_level": "Level1", "_aic_metrics": '
                 '"PipeUtilization", "_export_type": ["text"]}}, "start_info": {"collectionTimeBegin": "1764246877073"}, '
                 '"end_info": {"collectionTimeEnd": "1764246977073"}, "rank_id": %d}\n')


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = sys.argv[1:]
    out = args[0]
    size = int(float(args[1]) * 1024 * 1024) if len(args) > 1 else 1 << 30
    trace_view = "--no-trace-view" not in flags
    dense = "--dense" in flags
    ranks = int(flags[flags.index("--ranks") + 1]) if "--ranks" in flags else 0
    if not ranks:
        write_rank(out, size, 7, trace_view, dense)
        return
    for r in range(ranks):
        rank_dir = os.path.join(out, "rank%d_ascend_pt" % r)
        write_rank(os.path.join(rank_dir, "ASCEND_PROFILER_OUTPUT"), size, 7 + r, trace_view, dense)
        with open(os.path.join(rank_dir, "profiler_info_%d.json" % r), "w") as f:
            f.write(PROFILER_INFO % r)


if __name__ == "__main__":
    main()
