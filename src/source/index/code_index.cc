#include "source/index/code_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>

#include "source/index/core_types.h"
#include "source/index/function_body.h"

namespace optrace::source::index {
namespace {

constexpr int kMaxCloseDepth = 24;

std::string NoSpace(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// Every qualifier part appears in `scope`, in order (namespaces written in full or in part).
bool ScopeCompatible(const std::string& qualifier, const std::vector<std::string>& scope) {
  if (qualifier.empty()) return true;
  size_t pos = 0, at = 0;
  while (pos <= qualifier.size()) {
    size_t next = qualifier.find("::", pos);
    std::string part = qualifier.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (!part.empty()) {
      while (at < scope.size() && scope[at] != part) ++at;
      if (at >= scope.size()) return false;
      ++at;
    }
    if (next == std::string::npos) break;
    pos = next + 2;
  }
  return true;
}

const TemplateParam* FindParam(const std::vector<TemplateParam>& params, const std::string& name) {
  for (const TemplateParam& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace

const TypeName* Bindings::Find(const std::string& name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

void Bindings::Set(const std::string& name, TypeName type) {
  map_[name] = std::move(type);
  key_valid_ = false;
}

const std::string& Bindings::Key() const {
  if (!key_valid_) {
    key_.clear();
    for (const auto& [n, t] : map_) key_ += n + "=" + t.Str() + ";";
    key_valid_ = true;
  }
  return key_;
}

const SourceFile* CodeIndex::ResolveSplice(const void* ctx, const SourceFile* from, const Directive& d) {
  return static_cast<const CodeIndex*>(ctx)->SpliceTarget(from, d);
}

const SourceFile* CodeIndex::SpliceTarget(const SourceFile* from, const Directive& d) const {
  if (d.include_path.empty()) return nullptr;
  std::filesystem::path p = (from->path.parent_path() / d.include_path).lexically_normal();
  for (const SourceFile* f : files_) {
    if (f->path == p) {
      spliced_.insert(f);
      return f;
    }
  }
  return nullptr;
}

CodeIndex::~CodeIndex() = default;

CodeIndex::CodeIndex(const std::vector<const SourceFile*>& files) : CodeIndex(files, 12'000'000) {}

CodeIndex::CodeIndex(const std::vector<const SourceFile*>& files, size_t expansion_budget)
    : files_(files), macros_(files), expansion_budget_(expansion_budget) {
  for (const SourceFile* f : files_) streams_[f] = TokenStream::ForFile(*f, macros_, &ResolveSplice, this, &expansion_budget_);
  for (const SourceFile* f : files_) {
    if (spliced_.count(f)) continue;  // its declarations are read inside the body that includes it
    ParseDeclarations(*streams_[f], &decls_);
  }
  Link();
  LinkIncludes();
  // #if regions naming a core type (#else flips, #elif names its own).
  for (const SourceFile* f : files_) {
    struct Frame {
      unsigned core;
      int start;
    };
    std::vector<Frame> stack;
    auto& out = regions_[f];
    for (const Directive& d : f->lex.directives) {
      switch (d.kind) {
        case DirectiveKind::kIf:
        case DirectiveKind::kIfdef:
        case DirectiveKind::kIfndef: {
          unsigned c = CoreOfText(d.argument);
          if (d.kind == DirectiveKind::kIfndef) c = FlipCore(c);
          stack.push_back({c, d.line});
          break;
        }
        case DirectiveKind::kElif:
        case DirectiveKind::kElse:
          if (stack.empty()) break;
          if (stack.back().core != kCoreNone) out.push_back({stack.back().start, d.line, stack.back().core});
          stack.back() = {d.kind == DirectiveKind::kElse ? FlipCore(stack.back().core) : CoreOfText(d.argument),
                          d.line};
          break;
        case DirectiveKind::kEndif:
          if (stack.empty()) break;
          if (stack.back().core != kCoreNone) out.push_back({stack.back().start, d.line, stack.back().core});
          stack.pop_back();
          break;
        default:
          break;
      }
    }
  }
}

void CodeIndex::Link() {
  for (const auto& c : decls_.classes) classes_by_name_.emplace(c->name, c.get());
  for (const auto& a : decls_.aliases) ns_aliases_.emplace(a.name, &a);
  for (const auto& up : decls_.functions) {
    FunctionDef* f = up.get();
    if (!f->owner && !f->qualifier.parts.empty()) {
      // Out-of-class definition: the class its qualifier names.
      const ClassDef* best = nullptr;
      int best_score = -1;
      auto [lo, hi] = classes_by_name_.equal_range(f->qualifier.Last());
      for (auto it = lo; it != hi; ++it) {
        const ClassDef* c = it->second;
        if (!ScopeCompatible(f->qualifier.Qualifier(), c->scope) && !ScopeCompatible(f->qualifier.Qualifier(), f->scope))
          continue;
        int score = 0;
        if (!c->specialization) score += 2;
        if (c->tparams.size() == f->owner_param_names.size()) score += 1;
        if (c->file == f->file) score += 1;
        if (score > best_score) {
          best = c;
          best_score = score;
        }
      }
      if (best) {
        f->owner = best;
        const_cast<ClassDef*>(best)->methods.emplace(f->name, f);
        if (f->name == best->name) f->is_ctor = f->returns_void = true;
      }
    }
    if (f->is_kernel) kernels_.push_back(f);
    if (f->owner) method_owner_.emplace(f->name, f->owner);
    else free_by_name_.emplace(f->name, f);
  }
}

void CodeIndex::LinkIncludes() {
  std::map<std::filesystem::path, const SourceFile*> by_path;
  for (const SourceFile* f : files_) by_path.emplace(f->path, f);
  for (const SourceFile* f : files_) {
    std::vector<const SourceFile*>& out = includes_[f];
    for (const Directive& d : f->lex.directives) {
      if (d.kind != DirectiveKind::kInclude || !d.active || d.include_path.empty()) continue;
      auto beside = by_path.find((f->path.parent_path() / d.include_path).lexically_normal());
      if (beside != by_path.end()) {
        out.push_back(beside->second);
        continue;
      }
      std::string tail = "/" + std::filesystem::path(d.include_path).lexically_normal().generic_string();
      for (const SourceFile* g : files_)
        if (g->path.generic_string().ends_with(tail)) out.push_back(g);
    }
  }
}

const FileUnit* CodeIndex::UnitOf(const SourceFile* f) const {
  auto cached = units_.find(f);
  if (cached != units_.end()) return cached->second.get();
  if (root_closures_.empty()) {  // once: every root with all it includes
    std::set<const SourceFile*> included;
    for (const auto& [from, tos] : includes_)
      for (const SourceFile* to : tos)
        if (to != from) included.insert(to);
    for (const SourceFile* root : files_) {
      if (included.count(root)) continue;
      FileUnit seen{root};
      std::vector<const SourceFile*> stack{root};
      while (!stack.empty()) {
        const SourceFile* x = stack.back();
        stack.pop_back();
        auto it = includes_.find(x);
        if (it == includes_.end()) continue;
        for (const SourceFile* to : it->second)
          if (seen.insert(to).second) stack.push_back(to);
      }
      root_closures_.push_back(std::move(seen));
    }
  }
  auto unit = std::make_unique<FileUnit>();
  for (const FileUnit& reach : root_closures_)
    if (reach.count(f)) unit->insert(reach.begin(), reach.end());
  if (unit->empty() || unit->size() == files_.size()) unit.reset();
  return (units_[f] = std::move(unit)).get();
}

bool CodeIndex::CalledByAnotherKernel(const FunctionDef& k) const {
  for (const FunctionDef* other : kernels_) {
    if (other == &k || other->name == k.name) continue;
    for (const CallSite& c : Body(*other).calls)
      if (c.name == k.name) return true;
  }
  return false;
}

const FunctionDef* CodeIndex::ForwardedKernel(const FunctionDef& k) const {
  bool calls_its_name = false;
  for (const CallSite& c : Body(k).calls)
    calls_its_name = calls_its_name || (c.name == k.name && c.object.empty() && c.qualifier.Empty());
  if (!calls_its_name) return nullptr;
  const FunctionDef* other = nullptr;
  for (const FunctionDef* o : kernels_) {
    if (o == &k || o->name != k.name) continue;
    if (!other || (other->tparams.empty() && !o->tparams.empty())) other = o;  // a template: what the call names
  }
  return other;
}

const FunctionBody& CodeIndex::Body(const FunctionDef& f) const {
  if (!f.body) ParseBody(f, &lambdas_);
  return *f.body;
}

const TokenStream* CodeIndex::Stream(const SourceFile* f) const {
  auto it = streams_.find(f);
  return it == streams_.end() ? nullptr : it->second.get();
}

unsigned CodeIndex::RegionCore(const SourceFile* f, int line) const {
  auto it = regions_.find(f);
  if (it == regions_.end()) return kCoreNone;
  unsigned c = kCoreBoth;
  for (const Region& r : it->second)
    if (line > r.first && line < r.last) c &= r.core;
  return c == kCoreBoth ? kCoreNone : c;
}

TypeName CodeIndex::Close(const TypeName& t, const Env& env) const { return CloseDepth(t, env, 0); }

TypeName CodeIndex::CloseValue(const std::string& value, const Env& env) const {
  TypeName v;
  v.value = value;
  if (!env.bindings || env.bindings->empty()) return v;
  std::string out, word;
  auto flush = [&] {
    const TypeName* b = word.empty() ? nullptr : env.bindings->Find(word);
    out += b ? b->Str() : word;
    word.clear();
  };
  for (char c : value) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else {
      flush();
      out += c;
    }
  }
  flush();
  v.value = out;
  return v;
}

TypeName CodeIndex::CloseDepth(const TypeName& t, const Env& env, int depth) const {
  if (depth > kMaxCloseDepth) {
    close_cut_floor_ = -1;  // depends on how deep the closing started: never kept
    return t;
  }
  std::string key = t.Str();
  key += t.pointer ? "*|" : "|";
  // env.pos matters only through the block-scoped aliases of env.fn visible there: key by those.
  key += fmt::format("{}|{}|", static_cast<const void*>(env.fn), static_cast<const void*>(env.cls));
  if (env.fn) {
    const FunctionBody& body = Body(*env.fn);
    int at = -2;
    for (size_t i = 0; i < body.locals.size(); ++i) {
      const auto& l = body.locals[i];
      if (!l.is_alias || l.pos >= env.pos) continue;
      if (at == -2) at = body.ControlAt(env.pos);
      bool visible = l.control < 0;
      for (int c = at; c >= 0 && !visible; c = body.controls[static_cast<size_t>(c)].parent) visible = c == l.control;
      if (visible) key += fmt::format("{},", i);
    }
    key += '|';
  }
  if (env.bindings) key += env.bindings->Key();
  if (auto it = close_cache_.find(key); it != close_cache_.end()) return it->second;
  // A type whose closing needs itself (a template parameter looked up through a base class whose
  // arguments name that parameter) is left as written there, as past the depth limit; the
  // recursion used to run to the limit with every argument branching, exponentially.
  const int frame = static_cast<int>(close_active_.size());
  if (auto [at, fresh] = close_active_.try_emplace(key, frame); !fresh) {
    close_cut_floor_ = std::min(close_cut_floor_, at->second);
    return t;
  }
  const int outer_floor = close_cut_floor_;
  close_cut_floor_ = INT_MAX;
  ++closings_computed_;
  TypeName out = CloseUncached(t, env, depth);
  close_active_.erase(key);
  const int floor = close_cut_floor_;
  close_cut_floor_ = std::min(outer_floor, floor);
  // A cycle back to this closing or one it started is cut the same way from any path; a cut
  // back to a closing that was under way outside it depends on the path that led here.
  if (floor >= frame) close_cache_.emplace(std::move(key), out);
  return out;
}

TypeName CodeIndex::CloseUncached(const TypeName& t, const Env& env, int depth) const {
  if (t.IsValue()) return CloseValue(t.value, env);
  const std::string& head = t.parts[0].name;
  TypeName out;
  bool replaced = false;
  if (!t.global) {
    if (env.bindings) {
      if (const TypeName* b = env.bindings->Find(head)) {
        out = *b;
        replaced = true;
      }
    }
    if (!replaced && env.fn) {
      const FunctionBody& body = Body(*env.fn);
      int at = body.ControlAt(env.pos);
      for (auto it = body.locals.rbegin(); it != body.locals.rend(); ++it) {
        if (!it->is_alias || it->name != head || it->pos >= env.pos) continue;
        bool visible = it->control < 0;
        for (int c = at; c >= 0 && !visible; c = body.controls[static_cast<size_t>(c)].parent)
          visible = c == it->control;
        if (!visible) continue;
        Env inner = env;
        inner.pos = it->pos;
        out = CloseDepth(it->type, inner, depth + 1);
        replaced = true;
        break;
      }
      // A lambda sees the aliases of the function it is written in.
      if (!replaced && env.fn->parent) {
        Env outer = env;
        outer.fn = env.fn->parent;
        outer.pos = env.fn->lambda_at;
        TypeName one;
        one.parts.push_back(t.parts[0]);
        one.parts[0].args.clear();
        one.parts[0].templated = false;
        TypeName r = CloseDepth(one, outer, depth + 1);
        if (r.Str() != one.Str()) {
          out = r;
          replaced = true;
        }
      }
    }
    if (!replaced) {
      for (const ClassDef* c = env.cls; c && !replaced; c = c->outer) {
        auto it = c->aliases.find(head);
        if (it == c->aliases.end()) continue;
        Env inner;
        inner.cls = c;
        inner.bindings = env.bindings;
        out = CloseDepth(it->second, inner, depth + 1);
        replaced = true;
      }
    }
    if (!replaced && env.cls) {
      // Aliases of base classes.
      for (const TypeName& base : env.cls->bases) {
        Env inner;
        inner.cls = env.cls;
        inner.bindings = env.bindings;
        TypeName bt = CloseDepth(base, inner, depth + 1);
        for (const ClassRef& br : ResolveClass(bt)) {
          auto it = br.cls->aliases.find(head);
          if (it == br.cls->aliases.end()) continue;
          Env be;
          be.cls = br.cls;
          be.bindings = &br.bindings;
          out = CloseDepth(it->second, be, depth + 1);
          replaced = true;
          break;
        }
        if (replaced) break;
      }
    }
    if (!replaced && t.parts.size() == 1) {
      auto [lo, hi] = ns_aliases_.equal_range(head);
      if (lo != hi) {
        out = CloseDepth(lo->second->target, Env{}, depth + 1);
        replaced = true;
      }
    }
  }
  if (replaced && t.parts.size() == 1 && out.alias.empty()) out.alias = head;
  if (!replaced) {
    out.global = t.global;
    out.pointer = t.pointer;
    out.parts.push_back(t.parts[0]);
    for (TypeName& a : out.parts[0].args) a = CloseDepth(a, env, depth + 1);
  }
  // The remaining parts: member types of what the head resolved to.
  for (size_t i = 1; i < t.parts.size(); ++i) {
    TypeName::Part p = t.parts[i];
    for (TypeName& a : p.args) a = CloseDepth(a, env, depth + 1);
    bool member = false;
    if (!out.IsValue()) {
      for (const ClassRef& r : ResolveClass(out, env.fn ? env.fn->file : env.cls ? env.cls->file : nullptr)) {
        auto it = r.cls->aliases.find(p.name);
        if (it != r.cls->aliases.end()) {
          Env inner;
          inner.cls = r.cls;
          inner.bindings = &r.bindings;
          out = CloseDepth(it->second, inner, depth + 1);
          member = true;
          break;
        }
      }
    }
    if (!member && !out.IsValue() && ResolveClass(out).empty()) {
      // A member type of an external template (catlass `TileCopy::PrologueB`): by convention
      // it is the template argument written under that name.
      auto strip = [](std::string x) {
        while (!x.empty() && x.back() == '_') x.pop_back();
        return x;
      };
      for (const TypeName& a : out.parts.back().args) {
        if (!a.alias.empty() && strip(a.alias) == strip(p.name)) {
          TypeName arg = a;  // `a` lives inside `out`: copy it before out is overwritten
          out = std::move(arg);
          member = true;
          break;
        }
      }
    }
    if (!member) {
      if (out.IsValue()) {
        out.value += "::" + p.name;
      } else {
        out.parts.push_back(std::move(p));
      }
    }
  }
  if (t.pointer) out.pointer = true;
  return out;
}

bool CodeIndex::Unify(const TypeName& pattern, const TypeName& concrete, const std::vector<TemplateParam>& params,
                      Bindings* out, int* score) const {
  auto bind = [&](const std::string& name) {
    if (const TypeName* bound = out->Find(name)) return NoSpace(bound->Str()) == NoSpace(concrete.Str());
    out->Set(name, concrete);
    return true;
  };
  if (pattern.IsValue()) {
    if (FindParam(params, pattern.value)) return bind(pattern.value);
    if (NoSpace(pattern.value) == NoSpace(concrete.Str())) {
      ++*score;
      return true;
    }
    return false;
  }
  if (pattern.parts.size() == 1 && !pattern.parts[0].templated && FindParam(params, pattern.parts[0].name))
    return bind(pattern.parts[0].name);
  if (concrete.IsValue()) return NoSpace(pattern.Str()) == NoSpace(concrete.value);
  if (pattern.Last() != concrete.Last()) {
    // A concrete type the index cannot see (an unbound parameter, a build macro) matches anything.
    bool unknown = concrete.parts.size() == 1 && !concrete.parts[0].templated &&
                   classes_by_name_.count(concrete.Last()) == 0 && !IsFundamentalType(concrete.Last()) &&
                   concrete.Last() != "void";
    return unknown;
  }
  ++*score;
  const auto& pa = pattern.parts.back().args;
  const auto& ca = concrete.parts.back().args;
  size_t n = std::min(pa.size(), ca.size());
  if (pa.size() != ca.size()) {
    bool pack = !pa.empty() && pa.back().parts.size() == 1 && FindParam(params, pa.back().Last()) &&
                FindParam(params, pa.back().Last())->pack;
    if (!pack && pa.size() > ca.size()) return false;
  }
  for (size_t i = 0; i < n; ++i)
    if (!Unify(pa[i], ca[i], params, out, score)) return false;
  return true;
}

namespace {

// Length of the common directory prefix of two files' relative paths.
size_t CommonDirs(const SourceFile* a, const SourceFile* b) {
  const std::string& x = a->rel;
  const std::string& y = b->rel;
  size_t n = 0, i = 0;
  while (i < x.size() && i < y.size() && x[i] == y[i]) {
    if (x[i] == '/') n = i + 1;
    ++i;
  }
  return n;
}

// Among definitions of the same class (arch20/ and arch22/ copies chosen by #if), the ones in
// the directory nearest to the code that uses them.
std::vector<ClassRef> Nearest(std::vector<ClassRef> refs, const SourceFile* near) {
  if (!near || refs.size() < 2) return refs;
  std::map<std::string, size_t> best;
  auto key = [](const ClassRef& r) {
    std::string k = r.cls->QualifiedName();
    for (const TypeName& a : r.cls->spec_args) k += "|" + a.Str();
    return k;
  };
  for (const ClassRef& r : refs) {
    size_t d = CommonDirs(r.cls->file, near);
    auto [it, fresh] = best.emplace(key(r), d);
    if (!fresh && d > it->second) it->second = d;
  }
  std::vector<ClassRef> out;
  for (ClassRef& r : refs)
    if (CommonDirs(r.cls->file, near) == best[key(r)]) out.push_back(std::move(r));
  return out;
}

// `std::conditional<C, A, B>::type` / `std::conditional_t<C, A, B>`: the branch a literal
// condition picks, or both when the condition depends on what the index cannot evaluate
// (a template flag): a plan must see the kernel either branch instantiates.
bool ConditionalBranches(const TypeName& t, std::vector<const TypeName*>* branches) {
  size_t n = t.parts.size();
  if (n == 0) return false;
  const TypeName::Part* c = nullptr;
  if (t.parts[n - 1].name == "conditional_t") {
    c = &t.parts[n - 1];
  } else if (n >= 2 && t.parts[n - 1].name == "type" && t.parts[n - 2].name == "conditional") {
    c = &t.parts[n - 2];
  }
  if (!c || c->args.size() != 3) return false;
  std::string cond;
  for (char ch : c->args[0].IsValue() ? c->args[0].value : c->args[0].Str())
    if (ch != '(' && ch != ')' && ch != ' ') cond += ch;
  bool digits = !cond.empty() && cond.find_first_not_of("0123456789") == std::string::npos;
  bool is_true = cond == "true" || (digits && cond.find_first_not_of('0') != std::string::npos);
  bool is_false = cond == "false" || (digits && !is_true);
  if (!is_false) branches->push_back(&c->args[1]);
  if (!is_true) branches->push_back(&c->args[2]);
  return true;
}

}  // namespace

std::vector<ClassRef> CodeIndex::ResolveClass(const TypeName& closed, const SourceFile* near) const {
  return Nearest(ResolveClassAll(closed), near);
}

std::vector<ClassRef> CodeIndex::ResolveClassAll(const TypeName& closed) const {
  std::string key = closed.Str();
  auto it = resolve_cache_.find(key);
  if (it == resolve_cache_.end()) it = resolve_cache_.emplace(std::move(key), ResolveClassUncached(closed)).first;
  std::vector<ClassRef> out = it->second;
  for (ClassRef& r : out)
    if (r.type.Str() == it->first) r.type = closed;  // the caller's spelling (argument aliases) of the type
  return out;
}

std::vector<ClassRef> CodeIndex::ResolveClassUncached(const TypeName& closed) const {
  std::vector<ClassRef> out;
  if (closed.IsValue()) return out;
  std::vector<const TypeName*> branches;
  if (ConditionalBranches(closed, &branches)) {
    for (const TypeName* b : branches)
      for (ClassRef& r : ResolveClassAll(*b)) out.push_back(std::move(r));
    return out;
  }
  auto [lo, hi] = classes_by_name_.equal_range(closed.Last());
  if (lo == hi) return out;
  std::string qual = closed.Qualifier();
  const auto& args = closed.parts.back().args;
  std::vector<const ClassDef*> primaries, specs;
  for (auto it = lo; it != hi; ++it) {
    const ClassDef* c = it->second;
    if (!ScopeCompatible(qual, c->scope)) continue;
    (c->specialization ? specs : primaries).push_back(c);
  }
  int best = 0;
  std::vector<ClassRef> best_specs;
  if (closed.parts.back().templated) {
    for (const ClassDef* s : specs) {
      Bindings b;
      int score = 0;
      // Pattern arguments beyond the written ones come from the primary's defaults: unconstrained.
      bool ok = true;
      for (size_t i = 0; ok && i < s->spec_args.size() && i < args.size(); ++i)
        ok = Unify(s->spec_args[i], args[i], s->tparams, &b, &score);
      if (!ok) continue;
      ClassRef r;
      r.cls = s;
      r.bindings = std::move(b);
      r.type = closed;
      if (score > best) {
        best = score;
        best_specs.clear();
      }
      if (score == best) best_specs.push_back(std::move(r));
    }
  }
  if (!best_specs.empty() && (best > 0 || primaries.empty())) return best_specs;
  for (const ClassDef* p : primaries) {
    ClassRef r;
    r.cls = p;
    r.type = closed;
    for (size_t i = 0; i < p->tparams.size(); ++i) {
      const TemplateParam& tp = p->tparams[i];
      if (tp.name.empty()) continue;
      if (i < args.size()) {
        if (tp.pack) {
          TypeName packed;
          for (size_t k = i; k < args.size(); ++k) packed.value += (k > i ? ", " : "") + args[k].Str();
          r.bindings.Set(tp.name, packed);
        } else {
          r.bindings.Set(tp.name, args[i]);
        }
      } else if (!tp.default_arg.Empty()) {
        Env e;
        e.cls = p;
        e.bindings = &r.bindings;
        r.bindings.Set(tp.name, CloseDepth(tp.default_arg, e, 1));
      }
    }
    out.push_back(std::move(r));
  }
  if (out.empty()) return best_specs;
  return out;
}

TypeName CodeIndex::TypeOfName(const std::string& name, const Env& env, bool* known) const {
  *known = false;
  for (const FunctionDef* fn = env.fn; fn; fn = fn->parent) {
    size_t pos = fn == env.fn ? env.pos : 0;
    if (fn != env.fn) {
      // A lambda's captures: the enclosing function at the lambda.
      const FunctionDef* child = env.fn;
      while (child && child->parent != fn) child = child->parent;
      pos = child ? child->lambda_at : 0;
    }
    const FunctionBody& body = Body(*fn);
    int at = body.ControlAt(pos);
    for (auto it = body.locals.rbegin(); it != body.locals.rend(); ++it) {
      if (it->is_alias || it->name != name || it->pos >= pos) continue;
      bool visible = it->control < 0;
      for (int c = at; c >= 0 && !visible; c = body.controls[static_cast<size_t>(c)].parent)
        visible = c == it->control;
      if (!visible) continue;
      *known = true;
      if (it->type.Empty() || (it->type.parts.size() == 1 && it->type.Last() == "auto")) return {};
      Env e = env;
      e.fn = fn;
      e.pos = it->pos;
      return Close(it->type, e);
    }
    for (const Param& p : fn->params) {
      if (p.name != name) continue;
      *known = true;
      Env e = env;
      e.fn = fn;
      e.pos = fn->body_open;
      return Close(p.type, e);
    }
  }
  // Fields of the class, its enclosing classes and its bases.
  for (const ClassDef* c = env.cls; c; c = c->outer) {
    auto it = c->fields.find(name);
    if (it != c->fields.end()) {
      *known = true;
      Env e;
      e.cls = c;
      e.bindings = env.bindings;
      return Close(it->second, e);
    }
  }
  if (env.cls) {
    for (const TypeName& base : env.cls->bases) {
      Env e;
      e.cls = env.cls;
      e.bindings = env.bindings;
      for (const ClassRef& br : ResolveClass(Close(base, e))) {
        Env be;
        be.cls = br.cls;
        be.bindings = &br.bindings;
        TypeName t = TypeOfName(name, be, known);
        if (*known) return t;
      }
    }
  }
  return {};
}

std::vector<std::pair<const FunctionDef*, ClassRef>> CodeIndex::Methods(const ClassRef& c,
                                                                        const std::string& name) const {
  std::vector<std::pair<const FunctionDef*, ClassRef>> out;
  if (!c.cls) return out;
  auto [lo, hi] = c.cls->methods.equal_range(name);
  for (auto it = lo; it != hi; ++it) out.push_back({it->second, c});
  if (!out.empty()) return out;
  // Inherited: search the bases (a few levels).
  struct Frame {
    ClassRef ref;
    int depth;
  };
  std::vector<Frame> work{{c, 0}};
  while (!work.empty() && out.empty()) {
    Frame f = work.back();
    work.pop_back();
    if (f.depth > 6) continue;
    for (const TypeName& base : f.ref.cls->bases) {
      Env e;
      e.cls = f.ref.cls;
      e.bindings = &f.ref.bindings;
      for (ClassRef br : ResolveClass(Close(base, e), f.ref.cls->file)) {
        auto [l2, h2] = br.cls->methods.equal_range(name);
        for (auto it = l2; it != h2; ++it) out.push_back({it->second, br});
        work.push_back({br, f.depth + 1});
      }
    }
  }
  return out;
}

std::vector<const FunctionDef*> CodeIndex::FreeFunctions(const std::string& name) const {
  std::vector<const FunctionDef*> out;
  auto [lo, hi] = free_by_name_.equal_range(name);
  for (auto it = lo; it != hi; ++it) out.push_back(it->second);
  return out;
}

std::vector<const ClassDef*> CodeIndex::ClassesWithMethod(const std::string& name) const {
  std::vector<const ClassDef*> out;
  auto [lo, hi] = method_owner_.equal_range(name);
  for (auto it = lo; it != hi; ++it)
    if (std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
  return out;
}

const std::vector<TemplateParam>* CodeIndex::DeclaredTemplate(const ClassDef* c, const std::string& name) const {
  if (!c) return nullptr;
  auto it = c->declared.find(name);
  if (it != c->declared.end() && !it->second.empty()) return &it->second;
  // A primary template defined in the class (not only declared).
  auto [lo, hi] = c->methods.equal_range(name);
  for (auto m = lo; m != hi; ++m)
    if (!m->second->specialization && !m->second->tparams.empty()) return &m->second->tparams;
  return nullptr;
}

}  // namespace optrace::source::index
