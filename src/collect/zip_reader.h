// A small reader for the zip container torch.save writes (stored entries, zip64 aware).
//
//   OPTRACE_ASSIGN_OR_RETURN(ZipArchive zip, ZipArchive::Open(bytes, path));
//   for (const ZipEntry& e : zip.entries()) ...;
//   OPTRACE_ASSIGN_OR_RETURN(std::string_view data, zip.Read(entry));
//
// torch writes entries uncompressed, so Read() of a stored entry is a view into `bytes`
// (no copy): `bytes` must outlive the archive. Deflated entries are inflated with zlib.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace::collect {

struct ZipEntry {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_header_offset = 0;
  uint32_t crc32 = 0;  // of the uncompressed data, from the central directory
};

// Bounds on inflation (zip bombs): one deflated entry, and all of one file's entries together.
inline constexpr uint64_t kMaxInflatedEntryBytes = uint64_t{512} << 20;
inline constexpr uint64_t kMaxInflatedFileBytes = uint64_t{1} << 30;

class ZipArchive {
 public:
  // Fails with "not a zip file" when no end-of-central-directory record is found.
  static Result<ZipArchive> Open(std::string_view bytes, std::string path);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const ZipEntry* Find(std::string_view name) const;
  // verify_crc = false skips the CRC-32 of a stored entry (collect's layout pass; see DumpDetail).
  Result<std::string_view> Read(const ZipEntry& entry, bool verify_crc = true);
  // Where the entry's (compressed) bytes start in the file, after its local header, checked to lie
  // inside it: for reading a large stored entry from the file piece by piece instead of through
  // Read(), which needs every byte in memory.
  Result<uint64_t> DataOffset(const ZipEntry& entry) const;

 private:
  std::string_view bytes_;
  std::string path_;
  std::vector<ZipEntry> entries_;
  std::deque<std::string> inflated_;  // owns inflated entries; deque keeps views stable
  uint64_t inflated_total_ = 0;
};

}  // namespace optrace::collect
