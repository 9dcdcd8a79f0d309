// Words of plan labels, taken from the code: function and class names (suffixes such as
// Func/Impl/Kernel dropped, long names cut at "and"), hot-semantic calls, group/stage loops,
// and what a plain loop writes.
//
//   NameWord("GmmDeqSwigluQuant") == "gmm-deq-swiglu-quant";  HotWord("CrossCoreWaitFlag") == "wait-flag"
//   LoopGroupWord({"groupIdx"}) == "group"
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace optrace::source {

// A label word from a code name: lowercase words joined by '-', trailing Func/Impl/Kernel/Op
// dropped, at most 4 words (a longer name is cut before its first "and"/"then", else after 4).
std::string NameWord(std::string_view name);
// Words of a name (see index::SplitWords), suffixes dropped.
std::vector<std::string> NameWords(std::string_view name);
// The hot-semantic word of an external call (sync-all, wait-flag, set-flag, batch-write, ...),
// "" when the call is not a synchronisation or communication primitive.
std::string HotWord(std::string_view name);
// Whether a function name says it sets something up (`QuantInit`, `InitSyncBuffer`, `BuffInit`,
// `ResetState`): its first or last word is init/setup/config/alloc/reset.
bool IsSetUpName(std::string_view name);
// Whether a function name carries one of seed 000's hot semantics (wait, sync, send, recv,
// copy, quant, dequant): such functions keep their own range. Set-up names carry none.
std::string HotNameWord(std::string_view name);
// "group", "expert" or "stage" when a loop variable or bound names one, else "".
std::string LoopGroupWord(const std::vector<std::string>& identifiers);
// An index parameter of that kind: group, groupIdx, expert_id, stageId (not expertIds).
bool IsIndexName(const std::string& name, const char* what);
// Integer types a MoeTracing index may come from.
bool IsIntegerType(std::string_view type);

}  // namespace optrace::source
