#include "cli/latency_flags.h"

#include "cli/cli_parse.h"

namespace optrace::cli {

evidence::LatencyOptions LatencyFlags::Options() const {
  evidence::LatencyOptions opt = options;
  opt.unit = *evidence::ParseLatencyUnit(unit);  // CLI11 checked the spelling
  if (warmup >= 0) opt.warmup = warmup;
  if (clock_hz > 0) opt.clock_hz = clock_hz;
  return opt;
}

void AddLatencyFlags(CLI::App& app, LatencyFlags& f) {
  app.add_option("--warmup", f.warmup, "exclude the first N iterations (overrides the is_warmup column)")
      ->check(CLI::Range(0, 1000000000));
  app.add_option("--rank-col", f.options.rank_column, "rank column name")->capture_default_str();
  app.add_option("--iter-col", f.options.iteration_column, "iteration column name")->capture_default_str();
  app.add_option("--value-col", f.options.value_column, "latency column (default: elapsed_us, else elapsed_ms)");
  app.add_option("--unit", f.unit, "unit of --value-col")
      ->check(CLI::IsMember({"us", "ms", "ns", "cycles"}))
      ->capture_default_str();
  app.add_option("--clock-hz", f.clock_hz, "clock for --unit cycles when the file has no clock_hz column")
      ->check(FiniteRange(1e3, 1e11));
  app.add_option("--last-n", f.options.reference_last_n, "samples per rank in the reference mean")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
}

}  // namespace optrace::cli
