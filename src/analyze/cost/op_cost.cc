#include "analyze/cost/op_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

namespace optrace::analyze {
namespace {

// "a;b;c" split on ';' (empty pieces kept: they are absent optional inputs).
std::vector<std::string_view> Slots(std::string_view s) {
  std::vector<std::string_view> out;
  if (s.empty()) return out;
  size_t at = 0;
  while (true) {
    size_t semi = s.find(';', at);
    out.push_back(s.substr(at, semi == std::string_view::npos ? std::string_view::npos : semi - at));
    if (semi == std::string_view::npos) break;
    at = semi + 1;
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '"' || s.front() == '[')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '"' || s.back() == ']')) s.remove_suffix(1);
  return s;
}

std::string Upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (u.rfind("DT_", 0) == 0) u.erase(0, 3);
  return u;
}

std::string DimsText(const std::vector<int64_t>& d) {
  return fmt::format("[{}]", fmt::join(d, ","));
}

// In double: dims come from the export as text and may be anything (int64 products overflow).
double Product(const std::vector<int64_t>& d, size_t from, size_t to) {
  double p = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) p *= double(d[i]);
  return p;
}

// The element size of outputs: the first input's, except quantized inputs (int8 / int4 / fp8)
// whose kernels write fp16 / bf16.
double OutputElementBytes(const std::vector<Tensor>& in) {
  if (in.empty()) return 0;
  std::string c = DtypeClass(in[0].dtype);
  if (c == "int8" || c == "int4" || c == "fp8") return 2;
  return DtypeBytes(in[0].dtype);
}

double TensorBytes(const std::vector<Tensor>& in, const std::vector<Tensor>& out) {
  double b = 0;
  for (const Tensor& t : in) b += t.Elements() * DtypeBytes(t.dtype);
  double ob = OutputElementBytes(in);
  for (const Tensor& t : out) b += t.Elements() * ob;
  return b;
}

OpCost NotModelled(std::string family, std::string reason) {
  OpCost c;
  c.family = std::move(family);
  c.reason = std::move(reason);
  return c;
}

bool Present2D(const Tensor& t) { return t.present && t.dims.size() >= 2; }

// K from A's last two dims and M, with the second operand checked against {K, N}.
std::optional<int64_t> MatmulK(const Tensor& a, const Tensor& b, int64_t m, int64_t n, std::string& why) {
  int64_t a0 = a.dims[a.dims.size() - 2], a1 = a.dims.back();
  int64_t k;
  if (a0 == m) {
    k = a1;
  } else if (a1 == m) {
    k = a0;
  } else {
    why = fmt::format("first input {} does not carry M={} of the output", DimsText(a.dims), m);
    return std::nullopt;
  }
  int64_t b0 = b.dims[b.dims.size() - 2], b1 = b.dims.back();
  if (!((b0 == k && b1 == n) || (b0 == n && b1 == k))) {
    why = fmt::format("second input {} does not match K={} N={} (a fractal weight layout?)", DimsText(b.dims), k, n);
    return std::nullopt;
  }
  return k;
}

OpCost Matmul(const std::vector<Tensor>& in, const std::vector<Tensor>& out) {
  if (in.size() < 2 || !Present2D(in[0]) || !Present2D(in[1]))
    return NotModelled("matmul", "fewer than two 2-D inputs");
  if (out.empty() || !Present2D(out[0])) return NotModelled("matmul", "no 2-D output shape (M, N unknown)");
  const std::vector<int64_t>& c = out[0].dims;
  int64_t m = c[c.size() - 2], n = c.back();
  double batch = Product(c, 0, c.size() - 2);
  std::string why;
  std::optional<int64_t> k = MatmulK(in[0], in[1], m, n, why);
  if (!k) return NotModelled("matmul", why);
  OpCost cost;
  cost.modelled = true;
  cost.family = "matmul";
  cost.compute_dtype = DtypeClass(in[0].dtype);
  cost.flops = 2.0 * batch * double(m) * double(n) * double(*k);
  cost.bytes = TensorBytes(in, out);
  cost.dims = batch > 1 ? fmt::format("B={} M={} N={} K={}", batch, m, n, *k) : fmt::format("M={} N={} K={}", m, n, *k);
  cost.params = {{"B", batch}, {"M", double(m)}, {"N", double(n)}, {"K", double(*k)}};
  return cost;
}

// x [M,K] with weight [E,K,N] / [E,N,K] (one output), or lists x_i, w_i, y_i of g groups.
OpCost GroupedMatmul(const std::vector<Tensor>& in, const std::vector<Tensor>& out) {
  std::vector<const Tensor*> ys;
  for (const Tensor& t : out)
    if (t.present) ys.push_back(&t);
  if (ys.empty()) return NotModelled("grouped_matmul", "no output shape");
  size_t g = ys.size();
  if (in.size() < 2 * (g == 1 ? 1 : g)) return NotModelled("grouped_matmul", "fewer inputs than x and weight lists");
  double flops = 0;
  std::vector<std::string> parts;
  std::map<std::string, double> params;
  for (size_t i = 0; i < g; ++i) {
    const Tensor& x = in[i];
    const Tensor& w = in[g + i];
    const Tensor& y = *ys[i];
    if (!Present2D(x) || !Present2D(w) || !Present2D(y) || y.dims.size() != 2)
      return NotModelled("grouped_matmul", "x, weight or output is not a matrix");
    int64_t m = y.dims[0], n = y.dims[1];
    std::string why;
    std::optional<int64_t> k = MatmulK(x, w, m, n, why);
    if (!k) return NotModelled("grouped_matmul", why);
    flops += 2.0 * double(m) * double(n) * double(*k);
    int64_t experts = w.dims.size() == 3 ? w.dims[0] : 1;
    if (i == 0) params = {{"M", double(m)}, {"N", double(n)}, {"K", double(*k)}, {"E", double(experts)}};
    parts.push_back(fmt::format("M={} N={} K={}{}", m, n, *k, experts > 1 ? fmt::format(" E={}", experts) : ""));
  }
  OpCost cost;
  cost.modelled = true;
  cost.family = "grouped_matmul";
  cost.compute_dtype = DtypeClass(in[0].dtype);
  cost.flops = flops;
  cost.bytes = TensorBytes(in, out);
  cost.dims = fmt::format("{}", fmt::join(parts, "; "));
  cost.params = std::move(params);
  return cost;
}

// Flash attention: B, Sq, Skv and the head widths from the shapes (see op_cost.h).
OpCost FlashAttention(const std::vector<Tensor>& in, const std::vector<Tensor>& out, bool grad) {
  const char* family = grad ? "flash_attention_grad" : "flash_attention";
  if (in.size() < 3 || !in[0].present || !in[1].present || !in[2].present)
    return NotModelled(family, "query, key or value shape missing");
  const Tensor &q = in[0], &k = in[1], &v = in[2];
  if (q.dims.size() != k.dims.size() || q.dims.size() != v.dims.size() || q.dims.size() < 3 || q.dims.size() > 4)
    return NotModelled(family, fmt::format("query {} / key / value ranks differ or are not 3-D / 4-D (TND varlen?)",
                                           DimsText(q.dims)));
  const double qe = q.Elements();
  // Softmax statistics [B, N, Sq, 8] (forward outputs, backward inputs): layout-independent.
  int64_t b = -1, sq = -1, skv = -1, nq = -1;
  std::vector<const Tensor*> others;
  for (size_t i = 3; i < in.size(); ++i) others.push_back(&in[i]);
  for (const Tensor& t : out) others.push_back(&t);
  for (const Tensor* t : others) {
    if (!t->present || t->dims.size() != 4 || t->dims[3] != 8) continue;
    double bns = double(t->dims[0]) * double(t->dims[1]) * double(t->dims[2]);
    if (bns <= 0 || std::fmod(qe, bns) != 0) continue;
    b = t->dims[0], nq = t->dims[1], sq = t->dims[2];
    break;
  }
  // A full mask input [.., .., Sq, Skv] / [Sq, Skv] gives Skv (and Sq when there are no
  // statistics); the 2048x2048 compressed mask of sparse modes 2-4 stands for a causal / band mask.
  bool compressed_mask = false;
  for (size_t i = 3; i < in.size(); ++i) {
    const Tensor* t = &in[i];
    if (!t->present || (t->dims.size() != 2 && t->dims.size() != 4)) continue;
    if (t->dims.size() == 4 && t->dims[3] == 8) continue;  // statistics
    int64_t s1 = t->dims[t->dims.size() - 2], s2 = t->dims.back();
    if (s1 == 2048 && s2 == 2048 && t->dims.size() == 2 && sq != 2048) {
      compressed_mask = true;
      continue;
    }
    if (sq > 0 && s1 != sq) continue;
    if (sq < 0) sq = s1;
    skv = s2;
    break;
  }
  if (sq <= 0) return NotModelled(family, "no softmax statistics [B,N,S,8] or attention mask shape to tell the sequence axis");
  // The layout: where Sq sits in the query.
  const auto& qd = q.dims;
  const auto& kd = k.dims;
  const auto& vd = v.dims;
  double hq, hk, hv;  // per-token widths (heads x head dim)
  int64_t skv_from_k = -1;
  if (qd.size() == 3) {  // BSH or SBH
    int s_axis = -1;
    if (b > 0) s_axis = (qd[0] == sq && qd[1] == b) ? 0 : (qd[1] == sq && qd[0] == b) ? 1 : -1;
    else s_axis = qd[0] == sq ? 0 : qd[1] == sq ? 1 : -1;
    if (s_axis < 0) return NotModelled(family, fmt::format("query {} has no axis of the sequence length {}", DimsText(qd), sq));
    if (b < 0) b = qd[1 - s_axis];
    hq = double(qd[2]), hk = double(kd[2]), hv = double(vd[2]);
    skv_from_k = kd[s_axis];
  } else {  // BNSD or BSND
    int s_axis = qd[2] == sq ? 2 : qd[1] == sq ? 1 : -1;
    if (s_axis < 0) return NotModelled(family, fmt::format("query {} has no axis of the sequence length {}", DimsText(qd), sq));
    int n_axis = s_axis == 2 ? 1 : 2;
    if (b < 0) b = qd[0];
    hq = double(qd[n_axis]) * double(qd[3]);
    hk = double(kd[n_axis]) * double(kd[3]);
    hv = double(vd[n_axis]) * double(vd[3]);
    skv_from_k = kd[s_axis];
  }
  if (skv < 0) skv = skv_from_k;
  if (b <= 0 || skv <= 0 || hq <= 0 || hk <= 0 || hv <= 0)
    return NotModelled(family, "batch, key length or head width not positive");
  if (nq > 0 && std::fmod(hq, double(nq)) != 0)
    return NotModelled(family, fmt::format("query width {} is not a multiple of the {} heads of the statistics", hq, nq));
  double fwd = 2.0 * double(b) * double(sq) * double(skv) * hq * (1.0 + hv / hk);
  OpCost cost;
  cost.modelled = true;
  cost.family = family;
  cost.compute_dtype = DtypeClass(q.dtype);
  if (compressed_mask) {
    fwd *= 0.5;
    cost.note = "causal: the compressed 2048x2048 mask of sparse modes 2-4, half the score matrix counted";
  } else {
    cost.note = "dense: mask values are not in the profile, the full score matrix is counted";
  }
  cost.flops = grad ? 2.5 * fwd : fwd;
  cost.bytes = TensorBytes(in, out);
  cost.dims = fmt::format("B={} Sq={} Skv={} Hq={} Hk={} Hv={}{}", b, sq, skv, hq, hk, hv,
                          nq > 0 ? fmt::format(" Nq={} D={}", nq, hq / double(nq)) : "");
  cost.params = {{"B", double(b)}, {"Sq", double(sq)}, {"Skv", double(skv)}, {"Hq", hq}, {"Hk", hk}, {"Hv", hv}};
  if (nq > 0) cost.params["Nq"] = double(nq), cost.params["D"] = hq / double(nq);
  return cost;
}

OpCost Vector(const std::vector<Tensor>& in, const std::vector<Tensor>& out, double per_element) {
  double elements = 0;
  for (const Tensor& t : out) elements = std::max(elements, t.Elements());
  if (elements == 0)
    for (const Tensor& t : in) elements = std::max(elements, t.Elements());
  if (elements == 0) return NotModelled("vector", "no tensor shape");
  OpCost cost;
  cost.modelled = true;
  cost.family = "vector";
  cost.compute_dtype = in.empty() ? "" : DtypeClass(in[0].dtype);
  cost.flops = elements * per_element;
  cost.bytes = TensorBytes(in, out);
  cost.dims = fmt::format("elements={}", elements);
  if (cost.bytes == 0) return NotModelled("vector", "tensor dtypes unknown (no bytes)");
  return cost;
}

}  // namespace

double Tensor::Elements() const {
  if (!present) return 0;
  double e = 1;
  for (int64_t d : dims) e *= double(d);
  return e;
}

std::vector<Tensor> ParseTensors(std::string_view shapes, std::string_view dtypes) {
  std::vector<Tensor> out;
  shapes = Trim(shapes);
  if (shapes.empty() || shapes == "N/A") return out;
  std::vector<std::string_view> s = Slots(shapes);
  std::vector<std::string_view> d = Slots(Trim(dtypes));
  for (size_t i = 0; i < s.size(); ++i) {
    Tensor t;
    std::string_view text = Trim(s[i]);
    t.present = !text.empty();
    if (i < d.size()) t.dtype = std::string(Trim(d[i]));
    size_t at = 0;
    while (t.present && at <= text.size()) {
      size_t comma = text.find(',', at);
      std::string_view piece = Trim(text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at));
      int64_t v = -1;
      auto r = std::from_chars(piece.data(), piece.data() + piece.size(), v);
      if (r.ec != std::errc() || r.ptr != piece.data() + piece.size() || v < 0) return {};
      t.dims.push_back(v);
      if (comma == std::string_view::npos) break;
      at = comma + 1;
    }
    out.push_back(std::move(t));
  }
  return out;
}

double DtypeBytes(std::string_view dtype) {
  std::string u = Upper(dtype);
  if (u == "FLOAT" || u == "FLOAT32" || u == "FP32" || u == "INT32" || u == "UINT32" || u == "HF32") return 4;
  if (u == "FLOAT16" || u == "FP16" || u == "BF16" || u == "BFLOAT16" || u == "INT16" || u == "UINT16") return 2;
  if (u == "INT8" || u == "UINT8" || u == "BOOL" || u.rfind("FLOAT8", 0) == 0 || u == "HIFLOAT8" || u == "FP8") return 1;
  if (u == "INT4" || u == "UINT4") return 0.5;
  if (u == "INT64" || u == "UINT64" || u == "DOUBLE" || u == "FLOAT64" || u == "COMPLEX64") return 8;
  return 0;
}

std::string DtypeClass(std::string_view dtype) {
  std::string u = Upper(dtype);
  if (u == "FLOAT16" || u == "FP16") return "fp16";
  if (u == "BF16" || u == "BFLOAT16") return "bf16";
  if (u == "FLOAT" || u == "FLOAT32" || u == "FP32") return "fp32";
  if (u == "HF32") return "hf32";
  if (u == "INT8" || u == "UINT8") return "int8";
  if (u == "INT4" || u == "UINT4") return "int4";
  if (u.rfind("FLOAT8", 0) == 0 || u == "HIFLOAT8" || u == "FP8") return "fp8";
  if (u == "INT32") return "int32";
  if (u == "INT64") return "int64";
  if (u == "BOOL") return "bool";
  return "";
}

OpCost ModelOpCost(const OpCostRules& rules, std::string_view type, std::string_view in_shapes,
                   std::string_view out_shapes, std::string_view in_dtypes) {
  if (type.empty() || type == "N/A")
    return NotModelled("", "no operator type in the export (Level0 leaves Type, shapes and dtypes out)");
  auto it = rules.family_of_type.find(std::string(type));
  if (it == rules.family_of_type.end()) return NotModelled("", "operator type not modelled");
  const std::string& family = it->second;
  std::vector<Tensor> in = ParseTensors(in_shapes, in_dtypes);
  std::vector<Tensor> out = ParseTensors(out_shapes, "");
  if (in.empty()) return NotModelled(family, "no input shapes in the export");
  if (family == "matmul") return Matmul(in, out);
  if (family == "grouped_matmul") return GroupedMatmul(in, out);
  if (family == "flash_attention") return FlashAttention(in, out, false);
  if (family == "flash_attention_grad") return FlashAttention(in, out, true);
  if (family == "vector") {
    auto f = rules.vector_flops_per_element.find(std::string(type));
    return Vector(in, out, f == rules.vector_flops_per_element.end() ? 1.0 : f->second);
  }
  return NotModelled(family, "unknown family in efficiency_rules.json");
}

}  // namespace optrace::analyze
