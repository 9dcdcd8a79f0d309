// The latency input flags shared by `optrace latency` and `optrace report --latency`, so that a
// CSV read by one is read the same way by the other.
//
//   LatencyFlags flags;
//   AddLatencyFlags(app, flags);            // --warmup --rank-col --iter-col --value-col ...
//   if (auto rc = ParseCommandLine(app, args, io)) return *rc;
//   evidence::LatencyOptions opt = flags.Options();
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "evidence/latency/latency.h"

namespace optrace::cli {

struct LatencyFlags {
  evidence::LatencyOptions options;  // column names and --last-n are written here directly
  int64_t warmup = -1;
  std::string unit = "us";
  double clock_hz = 0;
  // The options with --warmup, --unit and --clock-hz applied.
  evidence::LatencyOptions Options() const;
};

// Adds --warmup, --rank-col, --iter-col, --value-col, --unit, --clock-hz and --last-n.
void AddLatencyFlags(CLI::App& app, LatencyFlags& flags);

}  // namespace optrace::cli
