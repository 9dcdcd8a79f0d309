#!/usr/bin/python3
"""Writes a large torch_npu db export (ascend_pytorch_profiler_0.db) for the db reader benchmark.

Tables and columns as in the real TP-DB sample (FORMATS.md): STRING_IDS, TASK, COMPUTE_TASK_INFO,
TASK_PMU_INFO (28 PipeUtilization metrics per compute task, times in ns), COMMUNICATION_OP,
STEP_TIME, NPU_INFO. The same LLM-like step of kernels as generate_kernel_details.py.
Usage: generate_torch_db.py OUT_ROOT [TASKS=300000]   (stdlib only, deterministic)
OUT_ROOT gets rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db.
"""
import os
import random
import sqlite3
import sys

OPS = [  # name, type, core (TASK taskType), mean dur us, input shapes
    ("aclnnRmsNorm_RmsNormAiCore_RmsNorm", "RmsNorm", "AI_VECTOR_CORE", 32, '"1,4096,7168;7168"'),
    ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", 150, '"4096,7168;7168,2112"'),
    ("aclnnFusedInferAttentionScore_FusedInferAttentionScore", "FusedInferAttentionScore", "MIX_AIC", 880,
     '"1,4096,16,192;1,32768,1,576"'),
    ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", 120, '"4096,2048;2048,7168"'),
    ("aclnnGroupedMatmul_GroupedMatmul_GroupedMatmul", "GroupedMatmul", "MIX_AIC", 610, '"32768,7168;32,7168,4096"'),
    ("aclnnSwiGlu_SwiGlu_SwiGlu", "SwiGlu", "AI_VECTOR_CORE", 45, '"32768,4096"'),
    ("aclnnGroupedMatmul_GroupedMatmul_GroupedMatmul", "GroupedMatmul", "MIX_AIC", 560, '"32768,2048;32,2048,7168"'),
    ("aclnnAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE", 18, '"1,4096,7168;1,4096,7168"'),
]
METRICS = ["aic_total_time", "aic_total_cycles", "aic_mac_time", "aic_mac_ratio", "aic_scalar_time",
           "aic_scalar_ratio", "aic_mte1_time", "aic_mte1_ratio", "aic_mte2_time", "aic_mte2_ratio",
           "aic_fixpipe_time", "aic_fixpipe_ratio", "aic_icache_miss_rate", "aiv_total_time", "aiv_total_cycles",
           "aiv_vec_time", "aiv_vec_ratio", "aiv_mac_time", "aiv_mac_ratio", "aiv_scalar_time", "aiv_scalar_ratio",
           "aiv_mte1_time", "aiv_mte1_ratio", "aiv_mte2_time", "aiv_mte2_ratio", "aiv_mte3_time", "aiv_mte3_ratio",
           "aiv_icache_miss_rate"]


def main():
    root = sys.argv[1]
    tasks = int(sys.argv[2]) if len(sys.argv) > 2 else 300000
    out = os.path.join(root, "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "ascend_pytorch_profiler_0.db")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("""
      CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);
      CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,globalTaskId INTEGER,
        globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,taskId INTEGER,modelId INTEGER, depth integer);
      CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim INTEGER,mixBlockDim INTEGER,
        taskType INTEGER,opType INTEGER,inputFormats INTEGER,inputDataTypes INTEGER,inputShapes INTEGER,
        outputFormats INTEGER,outputDataTypes INTEGER,outputShapes INTEGER,attrInfo INTEGER, waitNs INTEGER);
      CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER,name INTEGER,value NUMERIC);
      CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId INTEGER,groupName INTEGER,
        opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType INTEGER,algType INTEGER,count NUMERIC,opType INTEGER,
        waitNs INTEGER);
      CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);
      CREATE TABLE NPU_INFO (id INTEGER,name TEXT);
    """)
    strings = {}

    def sid(v):
        if v not in strings:
            strings[v] = len(strings)
        return strings[v]

    rng = random.Random(11)
    ts = 1764246877073569640
    task_rows, compute_rows, pmu_rows, comm_rows, steps = [], [], [], [], []
    per_step = 600
    step = 1
    step_start = ts
    for g in range(tasks):
        name, typ, core, mean, shapes = OPS[g % len(OPS)]
        dur = int(mean * rng.uniform(0.9, 1.1) * 1000)
        ts += int(rng.uniform(1, 12) * 1000)
        task_rows.append((ts, ts + dur, 0, g, g, 1, sid("KERNEL_" + core), 4294967295, 2, g % 65535, 4294967295, 0))
        compute_rows.append((sid(name), g, 24, 48 if core == "MIX_AIC" else 0, sid(core), sid(typ), sid("ND"), sid("DT_BF16"),
                             sid(shapes), sid("ND"), sid("DT_BF16"), sid('"4096,2112"'), sid("N/A"), int(rng.uniform(1, 12) * 1000)))
        t = dur * 0.93
        for m in METRICS:
            aic = m.startswith("aic")
            if (aic and core == "AI_VECTOR_CORE") or (not aic and core == "AI_CORE"):
                v = 0
            elif m.endswith("_time"):
                v = t * rng.uniform(0.1, 0.8)
            elif m.endswith("_cycles"):
                v = int(t * 43.2)
            else:
                v = rng.uniform(0, 1)
            pmu_rows.append((g, sid(m), v))
        ts += dur
        if g % 10 == 9:  # an allreduce after every 10 kernels
            d = int(400 * rng.uniform(0.9, 1.1) * 1000)
            comm_rows.append((sid("hcom_allReduce__358_0_1"), ts, ts + d, g, sid("group"), len(comm_rows), 0, 0, 4,
                              sid("RING"), 4097000, sid("hcom_allReduce_"), 0))
            ts += d
        if g % per_step == per_step - 1:
            steps.append((step, step_start, ts))
            step += 1
            ts += int(rng.uniform(200, 400) * 1000)
            step_start = ts
        if len(pmu_rows) > 500000:
            db.executemany("INSERT INTO TASK_PMU_INFO VALUES (?,?,?)", pmu_rows)
            pmu_rows = []
    db.executemany("INSERT INTO TASK VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", task_rows)
    db.executemany("INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", compute_rows)
    db.executemany("INSERT INTO TASK_PMU_INFO VALUES (?,?,?)", pmu_rows)
    db.executemany("INSERT INTO COMMUNICATION_OP VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", comm_rows)
    db.executemany("INSERT INTO STEP_TIME VALUES (?,?,?)", steps)
    db.executemany("INSERT INTO STRING_IDS VALUES (?,?)", [(i, v) for v, i in strings.items()])
    db.execute("INSERT INTO NPU_INFO VALUES (0, 'Ascend910B')")
    db.commit()
    db.close()
    print("%s: %.1f MB, %d tasks" % (path, os.path.getsize(path) / 1048576.0, tasks))


if __name__ == "__main__":
    main()
