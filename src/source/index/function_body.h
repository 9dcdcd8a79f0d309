// Reads one function body on the index's token stream: its controls (if/else, loops, switch
// cases, braceless bodies included), local declarations and aliases (block-scoped, so the same
// alias name may mean different types in two branches), lambdas (named ones become callable by
// their variable; ones passed as arguments run where they are passed), and every call with the
// control it sits in.
//
//   std::vector<std::unique_ptr<FunctionDef>> lambdas;
//   ParseBody(fn, &lambdas);               // fills fn.body; new lambda definitions go to `lambdas`
//   for (const CallSite& c : fn.body->calls) ...
#pragma once

#include <memory>
#include <vector>

#include "source/index/model.h"

namespace optrace::source::index {

// Parses fn's body once (no-op when fn.body is set). Lambdas found are appended to `lambdas`.
void ParseBody(const FunctionDef& fn, std::vector<std::unique_ptr<FunctionDef>>* lambdas);

// int, uint32_t, float, half, size_t, ...: types whose objects are never constructed by a call.
bool IsFundamentalType(std::string_view name);

}  // namespace optrace::source::index
