#include "cli/command.h"
#include "cli/commands.h"

namespace optrace::cli {

const std::vector<CommandInfo>& AllCommands() {
  static const std::vector<CommandInfo> kCommands = {
      {"demo", "run the example MoE operator in the emulator and collect its trace", RunDemoCommand},
      {"collect", "turn profiling dumps into a Chrome/Perfetto trace and statistics", RunCollectCommand},
      {"inspect", "show what each slot of a profiling dump holds", RunInspectCommand},
      {"scan", "find trace points in sources and write point_map.json", RunScanCommand},
      {"lint", "check instrumentation and operator binding statically", RunLintCommand},
      {"hook", "install, verify or remove the scan step in a build script", RunHookCommand},
      {"plan", "propose trace points for an operator", RunPlanCommand},
      {"instrument", "insert (or remove) the trace points of a plan", RunInstrumentCommand},
      {"headers", "write optrace's device API as one header into an operator tree", RunHeadersCommand},
      {"analyze", "analyze Ascend profiler output into summaries and findings", RunAnalyzeCommand},
      {"sweep", "analyze many profiling roots and write a rollup", RunSweepCommand},
      {"compare", "what changed between two runs of the same job, beyond noise", RunCompareCommand},
      {"latency", "per-iteration, per-rank latency statistics", RunLatencyCommand},
      {"pipe", "per-role summaries of msprof op pipeline metrics", RunPipeCommand},
      {"stall", "PC-sampling stall reason shares", RunStallCommand},
      {"timeline", "pipe busy time, MTE/compute overlap and ICache misses from msOpProf timelines", RunTimelineCommand},
      {"report", "write the dispatch-kernel evidence report", RunReportCommand},
      {"env", "record the machine, toolkit, tools and build of a run (evidence report section 1)", RunEnvCommand},
      {"explain", "where the time goes inside a kernel: phases, categories, core groups, overlap, diagnosis", RunExplainCommand},
      {"join", "a kernel's phases inside its own task slices of a profiler capture of the same run", RunJoinCommand},
      {"samples", "write sample inputs of every kind optrace reads into a folder", RunSamplesCommand},
      {"skills", "list, show or install the agent skills optrace ships", RunSkillsCommand},
  };
  return kCommands;
}

}  // namespace optrace::cli
