// Who recorded a rank: the host's name and the profiled process's id, each with the file that says
// it. Seed 003 asks to keep "hostname, node rank, global rank, device id, PID" with the capture;
// the exports state them in different places (the first value read is kept):
//
//   1. msprof's info.json (PROF_*/host/info.json, PROF_*/device_<id>/info.json.<id>): "hostname", "pid"
//   2. the db export: HOST_INFO.hostName, and the pid in the high 32 bits of PYTORCH_API /
//      CANN_API globalTid (torch_db.cc reads these, before the others)
//   3. trace_view.json: the pid of the process named "Python" (its metadata record)
//   4. the torch_npu folder name `{hostname}_{pid}_{yyyymmddHHMMSSmmm}_ascend_pt`: the default worker
//      name only, so this fills blanks and is marked inferred (a renamed folder says nothing).
//
// A stated value that disagrees with an earlier stated one is kept out and named in `conflict`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "analyze/model/events.h"

namespace optrace::analyze {

// Each Offer* keeps the first value; a later, different stated value is recorded as the conflict.
void OfferHostname(ProcessIdentity& id, std::string_view name, std::string_view from);
void OfferPid(ProcessIdentity& id, int64_t pid, std::string_view from);

// The `{hostname}_{pid}` torch_npu put in the folder name by default, when the name has that shape.
struct WorkerName {
  std::string hostname;
  int64_t pid = -1;
};
std::optional<WorkerName> ParseAscendPtFolderName(std::string_view folder);

// Sources 1, 3 and 4 for the rank folder `dir` (the *_ascend_pt or PROF_* directory) and its
// trace_view.json (may be empty), added to `id` (which may already hold the db's values).
// `device` >= 0: one device of a node's msprof export (its own info.json first). trace_view.json
// is read only up to its first 8 MiB (torch_npu writes the metadata records first).
void ReadProcessIdentity(const std::filesystem::path& dir, const std::filesystem::path& trace_view,
                         ProcessIdentity& id, int device = -1);

}  // namespace optrace::analyze
