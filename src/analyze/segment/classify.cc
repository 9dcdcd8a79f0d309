// Block decomposition and shape-signature classes.
#include "analyze/segment/classify.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "core/parallel_for.h"

namespace optrace::analyze {
namespace {


// Order-dependent combination of 64-bit words (the multiply carries low bits up, the shift
// brings high bits down).
void Combine(uint64_t& h, uint64_t word) {
  h = (h ^ word) * 1099511628211ull;
  h ^= h >> 31;
}

// A member's signature as a compact key (the class keeps the text form): a string per member
// would be a heap block per block of the capture, held until the grouping is done.
struct SignatureKey {
  uint64_t hash = 0;
  uint32_t events = 0;
  int kind = -1;        // block kind for block classes, -1 otherwise
  bool shaped = false;  // false: no compute event of the member has shapes (a class of its own)
  bool operator==(const SignatureKey& o) const {
    return hash == o.hash && events == o.events && kind == o.kind && shaped == o.shaped;
  }
};
struct SignatureKeyHash {
  size_t operator()(const SignatureKey& k) const { return k.hash ^ (uint64_t(k.events) << 1) ^ uint64_t(k.kind + 1); }
};

// A 64-bit hash of each interned string's bytes, by string id: computed once, so that a
// signature costs a multiply per event instead of a pass over its name and shape text.
std::vector<uint64_t> StringHashes(const StringTable& strings) {
  std::vector<uint64_t> out;
  out.reserve(strings.size());
  for (const std::string& text : strings.strings()) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : text) {
      h ^= c;
      h *= 1099511628211ull;
    }
    out.push_back(h);
  }
  return out;
}

SignatureKey ShapeKey(const std::vector<uint64_t>& string_hashes, const RankTable& t, EventRange r) {
  SignatureKey k;
  k.hash = 1469598103934665603ull;
  int compute = 0, shaped = 0;
  for (uint32_t i = r.first; i < r.last; ++i) {
    const Event& e = t.events[i];
    Combine(k.hash, string_hashes[e.name]);
    if (IsComm(e.op_type)) continue;
    ++compute;
    shaped += e.input_shapes != 0;
    Combine(k.hash, string_hashes[e.input_shapes] + 0x9e3779b97f4a7c15ull);  // a shape never reads as a name
  }
  k.events = r.size();
  // A capture without shapes (Level0, record_shapes off) must not merge members by name alone;
  // a shape-less operator inside a shaped capture (MemSet) is compared by name.
  k.shaped = !(compute > 0 && shaped == 0);
  return k;
}

std::string SignatureText(const SignatureKey& k) {
  std::string s = fmt::format("{:016x}:{}", k.hash, k.events);
  return k.kind < 0 ? s : std::string(BlockKindName(static_cast<BlockKind>(k.kind))) + ":" + s;
}

// Groups members by signature into classes with ids "<prefix>1..", in member order. Signatures
// (a pass over each member's events) are computed side by side; the grouping is in order.
template <typename GetKey>
std::vector<ShapeClass> MakeClasses(size_t n, char prefix, GetKey get_key, std::vector<uint32_t>& ids, int threads) {
  std::vector<SignatureKey> keys(n);
  constexpr size_t kBatch = 1024;
  ParallelFor((n + kBatch - 1) / kBatch, threads, [&](size_t b) {
    for (size_t i = b * kBatch; i < std::min(n, (b + 1) * kBatch); ++i) keys[i] = get_key(i);
  });
  std::vector<ShapeClass> classes;
  std::unordered_map<SignatureKey, size_t, SignatureKeyHash> by_key;
  ids.assign(n, kNone32);
  for (size_t i = 0; i < n; ++i) {
    size_t index = classes.size();
    bool fresh = true;
    if (keys[i].shaped) {
      auto [it, inserted] = by_key.try_emplace(keys[i], classes.size());
      index = it->second;
      fresh = inserted;
    }
    if (fresh) {
      ShapeClass c;
      c.id = fmt::format("{}{}", prefix, classes.size() + 1);
      c.signature = keys[i].shaped ? SignatureText(keys[i]) : fmt::format("noshape:{}", i);
      c.has_shapes = keys[i].shaped;
      classes.push_back(c);
    }
    classes[index].members.push_back(static_cast<uint32_t>(i));
    ids[i] = static_cast<uint32_t>(index);
  }
  return classes;
}

}  // namespace

void ClassifyAll(AnalysisResult& res, const Rules& rules, int threads) {
  res.blocks.clear();
  // (name, op type) -> block kind, -1 none; decided by the first such event. A table by name id
  // (a lookup per event, twice per layer): kUnseen until then.
  constexpr int8_t kUnseen = -2;
  std::vector<int8_t> kind_cache(res.strings.size() * kOpTypeCount, kUnseen);
  auto kind_of = [&](const Event& e) -> int {
    int8_t& v = kind_cache[size_t(e.name) * kOpTypeCount + size_t(e.op_type)];
    if (v == kUnseen) {
      auto k = rules.EventBlockKind(e.op_type, res.Str(e.name), res.Str(e.type));
      v = k ? static_cast<int8_t>(*k) : int8_t{-1};
    }
    return v;
  };
  auto rest_kind = [&](const RankTable& t, EventRange r) {
    bool moe = false, ffn = false, aicpu = false, all_comm = !r.empty();
    for (uint32_t i = r.first; i < r.last; ++i) {
      int k = kind_of(t.events[i]);
      moe |= k == int(BlockKind::kMoe);
      ffn |= k == int(BlockKind::kFfn);
      aicpu |= k == int(BlockKind::kAicpu);
      all_comm &= k == int(BlockKind::kCommunication);
    }
    if (moe) return BlockKind::kMoe;
    if (ffn) return BlockKind::kFfn;
    if (all_comm) return BlockKind::kCommunication;
    if (aicpu) return BlockKind::kAicpu;
    return BlockKind::kOther;
  };
  auto add_block = [&](uint32_t layer_index, BlockKind kind, EventRange r, const RankTable& t) {
    Block b;
    b.rank = t.rank;
    b.layer = layer_index;
    b.kind = kind;
    b.events = r;
    b.start_ns = t.events[r.first].start_ns;
    b.end_ns = b.start_ns;
    for (uint32_t i = r.first; i < r.last; ++i) b.end_ns = std::max(b.end_ns, t.events[i].end_ns());
    IndexRange& own = res.layers[layer_index].blocks;  // a layer's blocks are added one after another
    const uint32_t index = static_cast<uint32_t>(res.blocks.size());
    if (own.empty()) own.first = index;
    own.last = index + 1;
    res.blocks.push_back(b);
  };
  res.blocks.reserve(2 * res.layers.size());  // an attention block and the rest, at most
  for (uint32_t li = 0; li < res.layers.size(); ++li) {
    Layer& layer = res.layers[li];
    layer.blocks = {};
    const RankTable& t = *res.FindRank(layer.rank);
    int64_t last_attention = -1;
    for (uint32_t i = layer.events.first; i < layer.events.last; ++i)
      if (kind_of(t.events[i]) == int(BlockKind::kAttention)) last_attention = i;
    if (last_attention < 0) {
      layer.companion_layer = true;
      add_block(li, rest_kind(t, layer.events), layer.events, t);
      continue;
    }
    EventRange att{layer.events.first, static_cast<uint32_t>(last_attention + 1)};
    add_block(li, BlockKind::kAttention, att, t);
    EventRange rest{att.last, layer.events.last};
    if (!rest.empty()) add_block(li, rest_kind(t, rest), rest, t);
  }

  std::vector<uint32_t> ids;
  const std::vector<uint64_t> hashes = StringHashes(res.strings);
  res.step_classes = MakeClasses(res.steps.size(), 'S', [&](size_t i) {
    return ShapeKey(hashes, *res.FindRank(res.steps[i].rank), res.steps[i].events);
  }, ids, threads);
  for (size_t i = 0; i < res.steps.size(); ++i) res.steps[i].step_class = res.step_classes[ids[i]].id;
  res.layer_classes = MakeClasses(res.layers.size(), 'L', [&](size_t i) {
    return ShapeKey(hashes, *res.FindRank(res.layers[i].rank), res.layers[i].events);
  }, ids, threads);
  for (size_t i = 0; i < res.layers.size(); ++i) res.layers[i].layer_class = ids[i];
  res.block_classes = MakeClasses(res.blocks.size(), 'B', [&](size_t i) {
    SignatureKey k = ShapeKey(hashes, *res.FindRank(res.blocks[i].rank), res.blocks[i].events);
    k.kind = static_cast<int>(res.blocks[i].kind);
    return k;
  }, ids, threads);
  for (size_t i = 0; i < res.blocks.size(); ++i) res.blocks[i].block_class = ids[i];
}

}  // namespace optrace::analyze
