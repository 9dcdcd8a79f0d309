#include "collect/pickle.h"

#include <cstring>
#include <unordered_map>

namespace optrace::collect {
namespace {

using Kind = PyObj::Kind;

PyRef Make(Kind k) {
  auto o = std::make_shared<PyObj>();
  o->kind = k;
  return o;
}
PyRef MakeInt(int64_t v) {
  PyRef o = Make(Kind::kInt);
  o->i = v;
  return o;
}
PyRef MakeStr(Kind k, std::string s) {
  PyRef o = Make(k);
  o->s = std::move(s);
  return o;
}

bool IntList(const PyRef& o, std::vector<int64_t>& out) {
  if (!o || (o->kind != Kind::kTuple && o->kind != Kind::kList)) return false;
  out.clear();
  for (const PyRef& x : o->items) {
    if (x->kind != Kind::kInt) return false;
    out.push_back(x->i);
  }
  return true;
}

class Machine {
 public:
  Machine(std::string_view data, std::string_view origin) : d_(data), origin_(origin) {}

  Result<PyRef> Run() {
    while (pos_ < d_.size()) {
      const size_t op_at = pos_;
      const uint8_t op = static_cast<uint8_t>(d_[pos_++]);
      Status st = Step(op, op_at);
      if (!st.ok()) return st;
      if (done_) {
        if (stack_.empty()) return Err(op_at, "STOP with an empty stack");
        return stack_.back();
      }
    }
    return BadInputError("{}: the pickle ends without STOP at byte {}; the file is truncated", origin_, pos_);
  }

 private:
  Status Err(size_t at, std::string_view what) {
    return BadInputError("{}: byte {}: {}; this is not a pickle torch.save writes", origin_, at, what);
  }
  bool Need(size_t n) const { return pos_ + n <= d_.size(); }
  template <typename T>
  T Read() {
    T v;
    std::memcpy(&v, d_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  Status Push(PyRef o) {
    stack_.push_back(std::move(o));
    return Status::Ok();
  }
  Result<PyRef> Pop(size_t at) {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) return Err(at, "stack underflow");
    PyRef o = std::move(stack_.back());
    stack_.pop_back();
    return o;
  }
  // Items above the last mark, removing them and the mark.
  Result<std::vector<PyRef>> PopMark(size_t at) {
    if (marks_.empty()) return Err(at, "no MARK");
    size_t m = marks_.back();
    marks_.pop_back();
    if (m > stack_.size()) return Err(at, "stack underflow below the MARK");
    std::vector<PyRef> items(std::make_move_iterator(stack_.begin() + m), std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }
  Status ReadLine(std::string& out, size_t at) {
    size_t nl = d_.find('\n', pos_);
    if (nl == std::string_view::npos) return Err(at, "unterminated text argument");
    out.assign(d_.data() + pos_, nl - pos_);
    pos_ = nl + 1;
    return Status::Ok();
  }
  Status PushString(Kind k, size_t n, size_t at) {
    if (!Need(n)) return Err(at, "string runs past the end");
    PyRef o = MakeStr(k, std::string(d_.substr(pos_, n)));
    pos_ += n;
    return Push(std::move(o));
  }
  Status Memo(uint64_t idx, size_t at) {
    if (stack_.empty()) return Err(at, "memo put with an empty stack");
    memo_[idx] = stack_.back();
    return Status::Ok();
  }
  Status Get(uint64_t idx, size_t at) {
    auto it = memo_.find(idx);
    if (it == memo_.end()) return Err(at, "memo get of an unknown index");
    return Push(it->second);
  }

  // Persistent id -> storage: ('storage', <global torch.XStorage>, key, location, numel).
  Result<PyRef> LoadPersistent(const PyRef& pid, size_t at) {
    if (pid->kind != Kind::kTuple || pid->items.size() < 5 || pid->items[0]->kind != Kind::kStr ||
        pid->items[0]->s != "storage") {
      return Err(at, "persistent id is not a ('storage', type, key, location, numel) tuple");
    }
    const PyRef& type = pid->items[1];
    const PyRef& key = pid->items[2];
    const PyRef& numel = pid->items[4];
    if (type->kind != Kind::kGlobal || key->kind != Kind::kStr || numel->kind != Kind::kInt) {
      return Err(at, "persistent id has an unexpected storage type, key or size");
    }
    PyRef st = Make(Kind::kStorage);
    st->s = type->s;
    st->key = key->s;
    st->i = numel->i;
    return st;
  }

  Result<PyRef> Reduce(const PyRef& callable, const PyRef& args, size_t at) {
    if (callable->kind != Kind::kGlobal) return Err(at, "REDUCE of something that is not a global");
    const std::string& name = callable->s;
    const std::vector<PyRef> empty;
    const std::vector<PyRef>& a = args->kind == Kind::kTuple ? args->items : empty;
    if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor") {
      PyRef t = Make(Kind::kTensor);
      if (a.size() < 4 || a[0]->kind != Kind::kStorage || a[1]->kind != Kind::kInt || !IntList(a[2], t->shape) ||
          !IntList(a[3], t->stride)) {
        return Err(at, "_rebuild_tensor_v2 with unexpected arguments");
      }
      t->items.push_back(a[0]);
      t->depth = a[0]->depth + 1;
      t->i = a[1]->i;
      return t;
    }
    if (name == "torch._utils._rebuild_parameter" && !a.empty()) return a[0];
    if (name == "collections.OrderedDict" || name == "builtins.dict") return Make(Kind::kDict);
    if (name == "builtins.list") return Make(Kind::kList);
    PyRef o = Make(Kind::kObject);
    o->s = name;
    return o;
  }

  // Puts `child` into `parent`, keeping the nesting bounded.
  Status Nest(PyObj& parent, PyRef child, size_t at) {
    const uint32_t d = child->depth + 1;
    if (d > parent.depth) parent.depth = d;
    if (parent.depth > kMaxPickleDepth)
      return BadInputError("{}: byte {}: the pickle nests containers more than {} levels deep; a torch.save of "
                           "profiling tensors nests 4: this is not a profiling dump",
                           origin_, at, kMaxPickleDepth);
    parent.items.push_back(std::move(child));
    return Status::Ok();
  }
  Status NestAll(PyObj& parent, std::vector<PyRef> children, size_t at) {
    for (PyRef& c : children) OPTRACE_RETURN_IF_ERROR(Nest(parent, std::move(c), at));
    return Status::Ok();
  }

  Status Step(uint8_t op, size_t at) {
    switch (op) {
      case 0x80:  // PROTO
        if (!Need(1)) return Err(at, "truncated PROTO");
        ++pos_;
        return Status::Ok();
      case 0x95:  // FRAME
        if (!Need(8)) return Err(at, "truncated FRAME");
        pos_ += 8;
        return Status::Ok();
      case '.': done_ = true; return Status::Ok();
      case '(': marks_.push_back(stack_.size()); return Status::Ok();
      case ']': return Push(Make(Kind::kList));
      case '}': return Push(Make(Kind::kDict));
      case ')': return Push(Make(Kind::kTuple));
      case 'N': return Push(Make(Kind::kNone));
      case 0x88:
      case 0x89: {
        PyRef b = Make(Kind::kBool);
        b->i = op == 0x88;
        return Push(b);
      }
      case 'J': if (!Need(4)) return Err(at, "truncated BININT"); return Push(MakeInt(Read<int32_t>()));
      case 'K': if (!Need(1)) return Err(at, "truncated BININT1"); return Push(MakeInt(Read<uint8_t>()));
      case 'M': if (!Need(2)) return Err(at, "truncated BININT2"); return Push(MakeInt(Read<uint16_t>()));
      case 0x8a: {  // LONG1: little-endian two's complement of n bytes
        if (!Need(1)) return Err(at, "truncated LONG1");
        uint8_t n = Read<uint8_t>();
        if (n > 8 || !Need(n)) return Err(at, "LONG1 wider than 64 bits");
        uint64_t v = 0;
        for (uint8_t k = 0; k < n; ++k) v |= uint64_t{static_cast<uint8_t>(d_[pos_ + k])} << (8 * k);
        if (n > 0 && n < 8 && (static_cast<uint8_t>(d_[pos_ + n - 1]) & 0x80)) v |= ~uint64_t{0} << (8 * n);
        pos_ += n;
        return Push(MakeInt(static_cast<int64_t>(v)));
      }
      case 'I': {  // INT (text)
        std::string line;
        OPTRACE_RETURN_IF_ERROR(ReadLine(line, at));
        if (line == "00" || line == "01") {
          PyRef b = Make(Kind::kBool);
          b->i = line == "01";
          return Push(b);
        }
        return Push(MakeInt(std::strtoll(line.c_str(), nullptr, 10)));
      }
      case 'G': {  // BINFLOAT, big-endian
        if (!Need(8)) return Err(at, "truncated BINFLOAT");
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = bits << 8 | static_cast<uint8_t>(d_[pos_ + k]);
        pos_ += 8;
        PyRef f = Make(Kind::kFloat);
        std::memcpy(&f->f, &bits, 8);
        return Push(f);
      }
      case 'X': if (!Need(4)) return Err(at, "truncated BINUNICODE"); return PushString(Kind::kStr, Read<uint32_t>(), at);
      case 0x8c: if (!Need(1)) return Err(at, "truncated SHORT_BINUNICODE"); return PushString(Kind::kStr, Read<uint8_t>(), at);
      case 'U': if (!Need(1)) return Err(at, "truncated SHORT_BINSTRING"); return PushString(Kind::kStr, Read<uint8_t>(), at);
      case 'T': if (!Need(4)) return Err(at, "truncated BINSTRING"); return PushString(Kind::kStr, Read<uint32_t>(), at);
      case 'B': if (!Need(4)) return Err(at, "truncated BINBYTES"); return PushString(Kind::kBytes, Read<uint32_t>(), at);
      case 'C': if (!Need(1)) return Err(at, "truncated SHORT_BINBYTES"); return PushString(Kind::kBytes, Read<uint8_t>(), at);
      case 'q': if (!Need(1)) return Err(at, "truncated BINPUT"); return Memo(Read<uint8_t>(), at);
      case 'r': if (!Need(4)) return Err(at, "truncated LONG_BINPUT"); return Memo(Read<uint32_t>(), at);
      case 0x94: return Memo(memo_.size(), at);
      case 'h': if (!Need(1)) return Err(at, "truncated BINGET"); return Get(Read<uint8_t>(), at);
      case 'j': if (!Need(4)) return Err(at, "truncated LONG_BINGET"); return Get(Read<uint32_t>(), at);
      case 'c': {  // GLOBAL "module\nname\n"
        std::string module, name;
        OPTRACE_RETURN_IF_ERROR(ReadLine(module, at));
        OPTRACE_RETURN_IF_ERROR(ReadLine(name, at));
        return Push(MakeStr(Kind::kGlobal, module + "." + name));
      }
      case 0x93: {  // STACK_GLOBAL
        OPTRACE_ASSIGN_OR_RETURN(PyRef name, Pop(at));
        OPTRACE_ASSIGN_OR_RETURN(PyRef module, Pop(at));
        if (name->kind != Kind::kStr || module->kind != Kind::kStr) return Err(at, "STACK_GLOBAL of non-strings");
        return Push(MakeStr(Kind::kGlobal, module->s + "." + name->s));
      }
      case 't': {
        OPTRACE_ASSIGN_OR_RETURN(std::vector<PyRef> items, PopMark(at));
        PyRef t = Make(Kind::kTuple);
        OPTRACE_RETURN_IF_ERROR(NestAll(*t, std::move(items), at));
        return Push(t);
      }
      case 0x85:
      case 0x86:
      case 0x87: {
        size_t n = op - 0x84;
        // Not through the last MARK (as CPython's fence): that would leave the mark past the top.
        if (stack_.size() < n + (marks_.empty() ? 0 : marks_.back())) return Err(at, "stack underflow");
        PyRef t = Make(Kind::kTuple);
        std::vector<PyRef> items(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
        stack_.resize(stack_.size() - n);
        OPTRACE_RETURN_IF_ERROR(NestAll(*t, std::move(items), at));
        return Push(t);
      }
      case 'a': {
        OPTRACE_ASSIGN_OR_RETURN(PyRef v, Pop(at));
        if (stack_.empty() || stack_.back()->kind != Kind::kList) return Err(at, "APPEND to a non-list");
        return Nest(*stack_.back(), std::move(v), at);
      }
      case 'e': {
        OPTRACE_ASSIGN_OR_RETURN(std::vector<PyRef> items, PopMark(at));
        if (stack_.empty() || stack_.back()->kind != Kind::kList) return Err(at, "APPENDS to a non-list");
        return NestAll(*stack_.back(), std::move(items), at);
      }
      case 's': {
        OPTRACE_ASSIGN_OR_RETURN(PyRef v, Pop(at));
        OPTRACE_ASSIGN_OR_RETURN(PyRef k, Pop(at));
        if (stack_.empty() || stack_.back()->kind != Kind::kDict) return Err(at, "SETITEM on a non-dict");
        OPTRACE_RETURN_IF_ERROR(Nest(*stack_.back(), std::move(k), at));
        return Nest(*stack_.back(), std::move(v), at);
      }
      case 'u': {
        OPTRACE_ASSIGN_OR_RETURN(std::vector<PyRef> items, PopMark(at));
        if (stack_.empty() || stack_.back()->kind != Kind::kDict || items.size() % 2) return Err(at, "bad SETITEMS");
        return NestAll(*stack_.back(), std::move(items), at);
      }
      case 'Q': {
        OPTRACE_ASSIGN_OR_RETURN(PyRef pid, Pop(at));
        OPTRACE_ASSIGN_OR_RETURN(PyRef st, LoadPersistent(pid, at));
        return Push(std::move(st));
      }
      case 'R': {
        OPTRACE_ASSIGN_OR_RETURN(PyRef args, Pop(at));
        OPTRACE_ASSIGN_OR_RETURN(PyRef callable, Pop(at));
        OPTRACE_ASSIGN_OR_RETURN(PyRef r, Reduce(callable, args, at));
        return Push(std::move(r));
      }
      case 0x81: {  // NEWOBJ cls args
        OPTRACE_ASSIGN_OR_RETURN(PyRef args, Pop(at));
        OPTRACE_ASSIGN_OR_RETURN(PyRef cls, Pop(at));
        PyRef o = Make(Kind::kObject);
        o->s = cls->kind == Kind::kGlobal ? cls->s : "object";
        return Push(o);
      }
      case 'b': {  // BUILD: state is ignored (tensors carry no state we need)
        OPTRACE_ASSIGN_OR_RETURN(PyRef state, Pop(at));
        if (stack_.empty()) return Err(at, "BUILD with an empty stack");
        return Status::Ok();
      }
      case '0': return Pop(at).status();  // POP
      case '2': {                          // DUP
        if (stack_.empty()) return Err(at, "DUP with an empty stack");
        return Push(stack_.back());
      }
      default:
        return Err(at, fmt::format("unsupported pickle opcode 0x{:02x}", op));
    }
  }

  std::string_view d_;
  std::string_view origin_;
  size_t pos_ = 0;
  bool done_ = false;
  std::vector<PyRef> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PyRef> memo_;
};

}  // namespace

Result<PyRef> RunPickle(std::string_view data, std::string_view origin) { return Machine(data, origin).Run(); }

std::string DescribePy(const PyObj& o) {
  switch (o.kind) {
    case Kind::kNone: return "None";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kStr: return "str";
    case Kind::kBytes: return "bytes";
    case Kind::kTuple: return "tuple";
    case Kind::kList: return "list";
    case Kind::kDict: return "dict";
    case Kind::kGlobal: return o.s;
    case Kind::kStorage: return o.s;
    case Kind::kTensor: return "tensor";
    case Kind::kObject: return o.s + " object";
  }
  return "?";
}

}  // namespace optrace::collect
