// AIV roles: in 1C2V kernels the vector cores often split into roles (send / receive /
// compute / batch-write core) by branching on the AIV index. A role branch compares an index of
// the running core (`aivIdx`, `aivId_`, `coreIdx`, `GetSubBlockIdx()`, `GetBlockIdx()`,
// `vectorBlockIdx`) with a count or constant (`sendCoreNum`, `0`), or switches on a role enum,
// and does work of its own (a branch that only returns or adjusts a number is a data split,
// not a role). Role names come from the code: the count it compares with (`sendCoreNum` ->
// "send"), the enum case (`AivRole::kRecv` -> "recv"), else the main call of the branch
// (`DispatchBetweenServer()` -> "dispatch-between-server"); never a made-up word.
//
//   std::string r = RoleOfControl(body, stream, control, main_call_word);
#pragma once

#include <functional>
#include <string>

#include "source/index/model.h"

namespace optrace::source::index {

// True when a condition text reads an index of the running (vector) core.
bool ReadsCoreIndex(std::string_view condition);

// The role a control selects, "" when it is not a role branch. `main_call` gives the word of
// the main call inside a control's body ("" if none); it names roles whose comparand says
// nothing (`aivId_ == 0`).
std::string RoleOfControl(const FunctionBody& body, const TokenStream& s, int control,
                          const std::function<std::string(int control)>& main_call);

// "sendCoreNum" -> "send", "kRecvCore" -> "recv", "SERVER_RANK_SIZE" -> "server-rank"; "" when
// nothing is left (a number, "coreNum").
std::string RoleWordOf(std::string_view name);

}  // namespace optrace::source::index
