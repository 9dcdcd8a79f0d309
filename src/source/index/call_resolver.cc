#include "source/index/call_resolver.h"

#include <algorithm>
#include <cctype>

#include "source/index/core_types.h"

namespace optrace::source::index {
namespace {

std::string LastComponent(const std::string& s) {
  std::string x;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) x += c;
  size_t p = x.rfind("::");
  return p == std::string::npos ? x : x.substr(p + 2);
}

bool ScopeHas(const std::vector<std::string>& scope, const std::string& qualifier) {
  if (qualifier.empty()) return true;
  size_t pos = 0, at = 0;
  while (true) {
    size_t next = qualifier.find("::", pos);
    std::string part = qualifier.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (!part.empty()) {
      while (at < scope.size() && scope[at] != part) ++at;
      if (at >= scope.size()) return false;
      ++at;
    }
    if (next == std::string::npos) return true;
    pos = next + 2;
  }
}

struct Candidate {
  const FunctionDef* fn;
  ClassRef owner;
};

class Resolver {
 public:
  Resolver(const CodeIndex& index, const Instance& caller, const CallSite& call)
      : index_(index), caller_(caller), call_(call), env_(EnvOf(caller, call.pos)) {}

  std::vector<CallTarget> Run() {
    if (call_.lambda) {
      CallTarget t;
      t.inst.fn = call_.lambda;
      t.inst.bindings = caller_.bindings;
      t.inst.cls = caller_.cls;
      t.inst.unit = caller_.unit;
      out_.push_back(std::move(t));
      return out_;
    }
    for (const TypeName& a : call_.targs) targs_.push_back(index_.Close(a, env_));
    if (call_.construct) {
      Construct(index_.Close(call_.type, env_));
      return out_;
    }
    if (!call_.object.empty() || call_.object_complex) {
      Member();
      return out_;
    }
    if (!call_.qualifier.parts.empty()) {
      Qualified();
      return out_;
    }
    Unqualified();
    return out_;
  }

 private:
  // Constructors of a closed type.
  void Construct(const TypeName& type) {
    for (const ClassRef& r : Classes(type)) {
      std::vector<Candidate> c;
      for (auto& [fn, owner] : index_.Methods(r, r.cls->name))
        if (fn->is_ctor && owner.cls == r.cls) c.push_back({fn, owner});
      Select(c, false);
    }
  }

  // The class of an object name chain `a.b.c` (this: the caller's class).
  // Returns false when the type is unknown (not a name the index can see).
  bool ObjectClasses(std::vector<ClassRef>* refs, bool* external) {
    *external = false;
    if (call_.object_complex) return false;
    std::vector<std::string> parts;
    size_t pos = 0;
    while (pos <= call_.object.size()) {
      size_t dot = call_.object.find('.', pos);
      parts.push_back(call_.object.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos));
      if (dot == std::string::npos) break;
      pos = dot + 1;
    }
    std::vector<ClassRef> cur;
    size_t first = 0;
    if (parts[0] == "this") {
      if (!caller_.cls) return false;
      ClassRef r;
      r.cls = caller_.cls;
      r.bindings = caller_.bindings;
      cur.push_back(std::move(r));
      first = 1;
    } else {
      bool known = false;
      TypeName t = index_.TypeOfName(parts[0], env_, &known);
      if (!known) return false;
      if (t.Empty() || t.IsValue()) return false;
      cur = Classes(t);
      if (cur.empty()) {
        *external = true;
        return true;
      }
      first = 1;
    }
    for (size_t i = first; i < parts.size(); ++i) {
      std::vector<ClassRef> next;
      for (const ClassRef& r : cur) {
        Env e;
        e.cls = r.cls;
        e.bindings = &r.bindings;
        bool known = false;
        TypeName t = index_.TypeOfName(parts[i], e, &known);
        if (!known || t.Empty() || t.IsValue()) continue;
        std::vector<ClassRef> rs = Classes(t);
        if (rs.empty()) *external = true;
        next.insert(next.end(), rs.begin(), rs.end());
      }
      cur = std::move(next);
      if (cur.empty()) return *external;
    }
    *refs = std::move(cur);
    return true;
  }

  void Member() {
    std::vector<ClassRef> refs;
    bool external = false;
    if (ObjectClasses(&refs, &external)) {
      for (const ClassRef& r : refs) Select(Candidates(r, call_.name), false);
      return;
    }
    ByName();
  }

  // A method of an object whose type the index cannot see: unique by name among the classes.
  void ByName() {
    std::vector<const ClassDef*> classes = InUnit(index_.ClassesWithMethod(call_.name), [](const ClassDef* c) { return c->file; });
    if (classes.size() != 1) return;
    ClassRef r;
    r.cls = classes[0];
    Select(Candidates(r, call_.name), true);
  }

  std::vector<Candidate> Candidates(const ClassRef& r, const std::string& name) {
    std::vector<Candidate> c;
    for (auto& [fn, owner] : index_.Methods(r, name)) c.push_back({fn, owner});
    return c;
  }

  void Qualified() {
    TypeName q = index_.Close(call_.qualifier, env_);
    std::vector<ClassRef> refs = Classes(q);
    if (!refs.empty()) {
      for (const ClassRef& r : refs) {
        if (call_.name == r.cls->name) {
          TypeName t = q;
          Construct(t);
          continue;
        }
        Select(Candidates(r, call_.name), false);
      }
      return;
    }
    std::vector<Candidate> c;
    std::string qual = q.IsValue() ? q.value : q.Str();
    for (const FunctionDef* f : Free(call_.name))
      if (ScopeHas(f->scope, qual) || ScopeHas(f->qualifier.parts.empty() ? f->scope : std::vector<std::string>{}, qual))
        c.push_back({f, {}});
    Select(c, false);
  }

  void Unqualified() {
    const std::string& name = call_.name;
    // A named lambda of this body (or of an enclosing one).
    for (const FunctionDef* fn = caller_.fn; fn; fn = fn->parent) {
      const FunctionBody& body = index_.Body(*fn);
      for (const FunctionDef* l : body.lambdas) {
        if (l->is_callback || l->name != name) continue;
        CallTarget t;
        t.inst.fn = l;
        t.inst.bindings = caller_.bindings;
        t.inst.cls = caller_.cls;
        t.inst.unit = caller_.unit;
        out_.push_back(std::move(t));
        return;
      }
    }
    // An object: its operator().
    bool known = false;
    TypeName t = index_.TypeOfName(name, env_, &known);
    if (known) {
      if (t.Empty() || t.IsValue()) return;
      for (const ClassRef& r : Classes(t)) Select(Candidates(r, "operator()"), false);
      return;
    }
    // A member of the caller's class.
    if (caller_.cls) {
      ClassRef self;
      self.cls = caller_.cls;
      self.bindings = caller_.bindings;
      std::vector<Candidate> c = Candidates(self, name);
      if (!c.empty()) {
        Select(c, false);
        return;
      }
    }
    // A free function.
    std::vector<Candidate> c;
    for (const FunctionDef* f : Free(name)) c.push_back({f, {}});
    if (!c.empty()) {
      Select(c, false);
      return;
    }
    // A temporary: `Type<Args>(...)` constructs a class.
    TypeName tn;
    TypeName::Part p;
    p.name = name;
    p.args = call_.targs;
    p.templated = call_.has_targs;
    tn.parts.push_back(p);
    Construct(index_.Close(tn, env_));
  }

  // Narrows same-named candidates to the ones this call reaches and adds them as targets.
  void Select(std::vector<Candidate> cands, bool by_name) {
    if (cands.empty()) return;
    std::vector<Candidate> specs, prims;
    for (const Candidate& c : cands) (c.fn->specialization ? specs : prims).push_back(c);
    std::vector<std::pair<Candidate, unsigned>> chosen;
    if (call_.has_targs && !specs.empty()) {
      for (const Candidate& c : specs) {
        bool match = c.fn->spec_args.size() <= targs_.size();
        for (size_t i = 0; match && i < c.fn->spec_args.size(); ++i)
          match = LastComponent(c.fn->spec_args[i].Str()) == LastComponent(targs_[i].Str());
        if (match) chosen.push_back({c, SpecCore(*c.fn)});
      }
      if (chosen.empty())
        for (const Candidate& c : prims) chosen.push_back({c, kCoreBoth});
    } else if (!specs.empty()) {
      // No template arguments: the primary's default decides; `g_coreType` (the running core)
      // reaches every core specialisation.
      // (Looked up under the candidates' name: a functor call `cube()` is recorded as "cube".)
      const std::vector<TemplateParam>* declared = index_.DeclaredTemplate(specs[0].owner.cls, specs[0].fn->name);
      std::string def = declared && !declared->empty() ? (*declared)[0].default_arg.Str() : "";
      bool runtime = def.empty() || LastComponent(def) == "g_coreType";
      for (const Candidate& c : specs) {
        if (runtime || (!c.fn->spec_args.empty() && LastComponent(c.fn->spec_args[0].Str()) == LastComponent(def)))
          chosen.push_back({c, SpecCore(*c.fn)});
      }
      unsigned covered = kCoreNone;
      for (auto& [c, core] : chosen) covered |= core == kCoreNone ? kCoreBoth : core;
      if (chosen.empty() || covered != kCoreBoth)
        for (const Candidate& c : prims) chosen.push_back({c, kCoreBoth});
    } else {
      for (const Candidate& c : prims) chosen.push_back({c, kCoreBoth});
    }
    // Overloads by argument count.
    size_t n = call_.args.size();
    std::vector<std::pair<Candidate, unsigned>> fit;
    for (auto& pc : chosen)
      if (pc.first.fn->MinArgs() <= n && n <= pc.first.fn->MaxArgs()) fit.push_back(pc);
    if (!fit.empty()) chosen = std::move(fit);
    for (auto& [c, core] : chosen) {
      CallTarget t;
      t.inst.fn = c.fn;
      t.inst.cls = c.owner.cls ? c.owner.cls : c.fn->owner;
      t.inst.bindings = c.owner.bindings;
      t.inst.unit = caller_.unit;
      BindOwnerNames(*c.fn, c.owner, &t.inst.bindings);
      BindOwn(*c.fn, &t.inst.bindings);
      t.core = core == kCoreNone ? kCoreBoth : core;
      t.by_name = by_name;
      out_.push_back(std::move(t));
    }
  }

  const SourceFile* Near() const { return caller_.fn ? caller_.fn->file : nullptr; }

  // The ones defined in the caller's translation unit when there are any (else all: a unit
  // can miss a file the index reached by an include directory it does not know).
  template <typename T, typename FileOf>
  std::vector<T> InUnit(std::vector<T> all, FileOf file_of) const {
    if (!caller_.unit || all.size() < 2) return all;
    std::vector<T> in;
    for (T& x : all)
      if (caller_.unit->count(file_of(x))) in.push_back(std::move(x));
    return in.empty() ? all : in;
  }
  std::vector<ClassRef> Classes(const TypeName& closed) const {
    return InUnit(index_.ResolveClass(closed, Near()), [](const ClassRef& r) { return r.cls->file; });
  }
  std::vector<const FunctionDef*> Free(const std::string& name) const {
    return InUnit(index_.FreeFunctions(name), [](const FunctionDef* f) { return f->file; });
  }

  static unsigned SpecCore(const FunctionDef& f) {
    for (const TypeName& a : f.spec_args) {
      unsigned c = CoreOfText(a.Str());
      if (c == kCoreAic || c == kCoreAiv) return c;
    }
    return kCoreBoth;
  }

  // An out-of-class definition may name the class's parameters differently.
  static void BindOwnerNames(const FunctionDef& f, const ClassRef& owner, Bindings* b) {
    if (!owner.cls) return;
    for (size_t i = 0; i < f.owner_param_names.size() && i < owner.cls->tparams.size(); ++i) {
      const TypeName* v = owner.bindings.Find(owner.cls->tparams[i].name);
      if (v && f.owner_param_names[i] != owner.cls->tparams[i].name) b->Set(f.owner_param_names[i], *v);
    }
  }

  // The function's own template parameters: explicit arguments, else defaults.
  void BindOwn(const FunctionDef& f, Bindings* b) {
    if (f.specialization) return;
    // Out-of-class definitions repeat the class's heads first; their own parameters come last.
    size_t own_begin = 0;
    if (f.owner && !f.owner_param_names.empty() && f.tparams.size() >= f.owner->tparams.size())
      own_begin = f.owner->tparams.size();
    size_t a = 0;
    for (size_t i = own_begin; i < f.tparams.size(); ++i, ++a) {
      const TemplateParam& p = f.tparams[i];
      if (p.name.empty()) continue;
      if (a < targs_.size()) {
        b->Set(p.name, targs_[a]);
      } else if (!p.default_arg.Empty() && !b->Find(p.name)) {
        Env e;
        e.cls = f.owner;
        e.bindings = b;
        b->Set(p.name, index_.Close(p.default_arg, e));
      }
    }
  }

  const CodeIndex& index_;
  const Instance& caller_;
  const CallSite& call_;
  Env env_;
  std::vector<TypeName> targs_;
  std::vector<CallTarget> out_;
};

}  // namespace

Env EnvOf(const Instance& inst, size_t pos) {
  Env e;
  e.fn = inst.fn;
  e.pos = pos;
  e.cls = inst.cls;
  e.bindings = &inst.bindings;
  return e;
}

std::vector<CallTarget> ResolveCall(const CodeIndex& index, const Instance& caller, const CallSite& call) {
  return Resolver(index, caller, call).Run();
}

}  // namespace optrace::source::index
