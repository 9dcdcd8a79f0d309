// Internal to the plan room: the ChainBuilder that PlanProfilingChain runs, one file per link of the
// chain the profiling buffer travels (profiling_chain.h):
//   chain_graph.cc    the graph: OpDef output, InferShape / InferDataType of the extra output
//   chain_kernel.cc   the kernel: the GM_ADDR parameter, buffer set-up and write-back, Init's call
//   chain_callers.cc  its callers: launchers, adapters, the aclnn API, Python samples
// profiling_chain.cc builds the index, runs the links in order and collects the edits.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <optional>
#include <set>

#include "source/index/call_resolver.h"
#include "source/index/code_index.h"
#include "source/index/op_def.h"
#include "source/lexer/code_structure.h"
#include "source/lexer/include_tree.h"
#include "source/lexer/kernel_launches.h"
#include "source/lexer/trace_calls.h"
#include "source/plan/edit_text.h"
#include "source/plan/profiling_chain.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace ix = index;
namespace chain_steps {

constexpr const char* kBuffer = "profiling_data";
inline const std::string kWords =
    fmt::format("{} * {} * {}", kInferMaxBlocks, kInferCoresPerBlock, kDefaultProfSizePerCore);

inline std::string IndentOfLine(const SourceFile& f, int line) { return IndentOf(*f.text, LineStarts(*f.text), line); }

inline bool IsDirectiveLine(const SourceFile& f, int line) {
  for (const Token& t : f.lex.tokens)
    if (t.line == line) return t.in_directive;
  return false;
}

class ChainBuilder {
 public:
  ChainBuilder(const Plan& plan, const SourceSet& set) : plan_(plan), set_(set) {}

  ChainPlan Run();

 private:
  FileEdits& Edits(const SourceFile& f);

  void InsertAt(const SourceFile& f, const Token& at_end_of, std::string text, bool before = false);

  void AddLine(const SourceFile& f, int before_line, const std::string& indent, std::string code, bool end = false,
               int span = INT_MAX);

  void Done(const SourceFile& f, int line, std::string what);
  void Manual(const std::string& where, std::string what);

  // The kernels of the plan, read by the code index (macro-generated ones included).
  void BuildIndex();

  void OpDefOutput();

  void OpDefOutputAfter(const OpDefParam& last, const std::string& receiver);

  // The function named `name` defined in the host files: {file, block}.
  std::pair<const SourceFile*, int> FindFunction(const std::string& name);

  const CodeStructure& Structure(const SourceFile* f);

  // Where `.InferShape(Fn)` registers Fn in a chain at namespace scope (IMPL_OP_INFERSHAPE(Op)...):
  // the file and the token range of Fn. {nullptr, 0, 0} when there is none.
  struct Registration {
    const SourceFile* file = nullptr;
    size_t first = 0, last = 0;  // Fn's tokens [first, last]
  };
  Registration RegistrationOf(const char* a);

  // The infer shape Fn cannot take lines (defined outside the tree, Ops::Base::InferShape4Elewise,
  // or a one-line body): register a wrapper that calls it and then sets the profiling output's
  // shape. `.InferShape(Fn)` becomes `.InferShape(OptraceInferShapeWith<Fn>)`, two insertions
  // on its line; the wrapper template goes before the registration statement.
  bool WrapInferShape(size_t index);
  // The same for a dtype function without a final `return` line of its own:
  // `.InferDataType(OptraceInferDataTypeWith<Fn>)`, which sets the profiling output to DT_INT64.
  bool WrapInferDataType(size_t index);

  bool WrapInfer(size_t index, bool shape);

  // `.InferOutDataTypeSameWithFirstInput()` gives every output input 0's dtype. The registry enables
  // the rule registered last (OpImplRegisterV2's documented contract), so a following
  // `.InferDataType(OptraceInferDataTypeSameWithFirstInput)` that keeps outputs 0..index-1 on input 0's
  // dtype and sets the profiling output to DT_INT64 replaces it without deleting a line.
  bool ReplaceSameWithFirstInput(size_t index);

  bool HasCall(const char* name);

  // Names registered as infer functions: `.InferShape(Fn)`, `SetInferShape(Fn)`, and the same for dtypes.
  std::string Registered(const char* a, const char* b);

  void Infer();

  // Token ranges of a function's parameters in its stream.
  static std::vector<std::pair<size_t, size_t>> ParamRanges(const ix::FunctionDef& k);

  // The file token behind a stream token, or null (made by ## pasting).
  static std::pair<const SourceFile*, const Token*> FileToken(const ix::StreamToken& st);

  void Kernel(const ix::FunctionDef& k);

  // `op.Init(x, ..., y, workspace, tiling)` in the entry: profiling after the last output there and
  // in Init's definition, when there is exactly one such call and one definition.
  void InitCall(const ix::FunctionDef& k, const std::vector<std::pair<size_t, size_t>>& params, size_t after);
  void ForwardCall(const ix::FunctionDef& k, const ix::FunctionDef& target,
                   const std::vector<std::pair<size_t, size_t>>& params, size_t after);

  // The function block around token i of f, -1 if none.
  int Enclosing(const SourceFile* f, size_t i);

  std::vector<std::pair<size_t, size_t>> Args(const std::vector<Token>& t, size_t open);

  // The torch adapter: EXEC_NPU_CMD(aclnnOp, ...) anywhere outside op_kernel/ and op_host/.
  void Adapters();

  void Adapter(const SourceFile& f, size_t call, int fn);

  static size_t NameToken(const std::vector<Token>& t, const Block& b);

  static size_t ReturnTypeBegin(const std::vector<Token>& t, const Block& b);

  // Hand-written aclnn: aclnnXxxGetWorkspaceSize(..., outputs, [profiling], uint64_t *workspaceSize, ...).
  void Aclnn();

  // Direct launches of a kernel without an OpDef: `name<<<...>>>(args)`, ACLRT_LAUNCH_KERNEL(name)(...),
  // EXEC_KERNEL_CMD(name, ...).
  void Launchers();
  void LaunchesIn(const SourceFile& f, int fn, const std::vector<const KernelLaunch*>& launches, bool& cstdio);
  // Host functions of the tree that always synchronize the device: every definition of the name
  // calls aclrtSynchronizeStream / cudaDeviceSynchronize / ... in a statement at the top level
  // of its body that is no if, loop or switch (`bool SyncStream(...) { return
  // CheckAcl(aclrtSynchronizeStream(s), ...); }`). A call of one counts as a synchronize.
  std::set<std::string> Synchronizers();
  std::optional<std::set<std::string>> synchronizers_;

  // Python drivers that call the operator: unpacking, synchronize and save are the user's.
  void Samples();

  const Plan& plan_;
  const SourceSet& set_;
  ChainPlan out_;
  std::vector<const SourceFile*> host_, others_;
  OpDef def_;
  std::unique_ptr<ix::CodeIndex> index_;
  std::vector<const ix::FunctionDef*> kernels_;
  std::map<const SourceFile*, std::unique_ptr<CodeStructure>> structures_;
};

}  // namespace chain_steps
}  // namespace optrace::source
