// JSON a user edits: an instrument plan (--plan) and the analyze rules files (--rules).
// data[0] % 8: 0 = plan.json; 1..7 = one rules file (6, 7: the efficiency rules and hardware
// table, read by the report stage of a root with shapes).
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_plan_rules) {
  using namespace optrace::fuzz;
  Selected in = Select(data, size, 8);
  Scratch& s = Scratch::Fresh();
  if (in.selector == 0) {
    s.Write("op/op_kernel/k.cpp",
            "extern \"C\" __global__ __aicore__ void k(GM_ADDR x)\n{\n    for (int g = 0; g < 4; ++g) {\n"
            "        Work(x, g);\n        SyncAll();\n    }\n}\n");
    s.Write("plan.json", in.payload);
    Run({"instrument", "--op", s.Path("op"), "--plan", s.Path("plan.json"), "--dry-run"});
    return 0;
  }
  static const char* kRules[] = {"op_taxonomy.json", "segmentation_rules.json", "block_rules.json",
                                 "diagnosis_rules.json", "dixon_q95.json", "efficiency_rules.json",
                                 "hardware_peaks.json"};
  s.Write(std::string("rules/") + kRules[in.selector - 1], in.payload);
  s.CopyFromSource(in.selector >= 6 ? "tests/data/analyze/tp_l1_text" : "tests/data/analyze/tp_l0_text", "root");
  if (in.selector == 7)  // the table is read for a named part
    Run({"analyze", s.Path("root"), "--rules", s.Path("rules"), "-o", s.Path("out"), "--hardware-model", "Ascend910B2"});
  else
    Run({"analyze", s.Path("root"), "--rules", s.Path("rules"), "-o", s.Path("out")});
  return 0;
}
