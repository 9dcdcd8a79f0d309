// A light-weight function and call index over lexed sources, for `optrace plan`: function
// definitions (free functions, class methods, templates and explicit specialisations such as
// operator()<AscendC::AIC>, named lambdas), the calls in each body resolved best-effort by
// name, and the loops and branch context (core type, AIV role) around every call.
//
//   CodeIndex index(files);                              // files of one include tree
//   const FunctionDef* f = index.FindEntry();            // the __global__ kernel
//   for (const CallSite& c : index.Calls(*f)) {
//     const FunctionDef* callee = index.Resolve(*f, c, bindings);   // nullptr: external (AscendC::SyncAll)
//   }
//
// Not a C++ parser: it reads the token stream and CodeStructure's blocks, so unusual syntax
// gives a less precise tree, never an error.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "source/code_structure.h"
#include "source/source_set.h"

namespace optrace::source {

// Core types code runs on, as a bit mask.
enum CoreMask : unsigned { kCoreNone = 0, kCoreAic = 1, kCoreAiv = 2, kCoreBoth = 3,
                          kCoreDead = 4 };  // kCoreDead: a branch this instantiation never takes
unsigned FlipCore(unsigned c);
// Core named by a condition or template argument text ("ASCEND_IS_AIV", "g_coreType == AscendC::AIC",
// "SPLIT_CORE_CUBE", "!ASCEND_IS_AIC"), kCoreNone when it names none or both.
unsigned CoreOfText(const std::string& text);
std::string CoreName(unsigned c);  // "AIC", "AIV", "AIC+AIV", "-"

// Template parameter -> argument text (CORE_TYPE -> AscendC::AIC) of one instantiation.
using Bindings = std::map<std::string, std::string>;

struct FunctionDef {
  const SourceFile* file = nullptr;
  const CodeStructure* cs = nullptr;
  int block = -1;                  // its body in cs->blocks
  std::string name;                // "Process", "operator()", lambda: the variable it is stored in
  std::string owner;               // class (or namespace qualifier) it belongs to, "" if none
  std::string template_args;       // explicit specialisation: "AscendC::AIC"
  std::vector<std::string> template_params;
  std::vector<std::string> params;  // parameter names
  bool is_lambda = false;
  bool returns_void = true;
  bool is_kernel = false;  // __global__
  int line = 0;            // of the name
  size_t open = 0, close = 0;  // '{' and '}' token indices

  std::string DisplayName() const;  // MoeDispatch::operator()<AscendC::AIC>
};

// One call in a function body, with the branch and loop context inside that function.
struct CallSite {
  std::string callee;         // "SendTokens", "operator()", "SyncAll"
  std::string qualifier;      // "AscendC" in AscendC::SyncAll, or the object's class when known
  std::string object;         // "dispatch" in dispatch.template operator()<...>(), "" if none
  std::string template_args;  // "CORE_TYPE" in Run<CORE_TYPE>()
  size_t token = 0;           // callee name token
  int line = 0;
  std::vector<int> control;   // enclosing control blocks inside the function, outermost first
  bool via_macro = false;     // found in the body of a function-like macro used at `token`
};

class CodeIndex {
 public:
  explicit CodeIndex(const std::vector<const SourceFile*>& files);

  const std::vector<std::unique_ptr<FunctionDef>>& functions() const { return functions_; }
  const CodeStructure& Structure(const SourceFile* f) const { return *structures_.at(f); }
  // The kernel entry: a __global__ function in `entry_file` (else its first function).
  const FunctionDef* FindEntry(const SourceFile* entry_file) const;
  // Calls in the body of `f`, in order (bodies of named lambdas excluded: they are their own).
  std::vector<CallSite> Calls(const FunctionDef& f) const;
  // The definition a call reaches, nullptr when not defined in the index.
  const FunctionDef* Resolve(const FunctionDef& caller, const CallSite& call, const Bindings& bindings) const;
  // Bindings of the callee's template parameters at this call.
  Bindings BindingsFor(const FunctionDef& callee, const CallSite& call, const Bindings& caller) const;
  // Core a control block selects (if/else on a core condition, with template bindings applied).
  unsigned ControlCore(const FunctionDef& f, int block, const Bindings& bindings) const;
  // AIV role a control block selects ("send" for `case AivRole::kSend:` / `Role() == AivRole::kSend`).
  std::string ControlRole(const FunctionDef& f, int block, size_t token) const;
  bool IsClass(const std::string& name) const { return member_types_.count("#class:" + name) > 0; }
  bool IsDefined(const std::string& name) const { return by_name_.count(name) > 0; }
  // Core of a token from #if regions naming CUBE/VEC/AIC/AIV.
  unsigned RegionCore(const SourceFile* f, int line) const;

 private:
  void IndexFile(const SourceFile* f);
  void FindCallsIn(const FunctionDef& f, size_t begin, size_t end, std::vector<CallSite>* out,
                   std::map<std::string, std::string>* locals, int macro_depth) const;

  std::vector<std::unique_ptr<FunctionDef>> functions_;
  std::multimap<std::string, const FunctionDef*> by_name_;
  std::map<const SourceFile*, std::unique_ptr<CodeStructure>> structures_;
  std::map<std::string, std::string> member_types_;  // member/variable name -> class (class members)
  std::map<std::string, std::string> macros_;        // function-like macro name -> body text
  struct Region {
    int first, last;
    unsigned core;
  };
  std::map<const SourceFile*, std::vector<Region>> regions_;
  std::vector<std::unique_ptr<std::string>> macro_texts_;
};

// "SendTokens" -> "send-tokens", "moe_dispatch" -> "moe-dispatch", "kFlagDone" -> "flag-done".
std::string KebabCase(const std::string& name);

}  // namespace optrace::source
