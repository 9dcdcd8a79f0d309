#include "source/plan/plan_words.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "source/plan/code_index.h"
#include "source/trace_calls.h"

namespace optrace::source {
namespace {

bool Code(const Token& t) { return t.active && !t.in_directive; }

}  // namespace

bool Contains(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s.find(w) != std::string::npos) return true;
  return false;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The hot-semantic word of a callee name ("CrossCoreWaitFlag" -> "wait-flag"), "" when it has none.
std::string HotWord(const std::string& name) {
  std::string k = KebabCase(name);
  if (Contains(k, {"pipe-barrier", "cache-clean", "set-value", "get-value", "global-buffer"})) return "";
  if (!Contains(k, {"wait", "sync", "send", "recv", "receive", "copy", "quant", "notify", "set-flag"})) return "";
  if (k.starts_with("cross-core-")) k = k.substr(11);
  return k;
}

// Word of a loop over expert groups or stages ("group" for `g < ctx_.groups`), "" for other
// loops. Only variables count, as whole words: `i < GroupCapacity()` is not a group loop.
std::string GroupWord(const std::vector<Token>& t, size_t begin, size_t end) {
  for (const char* want : {"expert", "group", "stage"}) {
    for (size_t k = begin; k < end && k + 1 < t.size(); ++k) {
      if (t[k].kind != TokenKind::kIdentifier || t[k + 1].Is("(")) continue;
      std::string words = "-" + KebabCase(std::string(t[k].text)) + "-";
      if (words.find(std::string("-") + want + "-") != std::string::npos ||
          words.find(std::string("-") + want + "s-") != std::string::npos)
        return want;
    }
  }
  return "";
}

// An index parameter: group, groupIdx, expert_id, stageId, ... (not expertIds).
bool IsIndexName(const std::string& name, const char* what) {
  std::string l = Lower(name);
  l.erase(std::remove(l.begin(), l.end(), '_'), l.end());
  for (const char* sfx : {"index", "idx", "id", "no"})
    if (l.size() > std::strlen(sfx) && l.ends_with(sfx)) {
      l = l.substr(0, l.size() - std::strlen(sfx));
      break;
    }
  return l == what || l == std::string("cur") + what || l == std::string("local") + what;
}

// A plain loop's word from the data it writes ("route-weight" for ws.routeWeight) or reads.
std::string DataWord(const std::vector<Token>& t, const Block& b, const std::string& var) {
  for (size_t k = b.open; k < b.close && k + 2 < t.size(); ++k)
    if (Code(t[k]) && t[k].Is("+=")) {
      for (size_t j = k; j < b.close && !t[j].Is(";"); ++j)
        if (t[j].Is("*")) return "mmad";
    }
  auto usable = [&](std::string_view s) { return s.size() > 1 && s != var && s != "ctx_" && s != "ctx"; };
  for (size_t k = b.open; k + 2 < b.close; ++k) {
    if (!Code(t[k]) || !t[k].Is(".") || !t[k + 1].Is("SetValue") || !t[k + 2].Is("(")) continue;
    size_t close = MatchingClose(t, k + 2);
    std::string first_ident;
    for (size_t j = k + 3; j < close && !t[j].Is(","); ++j) {
      if (t[j].Is(".") && j + 1 < close && t[j + 1].kind == TokenKind::kIdentifier &&
          !(j + 2 < t.size() && t[j + 2].Is("(")))
        return KebabCase(std::string(t[j + 1].text));
      if (first_ident.empty() && t[j].kind == TokenKind::kIdentifier && usable(t[j].text) &&
          !(j + 1 < close && t[j + 1].Is(".")) && !(j + 1 < close && t[j + 1].Is("<")))
        first_ident = t[j].text;
    }
    if (!first_ident.empty()) return KebabCase(first_ident);
    if (k > 0 && usable(t[k - 1].text)) return KebabCase(std::string(t[k - 1].text));
  }
  for (size_t k = b.open; k + 2 < b.close; ++k)
    if (Code(t[k]) && t[k].Is(".") && t[k + 1].Is("GetValue") && k > 0 && usable(t[k - 1].text))
      return "load-" + KebabCase(std::string(t[k - 1].text));
  return "loop";
}

}  // namespace optrace::source
