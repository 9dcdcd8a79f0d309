// Internal to the lint room: the BindingChecker of the binding rules (gate G2), one file per place
// the operator's outputs are listed:
//   rules_binding_graph.cc    infer functions: the profiling output's shape and dtype
//   rules_binding_kernel.cc   the __global__ kernel, its Init call and direct launches
//   rules_binding_callers.cc  pybind adapters, examples and the aclnn layer
// rules_binding.cc holds the OpDef checks, the shared readers of output lists and CheckBinding.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "source/index/call_graph.h"
#include "source/index/call_resolver.h"
#include "source/index/code_index.h"
#include "source/index/op_def.h"
#include "source/lint/lint_context.h"

namespace optrace::source {
namespace binding_steps {

inline std::string Normalize(std::string_view name) { return NormalizeName(name); }

inline bool IsNullArg(const std::vector<Token>& t, std::pair<size_t, size_t> r) {
  std::string text = JoinTokens(t, r.first, r.second);
  return text == "nullptr" || text == "NULL" || text == "c10::nullopt" || text == "std::nullopt" ||
         text == "at::nullopt" || text == "0";
}

using Param = OpDefParam;

inline bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Integer constants `NAME = 3` in the files (for output indices given by name).
inline std::map<std::string, long> Constants(const std::vector<const SourceFile*>& files) {
  std::map<std::string, long> out;
  for (const SourceFile* f : files) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i + 3 < t.size(); ++i) {
      if (t[i].kind == TokenKind::kIdentifier && t[i + 1].Is("=") && t[i + 2].kind == TokenKind::kNumber &&
          (t[i + 3].Is(";") || t[i + 3].Is(",") || t[i + 3].Is("}"))) {
        out[std::string(t[i].text)] = std::strtol(std::string(t[i + 2].text).c_str(), nullptr, 0);
      }
    }
  }
  return out;
}

class BindingChecker {
 public:
  explicit BindingChecker(LintContext& ctx) : ctx_(ctx) {
    for (const SourceFile* f : ctx.files) {
      std::string_view rel = f->rel;
      std::string_view name = rel.substr(rel.rfind('/') == std::string_view::npos ? 0 : rel.rfind('/') + 1);
      if (StartsWith(rel, "op_host/")) host_.push_back(f);
      // An aclnn_*.cpp under tests/ or examples/ (tests/comm/src/aclnn_grouped_matmul_case.cpp) drives
      // the API as a sample does; it is not the aclnn layer.
      bool aclnn = StartsWith(name, "aclnn_") && !StartsWith(rel, "op_kernel/") && !InSampleFolder(rel);
      if (aclnn) aclnn_.push_back(f);
      // Torch adapters anywhere in the tree (pybind/, <op>_torch_adpt.h at the root, csrc/...);
      // an aclnn_*.cpp calls aclnnInner*GetWorkspaceSize itself and is the aclnn layer, not an adapter.
      bool kernel_or_host = StartsWith(rel, "op_kernel/") || rel.find("/op_kernel/") != std::string_view::npos ||
                            StartsWith(rel, "op_host/") || rel.find("/op_host/") != std::string_view::npos;
      if (!kernel_or_host && !aclnn && CallsAdapter(*f)) (IsExampleProgram(*f) ? examples_ : pybind_).push_back(f);
    }
  }

  // A C++ program that drives the operator through aclnn (examples/test_aclnn_*.cpp with a
  // main()): a sample, not an adapter a framework calls; it returns no tensors.
  static bool IsExampleProgram(const SourceFile& f);

  static bool InSampleFolder(std::string_view rel);

  // Does the aclnn API `name` (aclnnGeluGetWorkspaceSize, EXEC_NPU_CMD's aclnnGelu) belong to
  // this operator? One adapter file often launches several operators.
  bool IsThisOperatorsApi(std::string_view name) const;

  static bool CallsAdapter(const SourceFile& f);

  void Run();

 private:
  // A per-SoC OpAICoreConfig with its own output list replaces the OpDef's on that SoC: it
  // needs the profiling output last as well.
  void CheckConfigs();

  void CheckLayers();

  // Which G2 layers the tree holds (for the gate verdict).
  void RecordLayers();

  // Index argument of a call like GetOutputShape(1) / GetOutputShape(kProfilingIndex).
  long IndexValue(const std::vector<Token>& t, std::pair<size_t, size_t> r, const std::map<std::string, long>& k);

  std::vector<std::pair<size_t, size_t>> Args(const std::vector<Token>& t, size_t open);

  // Infer functions registered anywhere in op_host (IMPL_OP_INFERSHAPE / SetInferShape / proto macros).
  bool InferRegistered() const;
  // `IMPL_OP_INFERSHAPE(Op).InferShape(Fn).InferDataType(ns::Fn2)` / `IMPL_OP(Op)...`: one entry
  // per registered function.
  struct InferRegistration {
    std::string op, method, function;  // "AddRmsNormQuant", "InferDataType", "InferDataType4Arq"
    const SourceFile* file = nullptr;
    int line = 0, column = 0;          // of the method
  };
  std::vector<InferRegistration> InferRegistrations() const;
  // Infer functions registered for another operator than this OpDef (`IMPL_OP_INFERSHAPE(OpV2)
  // .InferDataType(Fn)` in a file the two operators share): their output indices are that
  // operator's.
  std::set<std::string> OtherOperatorsInferFunctions(const std::vector<InferRegistration>& regs) const;
  // Whether a function of that name is defined in the operator's host files.
  bool DefinedInTree(const std::string& function);

  // How the operator's output dtypes are inferred: a registered InferDataType function (or the
  // older SetInferDataType / IMPLEMT_INFERFUNC forms), `.InferOutDataTypeSameWithFirstInput()`
  // (every output gets input 0's dtype: wrong for an int64 profiling output), or nothing, when
  // the graph takes each output's dtype from the OpDef's DataType list (then the list decides).
  enum class DtypeSource { kFunction, kSameAsFirstInput, kOpDef };
  DtypeSource DtypeInference(const Token** same_first) const;

  void CheckInfer();

  // GM_ADDR parameters that name OpDef outputs, in order: {output index, token}.
  std::vector<std::pair<int, const Token*>> OutputParams(const SourceFile* f, const Block& fn);

  // Outputs must appear in OpDef order with profiling last among them.
  void CheckOrder(const SourceFile* f, const Block& fn, const char* rule, const char* what, bool need_profiling);

  std::string OutputList() const;

  void CheckKernel();
  // A profiling parameter after workspace or tiling in a kernel whose launch the OpDef generates.
  void CheckBeforeWorkspace(const SourceFile& f, const Block& fn);
  void ReportAfterWorkspace(const SourceFile& f, const Block& fn, const Token& profiling, const Token& tail);

  // `void k(KERNEL_PARAMS)` (inplace_apply_adagrad_da): the parameters are the body of an object-like
  // #define of the same file; point the head at those tokens.
  static void ParametersFromMacro(const SourceFile& f, Block& fn);

  // EXEC_NPU_CMD(aclnnOp, inputs..., attrs..., outputs...) and direct two-phase calls
  // aclnnOpGetWorkspaceSize(inputs..., attrs..., outputs..., &workspaceSize, &executor).
  void CheckPybind();

  // aclnn example programs: a hand step (a warning), not a broken binding: each call of this
  // operator's aclnn*GetWorkspaceSize without a profiling tensor.
  void CheckExamples();

  // The data arguments of one launch: profiling last, REQUIRED outputs not null.
  void CheckOutputArgs(const SourceFile* f, size_t call, const std::vector<std::pair<size_t, size_t>>& data);
  void NullThroughVariable(const SourceFile* f, size_t call, std::pair<size_t, size_t> arg);

  // A `return` written as a macro argument (`CHECK_RET(ret == ACL_SUCCESS, return ret);`) is an
  // early exit inside the macro, not the function's own return.
  static bool InsideParentheses(const std::vector<Token>& t, size_t at);

  // The function around EXEC_NPU_CMD returns the profiling tensor last.
  void CheckReturn(const SourceFile* f, const CodeStructure& cs, size_t call);

  void CheckAclnn();

  static bool NameIsInner(std::string_view name);

  // Seed 000: profiling is the operator's own output; a second `*_profiling` op or torch.ops
  // entry forks the operator.
  void SecondProfilingOp();

  // The kernel class's Init, as the entry calls it: every GM_ADDR it passes in __global__ order,
  // bound to the Init parameter of the same name.
  // The kernel class's Init against its own definition: what is certain is where the profiling
  // buffer lands. A call that passes it at another position than the definition's profiling
  // parameter, or passes another buffer where that parameter is, sends the records into the
  // wrong GM_ADDR; a call whose arguments are the definition's parameter names in another order
  // swaps two buffers. The order of the other arguments against the __global__ list is the
  // class's own business (shipping operators order Init as they like), not a finding. With
  // several candidate definitions (one class per #if arm) a finding needs all of them to agree.
  // A buffer's name without the decorations an Init parameter adds: xGM, x_gm, xAddr -> x.
  static std::string BufferName(std::string_view name);

  void CheckInitOrder();

  // Heuristic (a warning): two of the operator's outputs passed to Init in the other order than
  // the __global__ lists them. Inputs are left alone: shipping classes often take them in their
  // own order; outputs follow the OpDef's order in nearly every operator.
  void CheckInitOutputOrder(const index::FunctionDef& k, const index::CallSite& c);

  // Without an OpDef the kernel is launched directly: profiling is its last GM_ADDR and every
  // launch in the tree passes it there.
  void CheckDirectLaunch();

  LintContext& ctx_;
  std::vector<const SourceFile*> host_, pybind_, aclnn_, examples_;
  OpDef def_;
  std::set<std::string> misordered_;  // kernels reported by binding-kernel-order
};

}  // namespace binding_steps
}  // namespace optrace::source
