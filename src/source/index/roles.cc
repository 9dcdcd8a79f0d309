#include "source/index/roles.h"

#include <algorithm>
#include <cctype>

#include "source/index/words.h"

namespace optrace::source::index {
namespace {

std::string Lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsIndexWord(const std::string& lower) {
  for (const char* w : {"aivid", "aividx", "aivindex", "vecidx", "vectoridx", "vectorblockidx", "vecblockidx",
                        "subblockidx", "subblockid", "coreidx", "coreid", "blockidx", "aicoreidx", "getsubblockidx",
                        "getblockidx", "get_subblockid", "get_block_idx", "role", "aivrole", "corerole"}) {
    if (lower == w) return true;
  }
  return false;
}

// Identifiers of a text, in order.
std::vector<std::string> Identifiers(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      size_t k = j;
      while (k < text.size() && text[k] == ' ') ++k;
      if (text.substr(k, 2) != "::") out.emplace_back(text.substr(i, j - i));  // namespaces are not names
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

bool IsIndexName(std::string_view id) {
  std::string l = Lower(id);
  while (!l.empty() && l.back() == '_') l.pop_back();
  return IsIndexWord(l);
}

// Words that only say "count of cores" or "index".
bool Filler(const std::string& w) {
  for (const char* f : {"core", "cores", "num", "number", "cnt", "count", "idx", "id", "index", "start", "end",
                        "begin", "size", "total", "aiv", "aic", "vec", "block", "sub", "max", "min", "get", "len"}) {
    if (w == f) return true;
  }
  return false;
}

}  // namespace

std::string RoleWordOf(std::string_view name) {
  std::vector<std::string> words = SplitWords(name);
  std::string out;
  for (const std::string& w : words) {
    if (Filler(w)) continue;
    bool number = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (number) continue;
    out += (out.empty() ? "" : "-") + w;
  }
  return out;
}

bool ReadsCoreIndex(std::string_view condition) {
  for (const std::string& id : Identifiers(condition))
    if (IsIndexName(id)) return true;
  return false;
}

namespace {

// The else control of an if, -1 if none.
int ElseOf(const FunctionBody& body, int control) {
  for (size_t i = static_cast<size_t>(control) + 1; i < body.controls.size(); ++i)
    if (body.controls[i].kind == Control::kElse && body.controls[i].else_of == control) return static_cast<int>(i);
  return -1;
}

// An `else` whose statement is `if ...` (else-if): the nested if names its own role.
bool IsElseIf(const FunctionBody& body, int el) {
  for (size_t i = static_cast<size_t>(el) + 1; i < body.controls.size(); ++i)
    if (body.controls[i].parent == el) return body.controls[i].kind == Control::kIf && body.controls[i].else_of >= 0;
  return false;
}

// The role word of a comparand: a count or bound of cores (`sendCoreNum`, `kRecvCore`,
// `SEND_CORE_CNT`), with the filler words removed; "" for anything else.
std::string ComparandWord(const std::string& id) {
  bool bound = false;
  for (const std::string& w : SplitWords(id))
    if (w == "core" || w == "cores" || w == "num" || w == "cnt" || w == "count" || w == "idx" || w == "id")
      bound = true;
  if (!bound) return "";
  // Words of a data partition (needCoreNum, realCoreNum, tailCoreNum), not of a role.
  std::string w = RoleWordOf(id);
  for (const std::string& x : SplitWords(w)) {
    static const char* kPartition[] = {"need", "real", "used", "use", "valid", "active", "tail", "front", "remain",
                                       "last", "first", "former", "latter", "big", "small", "all", "task", "loop",
                                       "per", "ub", "data", "work", "calc"};
    bool partition = false;
    for (const char* p : kPartition) partition = partition || x == p;
    if (!partition) return w;
  }
  return "";
}

}  // namespace

std::string RoleOfControl(const FunctionBody& body, const TokenStream& s, int control,
                          const std::function<std::string(int)>& main_call) {
  if (control < 0 || static_cast<size_t>(control) >= body.controls.size()) return "";
  const Control& c = body.controls[static_cast<size_t>(control)];
  if (c.kind == Control::kCase) {
    const Control& sw = body.controls[static_cast<size_t>(c.parent)];
    if (sw.kind != Control::kSwitch || !ReadsCoreIndex(s.Join(sw.head_begin, sw.head_end))) return "";
    std::vector<std::string> ids = Identifiers(s.Join(c.head_begin, c.head_end));
    std::string w = ids.empty() ? "" : RoleWordOf(ids.back());
    return w.empty() ? main_call(control) : w;
  }
  // Roles split the cores between different work: an if with an else, both doing work.
  std::function<bool(int)> is_role_if = [&](int iff) {
    const Control& x = body.controls[static_cast<size_t>(iff)];
    if (x.kind != Control::kIf || !ReadsCoreIndex(s.Join(x.head_begin, x.head_end))) return false;
    if (main_call(iff).empty()) return false;
    int el = ElseOf(body, iff);
    if (el >= 0 && !main_call(el).empty()) return true;
    // `else if` in a chain whose head splits the cores.
    return x.else_of >= 0 && x.else_of != iff && is_role_if(x.else_of);
  };
  if (c.kind == Control::kElse) {
    if (c.else_of < 0 || IsElseIf(body, control)) return "";
    // The last else of a chain: the chain's first if decides whether these are roles.
    int first = c.else_of;
    while (body.controls[static_cast<size_t>(first)].else_of >= 0) first = body.controls[static_cast<size_t>(first)].else_of;
    if (!is_role_if(c.else_of) && !is_role_if(first)) return "";
    return main_call(control);
  }
  if (c.kind != Control::kIf || !is_role_if(control)) return "";
  // A role enum value: `ctx.Role() == AivRole::kSend`.
  std::string cond = s.Join(c.head_begin, c.head_end);
  size_t q = cond.rfind("Role::");
  if (q == std::string::npos) q = cond.rfind("ROLE::");
  if (q != std::string::npos) {
    std::vector<std::string> ids = Identifiers(cond.substr(q + 6));
    std::string w = ids.empty() ? "" : RoleWordOf(ids.front());
    if (!w.empty()) return w;
  }
  std::vector<std::string> ids = Identifiers(cond);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (IsIndexName(ids[i])) continue;
    std::string w = ComparandWord(ids[i]);
    if (w.empty()) continue;
    // A cumulative bound `aivIdx < sendCoreNum + recvCoreNum` adds the last count's cores.
    std::string last = ids[i];
    for (size_t j = i + 1; j < ids.size(); ++j) {
      size_t at = cond.find(last), next = cond.find(ids[j], at == std::string::npos ? 0 : at + last.size());
      if (at == std::string::npos || next == std::string::npos) break;
      std::string between = cond.substr(at + last.size(), next - at - last.size());
      if (between.find_first_not_of(" +") != std::string::npos || between.find('+') == std::string::npos) break;
      if (std::string x = ComparandWord(ids[j]); !x.empty()) w = x;
      last = ids[j];
    }
    return w;
  }
  return main_call(control);
}

}  // namespace optrace::source::index
