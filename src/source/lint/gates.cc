// The seed's delivery gates, judged from lint's findings: G1 build hook, G2 output binding, G3
// full build (never provable statically: labels, compile safety and coverage are its
// pre-checks, the team's own OPP build is the final gate), G4 sample, G5 paths.
#include <fmt/format.h>

#include "source/lint/lint_context.h"

namespace optrace::source {

const char* GateStateName(GateState s) {
  switch (s) {
    case GateState::kSatisfied: return "satisfied";
    case GateState::kNotSatisfied: return "not satisfied";
    case GateState::kNotCheckable: return "not checkable statically";
  }
  return "?";
}

std::string_view GateOfRule(std::string_view rule) {
  const LintRule* r = FindLintRule(rule);
  return r ? std::string_view(r->gate) : std::string_view();
}

namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
  return out.empty() ? "the layers found" : out;
}

}  // namespace

std::vector<GateVerdict> JudgeGates(const std::vector<Diagnostic>& diagnostics, const GateFacts& facts, bool op) {
  std::vector<GateVerdict> gates;
  for (const char* title : {"build hook", "output binding", "full build", "sample", "paths"}) {
    GateVerdict g;
    g.id = fmt::format("G{}", gates.size() + 1);
    g.title = title;
    gates.push_back(std::move(g));
  }
  std::vector<size_t> errors(gates.size()), warnings(gates.size());
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    std::string_view g = GateOfRule(diagnostics[i].rule);
    if (g.size() != 2) continue;
    size_t k = static_cast<size_t>(g[1] - '1');
    if (k >= gates.size()) continue;
    gates[k].findings.push_back(i);
    if (diagnostics[i].severity == Severity::kError) ++errors[k];
    if (diagnostics[i].severity == Severity::kWarning) ++warnings[k];
  }
  auto set = [&](size_t k, GateState s, std::string reason) {
    gates[k].state = s;
    gates[k].reason = std::move(reason);
  };
  std::string scripts;
  for (const std::string& s : facts.build_scripts) scripts += (scripts.empty() ? "" : ", ") + s;
  std::string build = facts.build_scripts.empty() ? "the team's build script" : facts.build_scripts.front();

  // G1
  if (errors[0] > 0) {
    set(0, GateState::kNotSatisfied, fmt::format("{} finding(s) below", errors[0]));
  } else if (facts.build_scripts.empty()) {
    set(0, GateState::kNotCheckable,
        fmt::format("no build script (compile*.sh, build*.sh, CMakeLists.txt) in the tree; name it with --build-script, or run "
                    "'optrace hook verify --script <it>'{}",
                    facts.rewrite_only.empty()
                        ? ""
                        : fmt::format(". {} makes ids come only from rewriting: install the hook with --modify",
                                      facts.rewrite_only)));
  } else {
    set(0, GateState::kSatisfied,
        fmt::format("{} regenerates point_map.json on every build{}", scripts,
                    facts.rewrite_only.empty() ? "" : " and rewrites the marks into ids"));
  }
  // G2
  if (errors[1] > 0) {
    set(1, GateState::kNotSatisfied, fmt::format("{} finding(s) below", errors[1]));
  } else if (!op) {
    set(1, GateState::kNotCheckable, "lint the operator with --op DIR to check its binding layers");
  } else if (!facts.profiling_output) {
    set(1, GateState::kNotSatisfied,
        "no OpDef output or kernel parameter carries a profiling buffer yet; 'optrace instrument --op DIR' adds the "
        "chain (OpDef, infer, __global__, Init, adapters)");
  } else if (warnings[1] > 0 || !facts.binding_missing.empty()) {
    std::string missing;
    for (const std::string& m : facts.binding_missing) missing += (missing.empty() ? "" : ", ") + m;
    set(1, GateState::kNotCheckable,
        fmt::format("{} agree; {} not in the tree{}: check {} by hand, or lint the directory that holds it",
                    Join(facts.binding_checked), missing.empty() ? "some layers are" : missing,
                    warnings[1] > 0 ? fmt::format(" ({} finding(s) below)", warnings[1]) : "",
                    missing.empty() ? "them" : "it"));
  } else {
    set(1, GateState::kSatisfied,
        fmt::format("profiling is the last data output in {}, and the entry sets up and writes back the buffer",
                    Join(facts.binding_checked)));
  }
  // G3
  if (errors[2] > 0) {
    set(2, GateState::kNotSatisfied,
        fmt::format("{} static pre-check finding(s) below; after fixing them the final gate is {}", errors[2],
                    facts.build_scripts.empty() ? "the team's full OPP (and whl) build"
                                                : fmt::format("the full build: bash {}", build)));
  } else {
    set(2, GateState::kNotCheckable,
        fmt::format("labels, compile safety and coverage pass{}; the final gate is the team's full OPP (and whl) "
                    "build{}",
                    facts.compile_check.empty() ? "" : fmt::format(", and so do {}", facts.compile_check),
                    facts.build_scripts.empty() ? "" : fmt::format(": bash {}", build)));
  }
  // G4
  if (errors[3] > 0) {
    set(3, GateState::kNotSatisfied, fmt::format("{} finding(s) below", errors[3]));
  } else if (facts.samples == 0) {
    set(3, GateState::kNotCheckable,
        op ? "no Python sample under examples/ (or test_*.py, *_sample.py): add one that synchronizes and calls "
             "save_profiling_data"
           : "no Python sample among the paths; lint with --op DIR to read examples/");
  } else if (facts.saving_samples == 0) {
    set(3, GateState::kNotSatisfied,
        fmt::format("none of the {} Python file(s) calls save_profiling_data: the run leaves no profiling data",
                    facts.samples));
  } else {
    set(3, GateState::kSatisfied,
        fmt::format("{} sample(s) save the profiling output after a device synchronize", facts.saving_samples));
  }
  // G5
  if (errors[4] > 0) {
    set(4, GateState::kNotSatisfied, fmt::format("{} finding(s) below", errors[4]));
  } else if (facts.samples == 0) {
    set(4, GateState::kNotCheckable, "no Python sample to check");
  } else if (warnings[4] > 0) {
    set(4, GateState::kNotCheckable,
        fmt::format("{} spawn call(s) hand workers arguments lint cannot follow (finding(s) below): check by hand "
                    "that every path among them is resolved before the spawn",
                    warnings[4]));
  } else {
    set(4, GateState::kSatisfied,
        facts.spawning_samples > 0 ? "every path handed to spawned workers is resolved before the spawn"
                                   : "no sample hands paths to spawned workers");
  }
  return gates;
}

}  // namespace optrace::source
