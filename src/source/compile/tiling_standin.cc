// The tiling stand-in: the host's BEGIN_TILING_DATA_DEF blocks as kernel-side structs.
#include "source/compile/tiling_standin.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "core/file_io.h"
#include "source/lexer/lexer.h"
#include "source/lexer/source_set.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace {

bool Code(const Token& t) { return t.active && !t.in_directive; }

// The index of the ')' that closes the '(' at `open`, or tokens.size().
size_t CloseOf(const std::vector<Token>& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].Is("(")) ++depth;
    if (t[i].Is(")") && --depth == 0) return i;
  }
  return t.size();
}

// The arguments of the call whose '(' is at `open`, each as its tokens' texts joined by spaces.
std::vector<std::string> Args(const std::vector<Token>& t, size_t open) {
  std::vector<std::string> out(1);
  size_t close = CloseOf(t, open);
  int depth = 0;
  for (size_t i = open + 1; i < close; ++i) {
    if (t[i].Is("(") || t[i].Is("<") || t[i].Is("[")) ++depth;
    if (t[i].Is(")") || t[i].Is(">") || t[i].Is("]")) --depth;
    if (depth == 0 && t[i].Is(",")) {
      out.emplace_back();
      continue;
    }
    if (!out.back().empty()) out.back() += ' ';
    out.back() += t[i].text;
  }
  return out;
}

struct TilingStruct {
  std::string name;
  std::vector<std::string> fields;  // "type name;" lines
  std::vector<std::string> uses;    // struct types its fields name
};

}  // namespace

TilingStandIn MakeTilingStandInFromTexts(const std::vector<std::pair<std::string, std::string>>& files) {
  TilingStandIn out;
  std::vector<TilingStruct> structs;
  std::vector<std::pair<std::string, std::string>> registered;  // (op type, struct)
  std::set<std::string> defined_elsewhere;  // struct / class names the tree defines in code
  bool tree_defines_macro = false;
  for (const auto& [rel, text] : files) {
    LexedFile lex = Lex(text);
    const std::vector<Token>& t = lex.tokens;
    for (const Directive& d : lex.directives)
      if (d.kind == DirectiveKind::kDefine && d.token_begin < d.token_end && t[d.token_begin].Is("GET_TILING_DATA"))
        tree_defines_macro = true;
    bool used = false;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (!Code(t[i])) continue;
      if ((t[i].Is("struct") || t[i].Is("class")) && t[i + 1].kind == TokenKind::kIdentifier) {
        size_t n = i + 2;
        while (n < t.size() && !t[n].Is("{") && !t[n].Is(";") && !t[n].Is("(")) ++n;
        if (n < t.size() && t[n].Is("{")) defined_elsewhere.insert(std::string(t[i + 1].text));
        continue;
      }
      if (t[i].Is("REGISTER_TILING_DATA_CLASS") && t[i + 1].Is("(")) {
        std::vector<std::string> a = Args(t, i + 1);
        if (a.size() == 2) registered.emplace_back(a[0], a[1]);
        continue;
      }
      if (!t[i].Is("BEGIN_TILING_DATA_DEF") || !t[i + 1].Is("(")) continue;
      std::vector<std::string> a = Args(t, i + 1);
      if (a.size() != 1 || a[0].empty()) continue;
      TilingStruct s;
      s.name = a[0];
      size_t k = CloseOf(t, i + 1);
      for (; k + 1 < t.size() && !t[k].Is("END_TILING_DATA_DEF"); ++k) {
        if (!Code(t[k]) || !t[k + 1].Is("(")) continue;
        std::vector<std::string> f = Args(t, k + 1);
        if (t[k].Is("TILING_DATA_FIELD_DEF") && f.size() == 2) {
          s.fields.push_back(fmt::format("{} {};", f[0], f[1]));
        } else if (t[k].Is("TILING_DATA_FIELD_DEF_ARR") && f.size() == 3) {
          s.fields.push_back(fmt::format("{} {}[{}];", f[0], f[2], f[1]));
        } else if (t[k].Is("TILING_DATA_FIELD_DEF_STRUCT") && f.size() == 2) {
          s.fields.push_back(fmt::format("{} {};", f[0], f[1]));
          s.uses.push_back(f[0]);
        }
      }
      i = k;
      used = true;
      structs.push_back(std::move(s));
    }
    if (used) out.from.push_back(rel);
  }
  if (tree_defines_macro || structs.empty()) return out;
  // A struct the kernel side defines itself (a hand-written tiling header) is the tree's own.
  std::set<std::string> declared;
  std::string body;
  bool needs_sdk_tiling = false;
  for (const TilingStruct& s : structs) {
    if (defined_elsewhere.count(s.name) || declared.count(s.name)) continue;
    for (const std::string& u : s.uses) needs_sdk_tiling = needs_sdk_tiling || !declared.count(u);
    declared.insert(s.name);
    out.structs.push_back(s.name);
    body += fmt::format("struct {} {{\n", s.name);
    for (const std::string& f : s.fields) body += "  " + f + "\n";
    body += "};\n";
  }
  if (out.structs.empty()) return out;
  // GET_TILING_DATA reads the struct registered for the operator itself (REGISTER_TILING_DATA_CLASS
  // with a plain op type; `Op_1` and the like are per tiling key), else the first declared.
  out.default_struct = out.structs.front();
  for (const auto& [op, st] : registered) {
    if (!declared.count(st)) continue;
    bool keyed = op.find('_') != std::string::npos && std::isdigit(static_cast<unsigned char>(op.back()));
    if (!keyed) {
      out.default_struct = st;
      break;
    }
  }
  out.header = "// optrace: a stand-in for the tiling header the operator's build generates (compile check only)\n"
               "#pragma once\n#include <cstdint>\n";
  // Fields of the SDK's own tiling types (TCubeTiling, SoftMaxTiling, ...).
  if (needs_sdk_tiling)
    out.header += "#if __has_include(\"kernel_tiling/kernel_tiling.h\")\n#include \"kernel_tiling/kernel_tiling.h\"\n#endif\n";
  out.header += body;
  out.header += fmt::format(
      "#define GET_TILING_DATA(var, tiling) {0} var; (void)(tiling)\n"
      "#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) type var; (void)(tiling)\n"
      "#define GET_TILING_DATA_PTR_WITH_STRUCT(type, var, tiling) const type* var = nullptr; (void)(tiling)\n"
      "#define GET_TILING_DATA_MEMBER(type, member, var, tiling) decltype(type::member) var; (void)(tiling)\n",
      out.default_struct);
  return out;
}

Result<TilingStandIn> MakeTilingStandIn(const fs::path& op_root) {
  OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> paths, ListSourceFiles(op_root));
  std::vector<std::pair<std::string, std::string>> files;
  for (const fs::path& p : paths) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    // Only files that can hold tiling declarations or a definition of the macro are kept.
    if (text.find("TILING") == std::string::npos && text.find("struct") == std::string::npos) continue;
    files.emplace_back(p.lexically_relative(op_root).generic_string(), std::move(text));
  }
  return MakeTilingStandInFromTexts(files);
}

}  // namespace optrace::source
