// The call graph of one kernel, instantiated: each node is a function as it runs (template
// arguments bound, the class of its object, the core types and AIV role it runs under), each
// edge a call. Branches that a binding decides (`if constexpr (CORE_TYPE == AscendC::AIV)`,
// `std::is_same_v<T, int4b_t>`) keep only the branch taken; core conditions narrow the cores of
// what they control; role branches name the AIV role of what they control.
//
//   CallGraph g = CallGraph::Build(index, *index.Kernels()[0]);
//   for (const GraphNode& n : g.nodes())
//     for (const GraphEdge& e : n.edges) use(n.inst.fn->DisplayName(), e.call->line, g.nodes()[e.callee]);
//
// The kernel's core types come from KERNEL_TASK_TYPE* in the entry; without one, from the code:
// a kernel with no cube code is AIV-only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "source/index/call_resolver.h"
#include "source/index/code_index.h"
#include "source/index/core_types.h"

namespace optrace::source::index {

struct GraphEdge {
  const CallSite* call = nullptr;
  int callee = -1;
  unsigned cores = kCoreBoth;  // cores the call runs on
  std::string role;            // AIV role at the call ("" none)
  bool by_name = false;        // resolved by method name only
};

struct GraphNode {
  Instance inst;
  unsigned cores = kCoreBoth;
  std::string role;
  int depth = 0;
  int first_caller = -1;
  std::vector<GraphEdge> edges;            // in call order
  std::vector<unsigned> control_cores;     // per control of the body: cores its statement runs on
  std::vector<std::string> control_roles;  // per control: the role it selects ("" none)
  std::vector<bool> control_dead;          // per control: never taken in this instantiation

  // The role effective at a control (its own or an enclosing control's, else the node's).
  std::string RoleAt(const FunctionBody& body, int control) const;
  // Cores at a control (the node's at -1).
  unsigned CoresAt(int control) const;
};

struct KernelType {
  unsigned cores = kCoreBoth;
  bool declared = false;     // from KERNEL_TASK_TYPE*; else inferred from the code
  std::string task_type;     // KERNEL_TYPE_MIX_AIC_1_2, ...; "" when inferred
  std::string evidence;      // why, when inferred ("no cube code reached")
};

class CallGraph {
 public:
  static CallGraph Build(const CodeIndex& index, const FunctionDef& kernel);

  const std::vector<GraphNode>& nodes() const { return nodes_; }
  const GraphNode& root() const { return nodes_.front(); }
  const KernelType& kernel_type() const { return type_; }
  bool truncated() const { return truncated_; }
  const CodeIndex& index() const { return *index_; }

 private:
  void Grow(unsigned root_cores);
  void Expand(int n);
  int NodeFor(const CallTarget& t, unsigned cores, const std::string& role, int caller);
  std::string MainCallWord(int n, int control);

  const CodeIndex* index_ = nullptr;
  const FunctionDef* kernel_ = nullptr;
  std::vector<GraphNode> nodes_;
  std::map<std::string, int> by_key_;
  // Per (function, class, cores, role): the nodes made for it under distinct template bindings.
  // Past kMaxVariants the first one stands for the rest (the body is the same text): a kernel
  // that instantiates a template stack for every tiling key (softmax_v2: 20,000 nodes, the cap)
  // stays linear in its code instead of in the product of its template arguments.
  std::map<std::string, std::vector<int>> variants_;
  KernelType type_;
  bool truncated_ = false;
};

// `std::is_same_v<A, B>`, `std::is_void_v<T>`, `true`, negations and conjunctions of them, with
// closed types: 1 true, 0 false, -1 unknown.
int EvaluateConstexpr(std::string_view condition);

// MoeTracing, TRACE_POINT, SetMoeProfilePtr, OPTRACE_KERNEL_BEGIN/END, ...: the tracing itself.
bool IsTracingCall(std::string_view name);

}  // namespace optrace::source::index
