// PlanProfilingChain: the edits that carry the profiling buffer from the operator's graph
// definition to the kernel and back to the caller. The links: profiling_chain_builder.h.
#include "source/plan/profiling_chain_builder.h"

namespace optrace::source {
using chain_steps::ChainBuilder;

namespace chain_steps {

ChainPlan ChainBuilder::Run() {
  for (const SourceFile* f : set_.Files()) {
    const std::string& rel = f->rel;
    if (rel.find("op_host/") != std::string::npos || rel.rfind("op_host", 0) == 0)
      host_.push_back(f);
    else if (rel.find("op_kernel/") == std::string::npos)
      others_.push_back(f);
  }
  def_ = ParseOpDef(host_);
  if (def_.profiling >= 0) return std::move(out_);  // the chain is there: lint checks it
  BuildIndex();
  // A kernel that already takes the buffer, or sets it up and writes it back, has its chain.
  bool kernel_has_profiling = false;
  for (const ix::FunctionDef* k : kernels_) {
    for (const ix::Param& p : k->params)
      if (IsProfilingName(p.name)) kernel_has_profiling = true;
    for (const ix::CallSite& c : index_->Body(*k).calls)
      if (c.name == "OPTRACE_KERNEL_END" || c.name == "SetMoeProfilePtr") kernel_has_profiling = true;
  }
  if (kernel_has_profiling) return std::move(out_);
  out_.applies = true;
  if (!def_.outputs.empty()) {
    OpDefOutput();
    Infer();
  }
  for (const ix::FunctionDef* k : kernels_) Kernel(*k);
  Adapters();
  Aclnn();
  if (def_.outputs.empty()) Launchers();
  Samples();
  return std::move(out_);
}

FileEdits& ChainBuilder::Edits(const SourceFile& f) { return out_.edits[f.rel]; }

void ChainBuilder::InsertAt(const SourceFile& f, const Token& at_end_of, std::string text, bool before) {
  std::vector<size_t> starts = LineStarts(*f.text);
  size_t line_start = starts[static_cast<size_t>(at_end_of.line - 1)];
  size_t offset = (before ? at_end_of.offset : at_end_of.end_offset()) - line_start;
  Edits(f).inserts[at_end_of.line].push_back({offset, std::move(text)});
}

void ChainBuilder::AddLine(const SourceFile& f, int before_line, const std::string& indent, std::string code, bool end,
                           int span) {
  SiteMarks::Line l;
  l.before_line = before_line;
  l.end = end;
  l.span = span;
  l.indent = indent;
  l.code = std::move(code);
  l.macro = IsDirectiveLine(f, before_line);
  Edits(f).lines.push_back(std::move(l));
}

void ChainBuilder::Done(const SourceFile& f, int line, std::string what) {
  out_.done.push_back(fmt::format("{}:{}: {}", f.rel, line, what));
}

void ChainBuilder::Manual(const std::string& where, std::string what) {
  out_.manual.push_back(fmt::format("{}: {}", where, what));
}

void ChainBuilder::BuildIndex() {
  std::set<const SourceFile*> files;
  for (const PlanKernel& k : plan_.kernels) {
    const SourceFile* f = set_.Find(k.entry);
    if (f) files.insert(f);
  }
  // The headers that define a kernel macro (`#define OP_GLOBAL extern "C" __global__ ...`): the
  // index expands it to see a kernel written `OP_GLOBAL void k(...)`.
  const auto kernel_macros = KernelMacros(set_);
  if (!kernel_macros.empty())
    for (const SourceFile* f : set_.Files())
      for (const Directive& d : f->lex.directives)
        if (d.kind == DirectiveKind::kDefine && d.token_begin < d.token_end &&
            kernel_macros.count(f->lex.tokens[d.token_begin].text))
          files.insert(f);
  // In path order, as lint and plan index them: a set of pointers iterates in allocation order,
  // which moved the kernels' edits around from one copy of a tree to the next.
  std::vector<const SourceFile*> list(files.begin(), files.end());
  std::sort(list.begin(), list.end(), [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
  index_ = std::make_unique<ix::CodeIndex>(list);
  std::set<std::string> seen;
  for (const ix::FunctionDef* k : index_->Kernels()) {
    bool planned = false;
    for (const PlanKernel& pk : plan_.kernels)
      planned = planned || (pk.function == k->name && pk.entry == k->file->rel);
    if (!planned) continue;
    // Kernels of one #define share their text: edit it once.
    const ix::StreamToken& open = (*k->stream)[k->body_open];
    std::string key = open.source ? fmt::format("{}:{}", open.source->rel, open.tok->offset) : k->name;
    if (seen.insert(key).second) kernels_.push_back(k);
  }
}

std::pair<const SourceFile*, int> ChainBuilder::FindFunction(const std::string& name) {
  // An infer function may share its name with the OpDef class (moe_token_unpermute_with_ep_grad:
  // `static graphStatus MoeTokenUnpermuteWithEpGrad(gert::InferShapeContext*)`), whose constructor
  // comes first in path order: a definition taking a gert context wins over the first one found.
  std::pair<const SourceFile*, int> first{nullptr, -1};
  for (const SourceFile* f : host_) {
    const CodeStructure& cs = Structure(f);
    for (size_t b = 0; b < cs.blocks.size(); ++b) {
      const Block& fn = cs.blocks[b];
      if (fn.kind != BlockKind::kFunction || fn.name != name) continue;
      std::string head = JoinTokens(f->lex.tokens, fn.head_begin, fn.head_end);
      if (head.find("Context") != std::string::npos) return {f, static_cast<int>(b)};
      if (!first.first) first = {f, static_cast<int>(b)};
    }
  }
  return first;
}

const CodeStructure& ChainBuilder::Structure(const SourceFile* f) {
  auto& s = structures_[f];
  if (!s) s = std::make_unique<CodeStructure>(AnalyzeStructure(f->lex));
  return *s;
}

int ChainBuilder::Enclosing(const SourceFile* f, size_t i) {
  const CodeStructure& cs = Structure(f);
  for (int b = cs.InnermostBlock(i); b >= 0; b = cs.blocks[static_cast<size_t>(b)].parent)
    if (cs.blocks[static_cast<size_t>(b)].kind == BlockKind::kFunction) return b;
  return -1;
}

std::vector<std::pair<size_t, size_t>> ChainBuilder::Args(const std::vector<Token>& t, size_t open) {
  size_t close = MatchingClose(t, open);
  std::vector<std::pair<size_t, size_t>> args;
  if (close >= t.size()) return args;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open + 1; i < close; ++i) {
    if (!Code(t[i])) continue;
    if (t[i].Is("(") || t[i].Is("[") || t[i].Is("{")) ++depth;
    if (t[i].Is(")") || t[i].Is("]") || t[i].Is("}")) --depth;
    if (depth == 0 && t[i].Is(",")) {
      args.emplace_back(start, i);
      start = i + 1;
    }
  }
  if (close > open + 1) args.emplace_back(start, close);
  return args;
}

std::pair<const SourceFile*, const Token*> ChainBuilder::FileToken(const ix::StreamToken& st) {
  if (!st.source) return {nullptr, nullptr};
  return {st.source, &st.source->lex.tokens[st.index]};
}

}  // namespace chain_steps


ChainPlan PlanProfilingChain(const Plan& plan, const SourceSet& sources) { return ChainBuilder(plan, sources).Run(); }

}  // namespace optrace::source
