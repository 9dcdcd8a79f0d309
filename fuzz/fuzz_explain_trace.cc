// optrace explain on a Chrome / Perfetto JSON trace from the fuzz input: the span reader (SAX
// over the text), nesting and the whole explanation with its writers.
#include <sstream>

#include "explain/explain.h"
#include "explain/explain_html.h"
#include "explain/spans.h"
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_explain_trace) {
  using namespace optrace::explain;
  static const PhaseRules rules = [] {
    auto r = LoadPhaseRules("");
    return r.ok() ? std::move(r).value() : PhaseRules();
  }();
  auto set = ParseTraceSpans(optrace::fuzz::Bytes(data, size), "fuzz.json");
  if (!set.ok()) return 0;
  ComputeParents(*set);
  Explanation e = Explain(*set, rules, nullptr);
  std::ostringstream out;
  WriteExplainText(e, out);
  WriteExplainMarkdown(e, out);
  WriteExplainHtml(ExplanationJson(e), out);
  return 0;
}
