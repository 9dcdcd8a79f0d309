// Seed 002's input by manifest: `optrace analyze --manifest RUN/manifest.json` reads the profiling
// root from the manifest the collection step (ascend-profiling-collection) wrote, instead of a
// root on the command line, and refuses a capture the collection itself marked as not analyzable.
//
//   OPTRACE_ASSIGN_OR_RETURN(CollectionManifest m, ReadCollectionManifest("run/manifest.json"));
//   roots = {m.profile_root};
#pragma once

#include <filesystem>
#include <string>

#include "core/status.h"

namespace optrace::analyze::report {

struct CollectionManifest {
  std::filesystem::path profile_root;  // `remote_profile_root` (or `profile_root`), relative to the manifest's folder
  std::string analysis_status;         // "ok"
  std::string execution_id, host;      // where it was recorded, when the manifest says
  int schema_version = 0;
};

// Refuses: a file that is not a JSON object, no root field, an `analysis_status` other than "ok"
// (with the status as recorded: `missing_kernel_details` means the capture has nothing to
// analyze), a root that is not a directory here (a remote path: run analyze where it lives).
Result<CollectionManifest> ReadCollectionManifest(const std::filesystem::path& path);

}  // namespace optrace::analyze::report
