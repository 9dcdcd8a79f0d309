#include "source/index/core_types.h"

#include <cctype>
#include <vector>

namespace optrace::source::index {
namespace {

std::string Strip(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// Removes parentheses around the whole text.
std::string Unwrap(std::string s) {
  while (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    int depth = 0;
    bool whole = true;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')' && --depth == 0 && i + 1 < s.size()) whole = false;
    }
    if (!whole) break;
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

std::vector<std::string> SplitTop(const std::string& s, const std::string& op) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (depth == 0 && s.compare(i, op.size(), op) == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + op.size();
      i += op.size() - 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// Core named by one identifier.
unsigned CoreOfIdentifier(std::string_view id) {
  if (id == "AIC" || id == "ASCEND_IS_AIC") return kCoreAic;
  if (id == "AIV" || id == "ASCEND_IS_AIV") return kCoreAiv;
  unsigned c = kCoreNone;
  size_t start = 0;
  for (size_t i = 0; i <= id.size(); ++i) {
    if (i == id.size() || id[i] == '_') {
      std::string_view part = id.substr(start, i - start);
      if (part == "CUBE") c |= kCoreAic;
      if (part == "VEC") c |= kCoreAiv;
      start = i + 1;
    }
  }
  return c == kCoreBoth ? kCoreNone : c;
}

// An atom of a condition: its core restriction, or a decided value.
struct Atom {
  unsigned core = kCoreNone;  // kCoreNone: says nothing about cores
  bool decided = false;
  bool value = false;
};

bool IsCoreVariable(const std::string& s) {
  return s == "g_coreType" || s == "AscendC::g_coreType" || s == "::g_coreType";
}

Atom AtomOf(std::string text) {
  Atom a;
  text = Unwrap(text);
  bool negate = false;
  while (!text.empty() && text[0] == '!' && (text.size() < 2 || text[1] != '=')) {
    negate = !negate;
    text = Unwrap(text.substr(1));
  }
  for (const char* op : {"==", "!="}) {
    size_t p = text.find(op);
    if (p == std::string::npos) continue;
    std::string l = Unwrap(text.substr(0, p)), r = Unwrap(text.substr(p + 2));
    bool ne = std::string(op) == "!=";
    unsigned cl = CoreOfText(l), cr = CoreOfText(r);
    if (IsCoreVariable(l) && cr != kCoreNone) {
      a.core = cr;
    } else if (IsCoreVariable(r) && cl != kCoreNone) {
      a.core = cl;
    } else if (cl != kCoreNone && cr != kCoreNone) {
      a.decided = true;
      a.value = (cl == cr) != ne;
      if (negate) a.value = !a.value;
      return a;
    } else {
      return a;
    }
    if (ne != negate) a.core = FlipCore(a.core);
    return a;
  }
  // std::is_same_v<X, Y> / is_same<X, Y>::value
  for (const char* f : {"std::is_same_v<", "is_same_v<", "std::is_same<", "is_same<"}) {
    if (text.rfind(f, 0) != 0) continue;
    size_t open = text.find('<');
    size_t close = text.rfind('>');
    if (close == std::string::npos || close < open) break;
    std::vector<std::string> args = SplitTop(text.substr(open + 1, close - open - 1), ",");
    if (args.size() != 2) break;
    unsigned c0 = CoreOfText(args[0]), c1 = CoreOfText(args[1]);
    if (IsCoreVariable(args[0]) && c1 != kCoreNone) a.core = c1;
    else if (IsCoreVariable(args[1]) && c0 != kCoreNone) a.core = c0;
    else if (c0 != kCoreNone && c1 != kCoreNone) {
      a.decided = true;
      a.value = (c0 == c1) != negate;
      return a;
    } else {
      return a;
    }
    if (negate) a.core = FlipCore(a.core);
    return a;
  }
  // A bare macro or name: ASCEND_IS_AIV, SPLIT_CORE_CUBE.
  bool ident = !text.empty();
  for (char c : text) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':');
  if (ident) {
    unsigned c = CoreOfText(text);
    if (c != kCoreNone) a.core = negate ? FlipCore(c) : c;
  }
  return a;
}

}  // namespace

unsigned FlipCore(unsigned c) { return c == kCoreAic ? kCoreAiv : c == kCoreAiv ? kCoreAic : c; }

std::string CoreName(unsigned c) {
  switch (c) {
    case kCoreAic: return "AIC";
    case kCoreAiv: return "AIV";
    case kCoreBoth: return "AIC+AIV";
    default: return "-";
  }
}

unsigned CoreOfText(std::string_view raw) {
  std::string text = Strip(raw);
  unsigned c = kCoreNone;
  size_t i = 0;
  while (i < text.size()) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      c |= CoreOfIdentifier(std::string_view(text).substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  if (c == kCoreBoth) return kCoreNone;
  if (c != kCoreNone && ((!text.empty() && text[0] == '!' && text.find("!=") != 0) || text.find("!=") != std::string::npos))
    c = FlipCore(c);
  return c;
}

CoreCondition EvaluateCoreCondition(std::string_view condition) {
  CoreCondition r;
  std::string text = Unwrap(Strip(condition));
  if (text.empty()) return r;
  if (SplitTop(text, "||").size() > 1) return r;  // a disjunction says nothing certain
  std::vector<std::string> conj = SplitTop(text, "&&");
  unsigned body = kCoreBoth;
  bool all_decided = true, any_false = false;
  for (const std::string& c : conj) {
    Atom a = AtomOf(c);
    if (a.decided) {
      if (!a.value) any_false = true;
    } else {
      all_decided = false;
      if (a.core != kCoreNone) body &= a.core;
    }
  }
  if (any_false) {
    r.decided = true;
    r.value = false;
    r.body = kCoreNone;
    r.other = kCoreBoth;
    return r;
  }
  if (all_decided) {
    r.decided = true;
    r.value = true;
    r.body = kCoreBoth;
    r.other = kCoreNone;
    return r;
  }
  r.body = body;
  // The else branch is the other core only when the condition is exactly one core atom.
  if (conj.size() == 1 && body != kCoreBoth) r.other = FlipCore(body);
  return r;
}

unsigned TaskTypeCores(std::string_view raw) {
  std::string t = Strip(raw);
  if (t.rfind("KERNEL_TYPE_", 0) == 0) t = t.substr(12);
  if (t == "AIV_ONLY") return kCoreAiv;
  if (t == "AIC_ONLY") return kCoreAic;
  if (t.rfind("MIX_AIV", 0) == 0) return t.ends_with("_1_0") ? kCoreAiv : kCoreBoth;
  if (t.rfind("MIX_AIC", 0) == 0) return t.ends_with("_1_0") ? kCoreAic : kCoreBoth;
  if (t.rfind("MIX", 0) == 0) return kCoreBoth;
  return kCoreNone;
}

bool IsCubeOperation(std::string_view name) {
  for (std::string_view n : {"Mmad", "MmadWithSparse", "LoadData", "LoadDataWithTranspose", "LoadDataWithSparse",
                             "LoadData3DV2", "LoadData2DV2", "Fixpipe", "SetFmatrix", "SetLoadDataBoundary",
                             "SetLoadDataRepeat", "SetLoadDataPaddingValue", "LoadImageToLocal", "MmadFix"}) {
    if (name == n) return true;
  }
  return false;
}

}  // namespace optrace::source::index
