// Operator calculation on shape text from the export: four lines (op type, input shapes, output
// shapes, input dtypes) go to ModelOpCost, then the same shapes under every modelled family's
// first op type. What it finds: crashes and sanitizer reports on shape text no real export writes
// (huge dims, odd separators, empty slots).
#include <string>

#include "analyze/cost/op_cost.h"
#include "analyze/rules/rules.h"
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_op_cost) {
  static const optrace::analyze::Rules rules = [] {
    auto r = optrace::analyze::LoadRules("");
    return r.ok() ? std::move(r).value() : optrace::analyze::Rules();
  }();
  std::string text = optrace::fuzz::Bytes(data, size);
  std::string field[4];
  size_t at = 0;
  for (int i = 0; i < 4; ++i) {
    size_t nl = text.find('\n', at);
    field[i] = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  optrace::analyze::ModelOpCost(rules.efficiency.cost, field[0], field[1], field[2], field[3]);
  for (const char* type : {"MatMulV2", "GroupedMatmul", "FlashAttentionScore", "FlashAttentionScoreGrad", "Add"})
    optrace::analyze::ModelOpCost(rules.efficiency.cost, type, field[1], field[2], field[3]);
  return 0;
}
