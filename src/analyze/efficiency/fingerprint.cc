// InferFingerprint (declared in efficiency.h) and LoadModelConfig.
#include "analyze/efficiency/fingerprint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analyze/efficiency/efficiency.h"
#include "core/file_io.h"

namespace optrace::analyze {
namespace {

// Most common value of a sample (the smaller on a tie), with its count.
struct Mode {
  std::map<int64_t, uint64_t> counts;
  void Add(int64_t v, uint64_t n = 1) {
    if (v > 0 && v < (int64_t(1) << 40)) counts[v] += n;  // no model dimension is larger
  }
  bool empty() const { return counts.empty(); }
  std::pair<int64_t, uint64_t> Get() const {
    std::pair<int64_t, uint64_t> best{0, 0};
    for (const auto& [v, n] : counts)
      if (n > best.second) best = {v, n};
    return best;
  }
  // The most common value among those `keep` accepts; a tie goes to the larger value.
  template <typename Keep>
  std::pair<int64_t, uint64_t> GetLargest(Keep keep) const {
    std::pair<int64_t, uint64_t> best{0, 0};
    for (const auto& [v, n] : counts)
      if (keep(v) && n >= best.second) best = {v, n};
    return best;
  }
};

// A dimension as an integer; -1 when it is not one a model could have (the export's text can
// hold anything, and a double out of int64's range must not be cast).
int64_t Int(double v) { return v >= 0 && v < 1e15 ? static_cast<int64_t>(v) : -1; }

std::string Fmt(double v) { return v == std::floor(v) && std::fabs(v) < 1e15 ? fmt::format("{}", int64_t(v)) : fmt::format("{:.4g}", v); }

// How the profile's value of `f` compares with a config's value `c`: equal, a shard (the config's
// value an integer multiple of a rank-visible value), or differs.
std::string Agreement(const FingerprintField& f, double c) {
  double v = std::stod(f.value);
  if (v == c) return "equal";
  if (f.scope == "rank_visible" && v > 0 && c > v && std::fmod(c, v) == 0) return fmt::format("shard (1/{})", Fmt(c / v));
  return "differs";
}

// The catalog's models ranked by the share of the profile's known fields they agree with (equal
// or a shard), at least two fields compared; the best five. A global field that differs (hidden
// size, head width: no parallelism splits them) rules a model out.
std::vector<ModelCandidate> MatchCatalog(const std::vector<FingerprintField>& fields,
                                         const std::vector<CatalogModel>& catalog) {
  std::vector<ModelCandidate> out;
  for (const CatalogModel& m : catalog) {
    ModelCandidate c;
    c.id = m.id;
    c.family = m.family;
    std::vector<std::string> agree, differ;
    bool ruled_out = false;
    for (const FingerprintField& f : fields) {
      if (f.value.empty()) continue;
      auto it = m.values.find(f.field);
      if (it == m.values.end()) continue;
      ++c.compared;
      std::string a = Agreement(f, it->second);
      if (a == "differs" && f.scope == "global") ruled_out = true;
      if (a == "differs") differ.push_back(fmt::format("{} {} vs {}", f.field, f.value, Fmt(it->second)));
      else agree.push_back(a == "equal" ? f.field : fmt::format("{} {}", f.field, a));
    }
    c.agreeing = static_cast<int>(agree.size());
    if (ruled_out || c.compared < 2 || c.agreeing == 0) continue;
    c.score = static_cast<double>(c.agreeing) / c.compared;
    c.agreeing_fields = fmt::format("{}", fmt::join(agree, "; "));
    c.differing_fields = fmt::format("{}", fmt::join(differ, "; "));
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const ModelCandidate& a, const ModelCandidate& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.compared > b.compared;
  });
  if (out.size() > 5) out.resize(5);
  return out;
}

}  // namespace

Result<ModelConfig> LoadModelConfig(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    return BadInputError("{}: not a JSON object; --model-config takes a Hugging Face style config.json", path.string());
  ModelConfig c;
  c.path = ResolveAgainstCwd(path);
  c.values = ModelConfigValues(j);
  if (c.values.empty())
    return BadInputError("{}: none of num_hidden_layers, hidden_size, num_attention_heads, ... found; is it a model "
                         "config.json?",
                         path.string());
  return c;
}

ModelFingerprint InferFingerprint(const AnalysisResult& r, const Efficiency& eff, const Rules& rules,
                                  const std::optional<ModelConfig>& config) {
  ModelFingerprint fp;
  // One pass over the compute events: feature matches, per-shape call counts.
  std::map<std::string, std::pair<uint64_t, std::map<std::string, uint64_t>>> features;  // feature -> (calls, type -> calls)
  std::map<uint32_t, uint64_t> calls_of_cost;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> calls_of_type_shape;  // (type, in_shapes)
  // From the per-cost call counts of the efficiency pass (every compute call has a cost entry,
  // modelled or not): no second pass over the events.
  for (size_t i = 0; i < eff.costs.size() && i < eff.cost_calls.size(); ++i) {
    calls_of_type_shape[{eff.cost_keys[i].type, eff.cost_keys[i].in_shapes}] += eff.cost_calls[i];
    if (eff.costs[i].modelled) calls_of_cost[uint32_t(i)] = eff.cost_calls[i];
  }
  std::map<uint32_t, uint64_t> calls_of_type;
  for (const auto& [k, n] : calls_of_type_shape) calls_of_type[k.first] += n;
  for (const auto& [type, n] : calls_of_type) {
    const std::string& name = r.Str(type);
    for (const RegexRule& rule : rules.efficiency.features)
      if (rule.Matches(name)) {
        auto& f = features[rule.value];
        f.first += n;
        f.second[name] += n;
      }
  }

  // Complete steps and the layer count: the most common number of forward layers per complete
  // step (a training step also runs every layer backward: layers with a *Grad operator).
  // Per string id (a pass over every event of the steps: vectors, not maps). -1: not decided yet.
  std::vector<int8_t> grad_type(r.strings.size(), -1), attention_type(r.strings.size(), -1);
  auto is_grad = [&](uint32_t type) {
    if (grad_type[type] < 0) grad_type[type] = r.Str(type).find("Grad") != std::string::npos;
    return grad_type[type] == 1;
  };
  auto is_attention = [&](uint32_t type) {  // forward attention: one call per attention layer
    if (attention_type[type] < 0) {
      attention_type[type] = 0;
      if (!is_grad(type))
        for (const RegexRule& rule : rules.efficiency.features)
          if ((rule.value == "dense_flash_attention" || rule.value == "sparse_attention") && rule.Matches(r.Str(type)))
            attention_type[type] = 1;
    }
    return attention_type[type] == 1;
  };
  uint64_t complete_steps = 0;
  Mode layers, all_layers, attention_calls;
  for (const Step& s : r.steps) {
    if (!s.complete) continue;
    ++complete_steps;
    const RankTable* table = r.FindRank(s.rank);
    int64_t attention = 0;
    for (uint32_t i = s.events.first; table && i < s.events.last; ++i) attention += is_attention(table->events[i].type);
    attention_calls.Add(attention);
    int64_t forward = 0;
    for (uint32_t li : s.layers) {
      const Layer& layer = r.layers[li];
      bool backward = false;
      for (uint32_t i = layer.events.first; table && i < layer.events.last && !backward; ++i)
        backward = is_grad(table->events[i].type);
      forward += !backward;
    }
    layers.Add(forward);
    all_layers.Add(int64_t(s.layers.size()));
  }
  if (complete_steps == 0) complete_steps = std::max<uint64_t>(1, r.steps.size());

  // Dimensions from the shapes.
  Mode hidden, inter, heads, head_dim, kv_heads, seq, experts_local, experts, topk, tokens;
  std::map<int64_t, std::pair<std::string, int64_t>> norm_evidence;  // width -> (evidence, tokens)
  std::string hidden_ev, inter_ev, heads_ev, seq_ev, experts_local_ev, experts_ev, topk_ev;
  for (const auto& [key, n] : calls_of_type_shape) {
    const std::string& type = r.Str(key.first);
    std::vector<Tensor> in = ParseTensors(r.Str(key.second), "");
    if (in.empty() || !in[0].present || in[0].dims.empty()) continue;
    const std::vector<int64_t>& d0 = in[0].dims;
    auto matches = [&](const char* feature) {
      for (const RegexRule& rule : rules.efficiency.features)
        if (rule.value == feature && rule.Matches(type)) return true;
      return false;
    };
    bool norm = (matches("rms_norm") || matches("layer_norm")) && type.find("Grad") == std::string::npos;
    if (norm) {
      hidden.Add(d0.back(), n);
      double t = 1;
      for (size_t i = 0; i + 1 < d0.size(); ++i) t *= double(d0[i]);
      norm_evidence[d0.back()] = {fmt::format("{} input {} (last axis)", type, r.Str(key.second)), Int(t)};
    }
    if (matches("gated_mlp") && type.find("Grad") == std::string::npos && d0.back() % 2 == 0) {
      inter.Add(d0.back() / 2, n);
      inter_ev = fmt::format("{} input {} (last axis / 2: gate and up halves)", type, r.Str(key.second));
    }
    if (type.rfind("MoeGatingTopK", 0) == 0) {
      experts.Add(d0.back(), n);
      experts_ev = fmt::format("{} router logits {} (last axis)", type, r.Str(key.second));
    }
  }
  // Heads, head dim, sequence and experts from the modelled calls' parameters.
  for (const auto& [ci, n] : calls_of_cost) {
    const OpCost& c = eff.costs[ci];
    auto p = [&](const char* k) {
      auto it = c.params.find(k);
      return it == c.params.end() ? -1.0 : it->second;
    };
    if (c.family == "flash_attention") {
      seq.Add(Int(p("Sq")), n);
      seq_ev = fmt::format("flash attention Sq ({})", c.dims);
      if (p("Nq") > 0) {
        heads.Add(Int(p("Nq")), n);
        head_dim.Add(Int(p("D")), n);
        if (p("D") > 0 && std::fmod(p("Hk"), p("D")) == 0) kv_heads.Add(Int(p("Hk") / p("D")), n);
        heads_ev = fmt::format("flash attention softmax statistics ({})", c.dims);
      }
    }
    if (c.family == "grouped_matmul" && p("E") > 1) {
      experts_local.Add(Int(p("E")), n);
      experts_local_ev = fmt::format("grouped matmul weight ({})", c.dims);
    }
  }
  // The hidden size: the most common norm width that is not a head width (per-head q / k norms).
  const int64_t head_dim_v = head_dim.empty() ? -1 : head_dim.Get().first;
  auto [hidden_v, hidden_n] = hidden.GetLargest([&](int64_t v) { return v != head_dim_v; });

  // The lm head: a matmul with K = hidden whose output width N is the largest such, wider than
  // twice the intermediate size (or four hidden sizes), called at most ~once per step while the
  // layer projections are called once per layer.
  if (hidden_v > 0) {
    hidden_ev = norm_evidence[hidden_v].first;
    tokens.Add(norm_evidence[hidden_v].second);
  }
  int64_t vocab = 0;
  std::string vocab_ev;
  // Segmentation can merge or split a layer at the pipeline-stage edges; the forward attention calls
  // of a step count the attention layers exactly. The larger of the two (hybrid models have layers
  // without attention).
  const int64_t seg_layers = layers.empty() ? 0 : layers.Get().first;
  const int64_t attn_layers = attention_calls.empty() ? 0 : attention_calls.Get().first;
  const int64_t layer_count = std::max(seg_layers, attn_layers);
  if (hidden_v > 0 && layer_count >= 2) {
    int64_t floor_n = std::max<int64_t>(4 * hidden_v, inter.empty() ? 0 : 2 * inter.Get().first + 1);
    for (const auto& [ci, n] : calls_of_cost) {
      const OpCost& c = eff.costs[ci];
      if (c.family != "matmul") continue;
      auto k = c.params.find("K"), nn = c.params.find("N");
      if (k == c.params.end() || nn == c.params.end() || Int(k->second) != hidden_v) continue;
      double per_step = double(n) / double(complete_steps * std::max<size_t>(1, r.ranks.size()));
      if (per_step > 1.5 || Int(nn->second) <= floor_n || Int(nn->second) <= vocab) continue;
      vocab = Int(nn->second);
      vocab_ev = fmt::format("matmul {} with K = hidden, {:.2g} calls per step and rank (the layers' run once per layer)",
                             c.dims, per_step);
    }
  }

  // Rank-visible parameter lower bound: the distinct K x N weight shapes of matmuls that touch the
  // hidden size and recur at least once per layer and step, times the layer count; plus the lm head.
  double params = 0;
  int shapes = 0;
  if (hidden_v > 0 && layer_count >= 1) {
    std::set<std::pair<int64_t, int64_t>> seen;
    int64_t token_v = tokens.empty() ? -1 : tokens.Get().first;
    for (const auto& [ci, n] : calls_of_cost) {
      const OpCost& c = eff.costs[ci];
      if (c.family != "matmul" && c.family != "grouped_matmul") continue;
      auto k = c.params.find("K"), nn = c.params.find("N");
      if (k == c.params.end() || nn == c.params.end()) continue;
      int64_t a = Int(k->second), b = Int(nn->second);
      if (a != hidden_v && b != hidden_v) continue;
      if ((a == token_v || b == token_v) && token_v != hidden_v) continue;  // an activation, not a weight
      if (a == vocab || b == vocab) continue;
      if (double(n) < double(layer_count) * double(complete_steps)) continue;
      auto e = c.params.find("E");
      double experts_here = e == c.params.end() ? 1 : std::max(1.0, e->second);
      if (!seen.insert({std::min(a, b), std::max(a, b)}).second) continue;
      params += double(a) * double(b) * experts_here;
      ++shapes;
    }
    params *= double(layer_count);
    if (vocab > 0) params += double(vocab) * double(hidden_v);
  }

  auto add = [&](std::string field, int64_t v, std::string evidence, std::string scope) {
    FingerprintField f;
    f.field = std::move(field);
    if (v > 0) f.value = std::to_string(v), f.evidence = std::move(evidence);
    f.scope = std::move(scope);
    fp.config.push_back(std::move(f));
  };
  add("layer_count", layer_count,
      fmt::format("segmentation: {} forward layers per complete step{}; forward attention calls per step and rank: {}",
                  seg_layers,
                  all_layers.empty() || all_layers.Get().first == seg_layers
                      ? ""
                      : fmt::format(" ({} with the backward layers)", all_layers.Get().first),
                  attn_layers),
      "rank_visible");
  add("hidden_size", hidden_v, fmt::format("{} ({} calls)", hidden_ev, hidden_n), "global");
  add("intermediate_size", inter.empty() ? 0 : inter.Get().first, inter_ev, "rank_visible");
  add("num_attention_heads", heads.empty() ? 0 : heads.Get().first, heads_ev, "rank_visible");
  add("num_key_value_heads", kv_heads.empty() ? 0 : kv_heads.Get().first, heads_ev, "rank_visible");
  add("head_dim", head_dim.empty() ? 0 : head_dim.Get().first, heads_ev, "global");
  add("num_experts", experts.empty() ? 0 : experts.Get().first, experts_ev, "global");
  add("num_local_experts", experts_local.empty() ? 0 : experts_local.Get().first, experts_local_ev, "rank_visible");
  add("sequence_length", seq.empty() ? 0 : seq.Get().first, seq_ev, "global");
  add("tokens_per_norm_call", tokens.empty() ? 0 : tokens.Get().first, hidden_ev, "rank_visible");
  add("vocab_size_or_lm_head_shard", vocab, vocab_ev, "rank_visible");
  {
    FingerprintField f;
    f.field = "parameters_lower_bound";
    f.scope = "rank_visible";
    if (params > 0) {
      f.value = Fmt(params);
      f.evidence = fmt::format("{} distinct matmul weight shapes touching hidden {} x {} layers{}", shapes, hidden_v,
                               layer_count, vocab > 0 ? " + lm head" : "");
    }
    fp.config.push_back(std::move(f));
  }
  if (config) {
    fp.model_config_path = config->path.string();
    for (FingerprintField& f : fp.config) {
      auto it = config->values.find(f.field);
      if (it == config->values.end()) continue;
      f.config_value = Fmt(it->second);
      if (f.value.empty()) continue;
      f.agreement = Agreement(f, it->second);
    }
  }
  fp.candidates = MatchCatalog(fp.config, rules.model_catalog);

  // Features: every rule feature, present or not, with the op types that matched.
  std::vector<std::string> names;
  for (const RegexRule& rule : rules.efficiency.features)
    if (std::find(names.begin(), names.end(), rule.value) == names.end()) names.push_back(rule.value);
  for (const std::string& name : names) {
    FeatureRow row;
    row.feature = name;
    auto it = features.find(name);
    if (it != features.end()) {
      row.present = true;
      row.calls = it->second.first;
      std::vector<std::string> parts;
      for (const auto& [type, n] : it->second.second) parts.push_back(fmt::format("{} x{}", type, n));
      row.evidence = fmt::format("{}", fmt::join(parts, ", "));
    }
    fp.features.push_back(std::move(row));
  }
  // MLA shows as attention whose value head is narrower than its query-key head.
  for (const auto& [ci, n] : calls_of_cost) {
    const OpCost& c = eff.costs[ci];
    auto hk = c.params.find("Hk"), hv = c.params.find("Hv");
    if (c.family.rfind("flash_attention", 0) == 0 && hk != c.params.end() && hv != c.params.end() && hv->second < hk->second)
      for (FeatureRow& row : fp.features)
        if (row.feature == "mla" && !row.present) {
          row.present = true;
          row.calls = n;
          row.evidence = fmt::format("flash attention with value width below key width ({})", c.dims);
        }
  }

  // Layer types: the layer classes of segmentation.
  for (const ShapeClass& lc : r.layer_classes) {
    LayerTypeRow row;
    row.layer_class = lc.id;
    row.members = int(lc.members.size());
    for (const LayerClassSummary& s : r.summaries.layer_classes) {
      if (s.id != lc.id) continue;
      row.companion = s.companion_layer;
      std::vector<std::string> kinds, ops;
      for (BlockKind k : s.block_kinds) kinds.emplace_back(BlockKindName(k));
      for (size_t i = 0; i < s.top_ops.size() && i < 3; ++i) ops.push_back(r.Str(s.top_ops[i].first));
      row.block_kinds = fmt::format("{}", fmt::join(kinds, ","));
      row.top_ops = fmt::format("{}", fmt::join(ops, ", "));
    }
    fp.layer_types.push_back(std::move(row));
  }
  return fp;
}

}  // namespace optrace::analyze
