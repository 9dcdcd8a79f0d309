#include "source/index/op_def.h"

#include <cctype>

namespace optrace::source {

std::string NormalizeName(std::string_view name) {
  std::string out;
  for (char c : name)
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsProfilingName(std::string_view name) { return NormalizeName(name).find("profil") != std::string::npos; }

bool IsLaunchTailName(std::string_view name) {
  std::string n = NormalizeName(name);
  return n.find("workspace") != std::string::npos || n.rfind("tiling", 0) == 0;
}

bool IsAclnnApiOf(std::string_view api_name, std::string_view op_class) {
  if (op_class.empty() || !api_name.starts_with("aclnn")) return true;
  std::string api = NormalizeName(api_name.substr(5));
  std::string op = NormalizeName(op_class);
  for (std::string_view prefix : {"inplace", "inner"})
    if (api.starts_with(prefix) && !op.starts_with(prefix)) api = api.substr(prefix.size());
  constexpr std::string_view kPhase1 = "getworkspacesize";
  if (api.size() > op.size() && api.ends_with(kPhase1)) api.resize(api.size() - kPhase1.size());
  return api == op;
}

OpDef ParseOpDef(const std::vector<const SourceFile*>& host_files) {
  OpDef def;
  for (const SourceFile* f : host_files) {
    const auto& t = f->lex.tokens;
    for (size_t i = 1; i + 3 < t.size(); ++i) {
      if (!t[i].active || t[i].in_directive || !(t[i - 1].Is(".") || t[i - 1].Is("->"))) continue;
      bool input = t[i].Is("Input"), output = t[i].Is("Output"), attr = t[i].Is("Attr");
      if ((!input && !output && !attr) || !t[i + 1].Is("(") || t[i + 2].kind != TokenKind::kString) continue;
      if (attr) {
        ++def.attrs;
        continue;
      }
      OpDefParam p;
      StringLiteralValue(t[i + 2], &p.name);
      // `obj.Output(...)` on an object other than this: a per-SoC OpAICoreConfig.
      if (i >= 2 && t[i - 2].kind == TokenKind::kIdentifier && !t[i - 2].Is("this") &&
          !(i >= 3 && (t[i - 3].Is(".") || t[i - 3].Is("->") || t[i - 3].Is(")"))))
        p.receiver = std::string(t[i - 2].text);
      p.file = f;
      p.line = t[i].line;
      p.column = t[i].column;
      p.token = i;
      size_t k = i + 3;
      for (; k < t.size() && !t[k].Is(";"); ++k) {
        if (!t[k].active || t[k].in_directive) continue;
        if (t[k].Is("ParamType") && k + 2 < t.size() && t[k + 1].Is("("))
        {
          p.dynamic = t[k + 2].Is("DYNAMIC");
          p.required = !t[k + 2].Is("OPTIONAL") && !p.dynamic;
        }
        if (t[k].Is("UnknownShapeFormat")) p.unknown_shape_format = true;
        if ((t[k].Is("DataType") || t[k].Is("DataTypeList")) && k + 2 < t.size() && t[k + 1].Is("(")) {
          p.list_form = t[k].Is("DataTypeList");
          int depth = 0, count = 0;
          bool any = false;
          for (size_t j = k + 1; j < t.size(); ++j) {
            if (t[j].Is("(") || t[j].Is("{")) ++depth;
            if (t[j].Is(")") || t[j].Is("}")) {
              if (--depth == 0) break;
            }
            if (depth == 2 && t[j].Is(",")) ++count;
            if (depth == 2 && t[j].kind == TokenKind::kIdentifier) any = true;
          }
          p.dtype_count = any ? count + 1 : 0;
        }
      }
      p.statement_end = k;
      if (!p.receiver.empty()) {
        if (output) def.config_outputs.push_back(std::move(p));
        continue;
      }
      def.file = f;
      (input ? def.inputs : def.outputs).push_back(std::move(p));
    }
    // class X : public OpDef
    for (size_t i = 0; i + 4 < t.size(); ++i)
      if (t[i].Is("class") && t[i + 2].Is(":") && t[i + 4].Is("OpDef") && def.class_name.empty())
        def.class_name = std::string(t[i + 1].text);
  }
  for (size_t k = 0; k < def.outputs.size(); ++k)
    if (IsProfilingName(def.outputs[k].name)) def.profiling = static_cast<int>(k);
  return def;
}

}  // namespace optrace::source
