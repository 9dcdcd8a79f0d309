#include "source/plan/plan_words.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "source/index/words.h"

namespace optrace::source {
namespace {

bool OneOf(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list)
    if (s == x) return true;
  return false;
}

std::string Join(const std::vector<std::string>& w, size_t n) {
  std::string out;
  for (size_t i = 0; i < w.size() && i < n; ++i) out += (out.empty() ? "" : "-") + w[i];
  return out;
}

}  // namespace

std::vector<std::string> NameWords(std::string_view name) {
  std::vector<std::string> w = index::SplitWords(name);
  while (w.size() > 1 && OneOf(w.back(), {"func", "impl", "kernel", "op", "fn"})) w.pop_back();
  return w;
}

std::string NameWord(std::string_view name) {
  std::vector<std::string> w = NameWords(name);
  if (w.size() > 4) {
    // A long name says what it does first: cut before its first "and"/"then" ("AndLocal" too).
    for (size_t i = 1; i < w.size(); ++i) {
      if (w[i].rfind("and", 0) == 0 || w[i] == "then") {
        w.resize(i);
        break;
      }
    }
  }
  if (w.size() > 4) {
    // Else its first three words and its last, which often tells siblings apart (SyncV2Set/Wait).
    const std::string& last = w.back();
    bool version = last.size() <= 2 || (last[0] == 'v' && last.size() > 1 && std::isdigit(static_cast<unsigned char>(last[1])));
    if (!version) {
      w[3] = last;
      w.resize(4);
    }
  }
  return Join(w, 4);
}

std::string HotWord(std::string_view name) {
  static const std::pair<std::string_view, std::string_view> kHot[] = {
      {"SyncAll", "sync-all"},           {"CrossCoreWaitFlag", "wait-flag"}, {"CrossCoreSetFlag", "set-flag"},
      {"WaitFlagDev", "wait-flag-dev"},  {"FftsCrossCoreSync", "cross-core-sync"}, {"WaitEvent", "wait-event"},
      {"IBWait", "ib-wait"},             {"IBSet", "ib-set"},               {"BatchWrite", "batch-write"},
      {"AllReduce", "all-reduce"},       {"AllGather", "all-gather"},       {"ReduceScatter", "reduce-scatter"},
      {"AlltoAll", "all-to-all"},        {"AlltoAllV", "all-to-all"},       {"Broadcast", "broadcast"},
      {"NotifyWait", "notify-wait"},     {"NotifyRecord", "notify-record"}, {"Barrier", "barrier"},
      {"SyncAllCores", "sync-all"}};
  for (const auto& [n, w] : kHot)
    if (name == n) return std::string(w);
  return "";
}

bool IsSetUpName(std::string_view name) {
  std::vector<std::string> w = NameWords(name);
  if (w.empty()) return false;
  for (const std::string& x : {w.front(), w.back()})
    if (OneOf(x, {"init", "initialize", "setup", "config", "alloc", "allocate", "reset", "deinit"})) return true;
  return false;
}

std::string HotNameWord(std::string_view name) {
  // `QuantInit`, `InitSyncBuffer`: set-up of a hot phase's buffers, not the phase itself.
  if (IsSetUpName(name)) return "";
  for (const std::string& w : index::SplitWords(name))
    if (OneOf(w, {"wait", "sync", "send", "recv", "receive", "copy", "quant", "dequant", "notify", "barrier",
                  "gather", "scatter", "dispatch", "combine"}))
      return w;
  return "";
}

std::string LoopGroupWord(const std::vector<std::string>& identifiers) {
  for (const char* want : {"expert", "group", "stage"}) {
    for (const std::string& id : identifiers) {
      std::vector<std::string> w = index::SplitWords(id);
      for (const std::string& x : w)
        if (x == want || x == std::string(want) + "s") return want;
    }
  }
  return "";
}

bool IsIndexName(const std::string& name, const char* what) {
  std::string l;
  for (char c : name)
    if (c != '_') l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* sfx : {"index", "idx", "id", "no"})
    if (l.size() > std::strlen(sfx) && l.ends_with(sfx)) {
      l = l.substr(0, l.size() - std::strlen(sfx));
      break;
    }
  return l == what || l == std::string("cur") + what || l == std::string("local") + what;
}

bool IsIntegerType(std::string_view type) {
  std::string t;
  for (char c : type)
    if (!std::isspace(static_cast<unsigned char>(c))) t += c;
  while (t.rfind("const", 0) == 0) t = t.substr(5);
  return OneOf(t, {"int", "unsigned", "unsignedint", "long", "unsignedlong", "longlong", "unsignedlonglong", "short",
                   "unsignedshort", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
                   "uint64_t", "size_t", "uint", "int32", "uint32"});
}

}  // namespace optrace::source
