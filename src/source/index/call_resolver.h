// Which function definitions a call reaches, in a given instantiation of the caller:
//   - `obj.f()`, `obj->f()`, `a.b.f()`, `this->f()`: f of the object's class (fields, locals
//     and parameters typed through aliases and bound template parameters), else of its bases;
//   - `obj(args)` on an object of class type: its operator(); a templated operator() with
//     `<AscendC::AIC>` / `<AscendC::AIV>` specialisations and a `g_coreType` default reaches
//     both, each on its own core type;
//   - `A::f()`: a static member or a function in namespace A; `f<T>()` binds T;
//   - `Type obj(args);`, `Type(args)`: the constructor;
//   - `f()`: a member of the caller's class, a named lambda, a free function;
//   - a lambda passed as an argument: runs at that call.
// Overloads are narrowed by argument count. Definitions outside the caller's translation unit
// (Instance::unit) are not reached while one inside it is. A method called on an object whose type is unknown
// is found by name when exactly one class of the index defines it.
#pragma once

#include <vector>

#include "source/index/code_index.h"

namespace optrace::source::index {

// A function as it runs: its template arguments (its own and its class's) and its class.
struct Instance {
  const FunctionDef* fn = nullptr;
  Bindings bindings;
  const ClassDef* cls = nullptr;
  // The files of the kernel's translation unit (CodeIndex::UnitOf); null: the whole index.
  const FileUnit* unit = nullptr;
};

struct CallTarget {
  Instance inst;
  unsigned core = 3;     // kCoreBoth unless the target is an AIC/AIV specialisation
  bool by_name = false;  // found by method name only (the object's type was unknown)
};

std::vector<CallTarget> ResolveCall(const CodeIndex& index, const Instance& caller, const CallSite& call);

// The Env (name lookup context) of an instance at a position of its body.
Env EnvOf(const Instance& inst, size_t pos);

}  // namespace optrace::source::index
