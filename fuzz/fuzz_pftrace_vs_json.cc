// The Perfetto writer against the Chrome JSON writer (issue 53.1): a native dump from the fuzz
// input goes through collect to both; every slice of the protobuf trace, decoded with the tests'
// protobuf reader (tests/testing/protobuf_wire.h), must be a slice of the JSON trace with the
// same name, start and duration (to the nanosecond), and the counts must match. A difference
// aborts.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "fuzz_harness.h"
#include "testing/protobuf_wire.h"
#include "fuzz_target.h"

namespace {

using Field = optrace::testing::WireField;

[[noreturn]] void Mismatch(const std::string& what) {
  std::fprintf(stderr, "fuzz_pftrace_vs_json: %s\n", what.c_str());
  std::abort();
}

std::vector<Field> Fields(std::string_view s) {
  std::string error;
  std::vector<Field> out = optrace::testing::WireFields(s, &error);
  if (!error.empty()) Mismatch(error);
  return out;
}

const Field* Get(const std::vector<Field>& fs, uint32_t number) { return optrace::testing::WireGet(fs, number); }

std::string Inflate(std::string_view z) {
  std::string out;
  if (!optrace::testing::Inflate(z, &out)) Mismatch("compressed packets that do not inflate");
  return out;
}

using SliceKey = std::tuple<std::string, int64_t, int64_t>;  // name, begin ns, duration ns

void PacketsOf(std::string_view trace, std::vector<std::string>& out) {
  for (const Field& p : Fields(trace)) {
    std::vector<Field> packet = Fields(p.bytes);
    if (const Field* z = Get(packet, 50)) {
      std::string inner = Inflate(z->bytes);
      PacketsOf(inner, out);
      continue;
    }
    out.emplace_back(p.bytes);
  }
}

std::vector<SliceKey> PerfettoSlices(const std::string& trace) {
  std::vector<std::string> packets;
  PacketsOf(trace, packets);
  std::map<uint64_t, std::map<uint64_t, std::string>> names;  // sequence -> iid -> name
  std::map<uint64_t, uint64_t> default_track;
  std::map<uint64_t, std::vector<std::pair<std::string, uint64_t>>> open;  // track -> stack
  std::vector<SliceKey> out;
  for (const std::string& bytes : packets) {
    std::vector<Field> packet = Fields(bytes);
    const Field* te = Get(packet, 11);
    if (!te) continue;
    const Field* ts_field = Get(packet, 8);
    const Field* seq_field = Get(packet, 10);
    if (!ts_field || !seq_field) Mismatch("a track event without a timestamp or sequence");
    const uint64_t seq = seq_field->varint;
    if (const Field* flags = Get(packet, 13); flags && (flags->varint & 1)) names[seq].clear();
    if (const Field* defaults = Get(packet, 59)) {
      const std::vector<Field> d = Fields(defaults->bytes);
      if (const Field* ted = Get(d, 11)) {
        const std::vector<Field> t = Fields(ted->bytes);
        if (const Field* track = Get(t, 11)) default_track[seq] = track->varint;
      }
    }
    if (const Field* interned = Get(packet, 12))
      for (const Field& entry : Fields(interned->bytes))
        if (entry.number == 2) {
          std::vector<Field> e = Fields(entry.bytes);
          if (Get(e, 1) && Get(e, 2)) names[seq][Get(e, 1)->varint] = std::string(Get(e, 2)->bytes);
        }
    std::vector<Field> ev = Fields(te->bytes);
    const Field* type = Get(ev, 9);
    if (!type) Mismatch("a track event without a type");
    const uint64_t track = Get(ev, 11) ? Get(ev, 11)->varint : default_track[seq];
    std::string name;
    if (const Field* n = Get(ev, 23)) name = std::string(n->bytes);
    if (const Field* n = Get(ev, 10)) {
      auto it = names[seq].find(n->varint);
      if (it == names[seq].end()) Mismatch("a name id not interned on its sequence");
      name = it->second;
    }
    if (type->varint == 1) {
      open[track].push_back({name, ts_field->varint});
    } else if (type->varint == 2) {
      if (open[track].empty()) Mismatch("a slice end without a begin");
      auto [n, begin] = open[track].back();
      open[track].pop_back();
      if (ts_field->varint < begin) Mismatch("a slice that ends before it begins");
      out.emplace_back(n, static_cast<int64_t>(begin), static_cast<int64_t>(ts_field->varint - begin));
    }
  }
  for (const auto& [track, stack] : open)
    if (!stack.empty()) Mismatch("an unclosed slice");
  return out;
}

std::vector<SliceKey> JsonSlices(const std::string& text) {
  std::vector<SliceKey> out;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) Mismatch("the JSON trace does not parse");
  for (const auto& e : j["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
    out.emplace_back(e.value("name", ""), std::llround(ts * 1000.0), std::llround(dur * 1000.0));
  }
  return out;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

OPTRACE_FUZZ_TARGET(fuzz_pftrace_vs_json) {
  using namespace optrace::fuzz;
  Scratch& s = Scratch::Fresh();
  s.Write("dumps/rank0.bin", Bytes(data, size));
  if (Run({"collect", s.Path("dumps"), "-o", s.Path("t.json")}) != 0) return 0;
  if (Run({"collect", s.Path("dumps"), "-o", s.Path("t.pftrace")}) != 0) Mismatch("JSON written, pftrace refused");
  std::vector<SliceKey> json = JsonSlices(ReadAll(s.Path("t.json")));
  std::vector<SliceKey> pf = PerfettoSlices(ReadAll(s.Path("t.pftrace")));
  if (json.size() != pf.size())
    Mismatch("slice counts differ: JSON " + std::to_string(json.size()) + ", pftrace " + std::to_string(pf.size()));
  std::sort(json.begin(), json.end());
  std::sort(pf.begin(), pf.end());
  for (size_t i = 0; i < json.size(); ++i) {
    const auto& [jn, jb, jd] = json[i];
    const auto& [pn, pb, pd] = pf[i];
    // The JSON trace writes microseconds as decimals: equal to the nanosecond, within its rounding
    // (1 ns, and double precision for times far from the origin).
    const double far = std::max(std::abs(static_cast<double>(jb)), std::abs(static_cast<double>(jb) + jd));
    const int64_t tol = 1 + static_cast<int64_t>(far * 1e-12);
    if (jn != pn || std::llabs(jb - pb) > tol || std::llabs(jd - pd) > 2 * tol)
      Mismatch("slice " + std::to_string(i) + " differs: JSON '" + jn + "' " + std::to_string(jb) + "+" +
               std::to_string(jd) + " ns, pftrace '" + pn + "' " + std::to_string(pb) + "+" + std::to_string(pd));
  }
  return 0;
}
