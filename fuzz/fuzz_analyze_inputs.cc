// One file of a real-shaped profiler root replaced by the fuzz input, then analyze to the end.
// data[0] % 7 picks the file: kernel_details.csv, step_trace_time.csv, trace_view.json,
// communication.json, profiler_metadata.json, msprof op_summary, the torch_npu SQLite db.
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_analyze_inputs) {
  using namespace optrace::fuzz;
  Selected in = Select(data, size, 7);
  Scratch& s = Scratch::Fresh();
  const std::string out = "ASCEND_PROFILER_OUTPUT/";
  switch (in.selector) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4: {
      s.CopyFromSource("tests/data/analyze/tp_l0_text/rank0_ascend_pt", "root/rank0_ascend_pt");
      static const char* kFiles[] = {"kernel_details.csv", "step_trace_time.csv", "trace_view.json",
                                     "communication.json", "../profiler_metadata.json"};
      s.Write("root/rank0_ascend_pt/" + out + kFiles[in.selector], in.payload);
      break;
    }
    case 5:
      s.Write("root/PROF_001/mindstudio_profiler_output/op_summary_001.csv", in.payload);
      break;
    default:
      s.CopyFromSource("tests/data/analyze/tp_l0_db/rank0_ascend_pt/profiler_info_0.json",
                       "root/rank0_ascend_pt/profiler_info_0.json");
      s.Write("root/rank0_ascend_pt/" + out + "ascend_pytorch_profiler_0.db", in.payload);
      break;
  }
  Run({"analyze", s.Path("root"), "-o", s.Path("out")});
  return 0;
}
