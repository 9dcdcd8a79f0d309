// compare: what changed between two analyses of the same job (optrace compare A B).
//
//   CompareOptions opt;
//   opt.a = "runs/before";  opt.b = "runs/after";   // profiling roots, or OUT dirs of optrace analyze
//   opt.out_dir = "cmp";                              // compare.md, compare.json, compare.html
//   OPTRACE_ASSIGN_OR_RETURN(CompareResult c, RunCompare(opt));
//
// Deltas per operator (rank-merged by name: a Level0 export has no types), per HCCL kind, per rank (step wall)
// and per step class (matched by shape signature): the mean per step on each side, absolute and
// relative change, and whether it exceeds run-to-run noise: |delta| > noise_k x the standard error
// of the difference, from the step-to-step spread of each side (per rank and step samples). Too
// few samples to estimate the noise (fewer than min_samples per side): never significant. Findings that appeared or disappeared
// (by type and rank). Incomparable inputs are refused with the reason: another rank count, or no
// operator in common between captures of more than two operators (kernel runs compare by step).
// An analyze OUT directory without stage files is analyzed again from the roots its summary names.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analyze/model/model.h"
#include "core/status.h"

namespace optrace::analyze::report {

struct CompareOptions {
  std::filesystem::path a, b;
  std::filesystem::path out_dir;  // empty: nothing written
  double noise_k = 3.0;
  double min_relative = 0.01;     // changes below 1% are never called significant
  // Fewer samples on either side are never called significant: a standard error from 2 or 3
  // samples is itself off by a factor of several, so "beyond the noise" would be a guess.
  int min_samples = 5;
};

struct CompareRow {
  std::string kind;  // operator, hccl_kind, rank, step_class
  std::string key;
  double a = kMissing, b = kMissing;  // mean per step (us; step wall in ms for rank / step_class)
  double delta = kMissing, relative = kMissing;
  double noise = kMissing;  // noise_k x standard error of the difference; NaN: not enough samples
  bool significant = false;
  int samples_a = 0, samples_b = 0;
};

struct CompareResult {
  std::vector<CompareRow> rows;  // significant first, then by |delta|
  std::vector<std::string> appeared, disappeared;  // "type (rank r)"
  // Findings of one side read from a table the other side's export does not carry (api_statistic.csv
  // of a text export, a db's HCCL task rows): neither appeared nor gone, "type (rank r): why".
  std::vector<std::string> not_comparable;
  std::vector<std::string> notes;  // how an input was read, what could not be compared
  std::filesystem::path markdown, json, html;
};

Result<CompareResult> RunCompare(const CompareOptions& options);

}  // namespace optrace::analyze::report
