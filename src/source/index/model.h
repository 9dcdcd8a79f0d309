// What the code index knows about the code: classes (with template parameters, partial
// specialization patterns, bases, member aliases and fields), functions (free, member, in- or
// out-of-class, explicit specialisations such as operator()<AscendC::AIC>, lambdas), and the
// body of each function (controls, local declarations and aliases, calls). Filled by
// DeclarationParser (declarations.h) and BodyParser (function_body.h); read through CodeIndex.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "source/index/token_stream.h"
#include "source/index/type_name.h"

namespace optrace::source::index {

struct TemplateParam {
  std::string name;
  bool is_type = true;     // class/typename (and template template) parameters
  bool pack = false;       // `typename... Ts`
  std::string type_text;   // non-type parameters: their type ("int32_t")
  TypeName default_arg;    // empty when none
};

struct Param {
  TypeName type;
  std::string type_text;  // as written, without the name
  std::string name;
  bool has_default = false;
};

struct FunctionDef;
struct FunctionBody;

struct ClassDef {
  int id = 0;
  std::string name;
  std::vector<std::string> scope;  // enclosing namespaces and classes, outermost first
  const ClassDef* outer = nullptr;
  std::vector<TemplateParam> tparams;
  bool specialization = false;     // partial or explicit: `struct BlockMmad<Policy<X>, A, B>`
  std::vector<TypeName> spec_args;
  std::vector<TypeName> bases;
  std::map<std::string, TypeName> aliases;   // using X = ...; typedef ... X;
  std::map<std::string, TypeName> fields;    // member variables
  std::multimap<std::string, const FunctionDef*> methods;  // defined in class or out of class
  // Declarations without a body: `template <int32_t CORE_TYPE = g_coreType> void operator()(...);`
  std::multimap<std::string, std::vector<TemplateParam>> declared;
  const TokenStream* stream = nullptr;
  size_t open = 0, close = 0;
  const SourceFile* file = nullptr;
  int line = 0;

  std::string QualifiedName() const;  // Catlass::Gemm::Kernel::FP8W8A16Matmul
};

// A function with a body.
struct FunctionDef {
  int id = 0;
  std::string name;                   // "Process", "operator()", "~X"; lambdas: their variable, or "lambda"
  std::vector<std::string> scope;     // enclosing namespaces (and classes, when defined in class)
  TypeName qualifier;                 // out-of-class definitions: `A<T>::B` before `::name`
  const ClassDef* owner = nullptr;    // the class it is a member of
  std::vector<TemplateParam> tparams; // its template heads (out of class: the class's heads too)
  std::vector<std::string> owner_param_names;  // out of class: the names it gives the class's parameters
  bool specialization = false;        // template <> ... name<Args>(...)
  std::vector<TypeName> spec_args;
  std::vector<Param> params;
  bool variadic = false;
  TypeName return_type;
  bool returns_void = false;          // declared `void` (constructors and destructors too)
  bool is_kernel = false;             // __global__
  unsigned qualified_cores = 0;       // CoreMask its qualifiers give: __vector__ AIV, __cube__ AIC, __mix__(m, n) both
  bool is_ctor = false, is_dtor = false, is_static = false;
  bool is_lambda = false;
  bool is_callback = false;           // a lambda passed as an argument: runs where it is passed
  const FunctionDef* parent = nullptr;  // lambdas: the function they are written in
  size_t lambda_at = 0;               // lambdas: position of '[' in the parent's stream
  const TokenStream* stream = nullptr;
  size_t name_pos = 0, params_open = 0, params_close = 0, body_open = 0, body_close = 0;
  const SourceFile* file = nullptr;   // reported position of the name
  int line = 0, column = 0;
  const MacroDef* macro = nullptr;    // written inside this macro's expansion (its body is in the #define)

  mutable std::unique_ptr<FunctionBody> body;  // parsed on first use

  std::string DisplayName() const;  // Kernel::operator()<AscendC::AIC>
  // Required parameters (without defaults) and the maximum (SIZE_MAX when variadic).
  size_t MinArgs() const;
  size_t MaxArgs() const;
};

// A statement that groups others: if / else / for / while / do / switch / a case label's
// statements / a plain { } block / try. Braceless bodies are controls too.
struct Control {
  enum Kind { kIf, kElse, kFor, kWhile, kDo, kSwitch, kCase, kBlock, kTry };
  Kind kind = kBlock;
  int parent = -1;                   // enclosing control, -1: the function body
  size_t keyword = 0;                // position of the keyword (or '{' for a block)
  size_t head_begin = 0, head_end = 0;  // condition / for-header tokens (case: the label)
  size_t body_begin = 0, body_end = 0;  // the statement it controls: [first token, last token]
  bool braced = false;               // body is { ... } (body_begin = '{', body_end = '}')
  bool is_constexpr = false;         // if constexpr
  int else_of = -1;                  // kElse: its if; kIf: the else-if chain parent if it is `else if`
  int line = 0;
  std::string loop_var;              // for loops: the declared variable (`for (uint32_t g = 0; ...)`)
  TypeName loop_var_type;
  bool IsLoop() const { return kind == kFor || kind == kWhile || kind == kDo; }
};

struct LocalDecl {
  std::string name;
  TypeName type;                     // `auto`: the type of a `Type(...)`/`Type{...}` initializer, if any
  int control = -1;                  // innermost control it is declared in
  size_t pos = 0;                    // position of the name
  bool is_alias = false;             // `using X = ...;` / typedef inside the body
  bool is_lambda = false;            // its initializer is a lambda (the FunctionDef is in `lambdas`)
};

struct CallSite {
  std::string name;                  // callee's name: "Process", "operator()" (functor call `obj(...)`)
  TypeName qualifier;                // `A::B::f(...)` -> A::B (a class or namespace); `Class<T>::f`
  std::string object;                // `obj.f()`, `obj->f()`, `a.b.f()`: "obj", "a.b"; "this"; "" when none
  bool object_complex = false;       // `f().g()`, `a[i].g()`: the object is not a name chain
  std::vector<TypeName> targs;       // explicit template arguments
  bool has_targs = false;
  std::vector<std::pair<size_t, size_t>> args;  // argument token ranges [b, e)
  size_t pos = 0;                    // position of the callee name (or the object for a functor call)
  size_t end = 0;                    // position of the closing ')'
  int control = -1;                  // innermost control
  int line = 0;                      // reported line
  const FunctionDef* lambda = nullptr;  // a callback lambda passed here runs here (name "lambda")
  const MacroDef* macro = nullptr;   // written inside this macro's expansion
  bool construct = false;            // `Type obj(args);` / `Type obj;` / `Type obj{..}`: `type` is constructed
  TypeName type;                     // construct: the type as written
};

// Blocks nested deeper than this inside one function are not parsed (real kernels nest < 20).
inline constexpr int kMaxBlockDepth = 256;

struct FunctionBody {
  std::vector<Control> controls;
  std::vector<LocalDecl> locals;     // variables, aliases, named lambdas; in order
  std::vector<CallSite> calls;       // in order; a callback's calls are in its own body
  std::vector<const FunctionDef*> lambdas;  // lambdas written in this body (named and callbacks)
  std::vector<size_t> returns;       // positions of `return`
  int statements = 0;                // expression/declaration statements (own work, roughly)

  // Innermost control containing stream position `pos`, -1 for none.
  int ControlAt(size_t pos) const;
};

}  // namespace optrace::source::index
