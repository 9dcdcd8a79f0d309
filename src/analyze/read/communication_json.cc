// communication.json and communication_matrix.json (the ASCEND_PROFILER_OUTPUT of torch_npu's text
// export): per HCCL op its time split and per-transport bandwidth, per link its size, time and
// bandwidth.
#include <nlohmann/json.hpp>

#include "analyze/read/json_file.h"
#include "analyze/read/normalize.h"
#include "core/csv_reader.h"

namespace optrace::analyze {

using nlohmann::json;

int64_t StepOfCommKey(const std::string& key) {
  size_t i = key.find_first_of("0123456789");
  if (i == std::string::npos || key.size() - i > 18) return -1;
  auto v = ParseCsvInt(key.substr(i));
  return v ? *v : -1;
}

// communication.json and communication_matrix.json share their nesting: step -> "collective" |
// "p2p" -> "<op>@<group>" -> value ("Total Op Info" is a sum, left out). fn(step, p2p, op, group,
// value) per entry whose value is an object.
template <typename Fn>
Status ForEachCommEntry(const std::filesystem::path& path, Fn fn) {
  OPTRACE_ASSIGN_OR_RETURN(json j, ParseJsonFile(path));
  if (!j.is_object()) return BadInputError("{}: expected an object keyed by step (\"step50\": ...)", path.string());
  for (auto& [step, groups] : j.items()) {
    if (!groups.is_object()) continue;
    for (const char* kind : {"collective", "p2p"}) {
      if (!groups.contains(kind) || !groups[kind].is_object()) continue;
      for (auto& [key, value] : groups[kind].items()) {
        if (key == "Total Op Info" || !value.is_object()) continue;
        size_t at = key.find('@');
        fn(step, std::string_view(kind) == "p2p", key.substr(0, at), at == std::string::npos ? "" : key.substr(at + 1),
           value);
      }
    }
  }
  return Status::Ok();
}

Status ReadCommunicationJson(const std::filesystem::path& path, RankTable& table) {
  return ForEachCommEntry(
      path, [&](const std::string& step, bool p2p, std::string name, std::string group, const json& info) {
        CommOp op;
        op.name = std::move(name);
        op.group = std::move(group);
        op.step = step;
        op.p2p = p2p;
        const json& ti = info.contains("Communication Time Info") ? info["Communication Time Info"] : json();
        double start_us = JsonNumber(ti, "Start Timestamp(us)");
        op.start_ns = IsMissing(start_us) ? -1 : static_cast<int64_t>(std::llround(start_us * 1000.0));
        op.elapse_ms = JsonNumber(ti, "Elapse Time(ms)");
        op.transit_ms = JsonNumber(ti, "Transit Time(ms)");
        op.wait_ms = JsonNumber(ti, "Wait Time(ms)");
        op.sync_ms = JsonNumber(ti, "Synchronization Time(ms)");
        op.idle_ms = JsonNumber(ti, "Idle Time(ms)");
        op.wait_ratio = JsonNumber(ti, "Wait Time Ratio");
        op.sync_ratio = JsonNumber(ti, "Synchronization Time Ratio");
        const json& bi = info.contains("Communication Bandwidth Info") ? info["Communication Bandwidth Info"] : json();
        if (bi.is_object())
          for (auto& [transport, link] : bi.items()) {
            if (!link.is_object()) continue;
            CommBandwidth b;
            b.transport = transport;
            b.size_mb = JsonNumber(link, "Transit Size(MB)");
            b.time_ms = JsonNumber(link, "Transit Time(ms)");
            b.bandwidth_gbps = JsonNumber(link, "Bandwidth(GB/s)");
            b.large_packet_ratio = JsonNumber(link, "Large Packet Ratio");
            // A transport the op did not use is listed with zeros: not kept.
            if (!(b.size_mb > 0) && !(b.time_ms > 0)) continue;
            if (link.contains("Size Distribution") && link["Size Distribution"].is_object())
              for (auto& [packet, v] : link["Size Distribution"].items()) {
                auto mb = ParseCsvNumber(packet);
                if (!mb || !v.is_array() || v.size() < 2 || !v[0].is_number() || !v[1].is_number()) continue;
                b.sizes.push_back({*mb, v[0].get<double>(), v[1].get<double>()});
              }
            std::sort(b.sizes.begin(), b.sizes.end(),
                      [](const CommPacketBucket& x, const CommPacketBucket& y) { return x.packet_mb < y.packet_mb; });
            op.bandwidth.push_back(std::move(b));
          }
        table.comm_ops.push_back(std::move(op));
      });
}

Status ReadCommunicationMatrixJson(const std::filesystem::path& path, RankTable& table) {
  return ForEachCommEntry(
      path, [&](const std::string& step, bool p2p, const std::string& op, const std::string& group, const json& links) {
        for (auto& [pair, link] : links.items()) {
          if (!link.is_object()) continue;
          CommMatrixLink l;
          l.step = step;
          l.key = op;
          l.group = group;
          l.p2p = p2p;
          size_t dash = pair.find('-');
          auto src = ParseCsvInt(pair.substr(0, dash));
          auto dst = dash == std::string::npos ? std::nullopt : ParseCsvInt(pair.substr(dash + 1));
          if (!src || !dst) continue;  // not a "<src>-<dst>" key
          l.src = static_cast<int>(*src);
          l.dst = static_cast<int>(*dst);
          if (link.contains("Transport Type") && link["Transport Type"].is_string())
            l.transport = link["Transport Type"].get<std::string>();
          if (link.contains("Op Name") && link["Op Name"].is_string()) l.op_name = link["Op Name"].get<std::string>();
          l.size_mb = JsonNumber(link, "Transit Size(MB)");
          l.time_ms = JsonNumber(link, "Transit Time(ms)");
          l.bandwidth_gbps = JsonNumber(link, "Bandwidth(GB/s)");
          table.comm_matrix.push_back(std::move(l));
        }
      });
}

}  // namespace optrace::analyze
