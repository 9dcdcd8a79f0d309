// Words of plan labels taken from the code: hot-semantic calls, group/stage loops, index
// parameters, and the data a plain loop writes.
//
//   HotWord("CrossCoreWaitFlag") == "wait-flag";  HotWord("GetValue") == "";
//   GroupWord(tokens, head_begin, head_end) == "group"   // for (g = 0; g < ctx_.groups; ...)
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "source/code_structure.h"
#include "source/lexer.h"

namespace optrace::source {

bool Contains(const std::string& s, std::initializer_list<const char*> words);
std::string Lower(std::string s);
// The hot-semantic word of a callee (wait, sync, send, recv, copy, quant, notify), "" if none.
std::string HotWord(const std::string& name);
// "expert", "group" or "stage" when a variable of the loop head (not a call) names one, else "".
std::string GroupWord(const std::vector<Token>& t, size_t begin, size_t end);
// An index parameter of that kind: group, groupIdx, expert_id, stageId (not expertIds).
bool IsIndexName(const std::string& name, const char* what);
// A plain loop's word: "mmad" for a multiply-accumulate, the field it writes
// (ws.routeWeight -> "route-weight"), else "load-<tensor>" it reads, else "loop".
std::string DataWord(const std::vector<Token>& t, const Block& b, const std::string& var);

}  // namespace optrace::source
