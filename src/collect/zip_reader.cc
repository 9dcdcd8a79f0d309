#include "collect/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "collect/crc32.h"

namespace optrace::collect {
namespace {

constexpr uint32_t kEocdSig = 0x06054b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kZip64EocdSig = 0x06064b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kLocalSig = 0x04034b50;

template <typename T>
T Le(std::string_view b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

}  // namespace

Result<ZipArchive> ZipArchive::Open(std::string_view bytes, std::string path) {
  ZipArchive zip;
  zip.bytes_ = bytes;
  zip.path_ = std::move(path);
  const std::string& p = zip.path_;
  if (bytes.size() < 22) return BadInputError("{}: {} bytes is too short for a zip file; the file is not a torch.save file", p, bytes.size());
  // The end record sits in the last 22 + 65535 bytes (its comment is at most 64 KiB).
  size_t eocd = std::string_view::npos;
  size_t lowest = bytes.size() > 22 + 65535 ? bytes.size() - 22 - 65535 : 0;
  for (size_t i = bytes.size() - 22 + 1; i-- > lowest;) {
    if (Le<uint32_t>(bytes, i) == kEocdSig) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string_view::npos) {
    return BadInputError("{}: not a zip file (no end-of-central-directory record); a .pt dump must be what "
                         "torch.save wrote (or save native dumps as rank<N>.bin)", p);
  }
  uint64_t count = Le<uint16_t>(bytes, eocd + 10);
  uint64_t cd_size = Le<uint32_t>(bytes, eocd + 12);
  uint64_t cd_offset = Le<uint32_t>(bytes, eocd + 16);
  if (eocd >= 20 && Le<uint32_t>(bytes, eocd - 20) == kZip64LocatorSig) {
    uint64_t z64 = Le<uint64_t>(bytes, eocd - 20 + 8);
    if (bytes.size() < 56 || z64 > bytes.size() - 56 || Le<uint32_t>(bytes, z64) != kZip64EocdSig) {
      return BadInputError("{}: byte {}: broken zip64 end record; the file is truncated or corrupt", p, z64);
    }
    count = Le<uint64_t>(bytes, z64 + 32);
    cd_size = Le<uint64_t>(bytes, z64 + 40);
    cd_offset = Le<uint64_t>(bytes, z64 + 48);
  }
  if (cd_offset > bytes.size() || cd_size > bytes.size() - cd_offset) {
    return BadInputError("{}: the zip directory (byte {}, {} bytes) lies past the end of the file ({} bytes): the "
                         "file is truncated; save it again", p, cd_offset, cd_size, bytes.size());
  }
  size_t at = cd_offset;
  const size_t end = cd_offset + cd_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (at + 46 > end || Le<uint32_t>(bytes, at) != kCentralSig) {
      return BadInputError("{}: byte {}: zip directory entry {} is broken; the file is corrupt", p, at, i);
    }
    ZipEntry e;
    e.method = Le<uint16_t>(bytes, at + 10);
    e.crc32 = Le<uint32_t>(bytes, at + 16);
    e.compressed_size = Le<uint32_t>(bytes, at + 20);
    e.size = Le<uint32_t>(bytes, at + 24);
    uint16_t name_len = Le<uint16_t>(bytes, at + 28);
    uint16_t extra_len = Le<uint16_t>(bytes, at + 30);
    uint16_t comment_len = Le<uint16_t>(bytes, at + 32);
    e.local_header_offset = Le<uint32_t>(bytes, at + 42);
    if (at + 46 + name_len + extra_len + comment_len > end) {
      return BadInputError("{}: byte {}: zip directory entry {} runs past the directory; the file is corrupt", p, at, i);
    }
    e.name.assign(bytes.data() + at + 46, name_len);
    // zip64 extra field: the 0xffffffff fields above, in order, as 64-bit values.
    size_t x = at + 46 + name_len;
    const size_t x_end = x + extra_len;
    while (x + 4 <= x_end) {
      uint16_t id = Le<uint16_t>(bytes, x);
      uint16_t len = Le<uint16_t>(bytes, x + 2);
      if (id == 0x0001) {
        size_t f = x + 4;
        auto take = [&](uint64_t& field) {
          if (field == 0xffffffffu && f + 8 <= x + 4 + len) {
            field = Le<uint64_t>(bytes, f);
            f += 8;
          }
        };
        take(e.size);
        take(e.compressed_size);
        take(e.local_header_offset);
      }
      x += 4 + len;
    }
    zip.entries_.push_back(std::move(e));
    at += 46 + name_len + extra_len + comment_len;
  }
  return zip;
}

const ZipEntry* ZipArchive::Find(std::string_view name) const {
  for (const ZipEntry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Result<uint64_t> ZipArchive::DataOffset(const ZipEntry& e) const {
  const uint64_t at = e.local_header_offset;
  if (bytes_.size() < 30 || at > bytes_.size() - 30 || Le<uint32_t>(bytes_, at) != kLocalSig) {
    return BadInputError("{}: byte {}: the zip header of '{}' is missing; the file is corrupt", path_, at, e.name);
  }
  const uint64_t data = at + 30 + Le<uint16_t>(bytes_, at + 26) + Le<uint16_t>(bytes_, at + 28);
  if (data > bytes_.size() || e.compressed_size > bytes_.size() - data) {
    return BadInputError("{}: '{}' (byte {}, {} bytes) runs past the end of the file: the file is truncated; save it "
                         "again", path_, e.name, data, e.compressed_size);
  }
  return data;
}

Result<std::string_view> ZipArchive::Read(const ZipEntry& e, bool verify_crc) {
  OPTRACE_ASSIGN_OR_RETURN(uint64_t data, DataOffset(e));
  std::string_view raw = bytes_.substr(data, e.compressed_size);
  // The zip's own CRC-32: a flipped bit in a stored tensor would otherwise be read as a record.
  auto checked = [&](std::string_view d) -> Result<std::string_view> {
    const uint32_t crc = Crc32(0, d);
    if (crc != e.crc32) {
      return BadInputError("{}: '{}' fails its zip CRC-32 check (0x{:08x}, expected 0x{:08x}): the file is corrupt; "
                           "save it again",
                           path_, e.name, crc, e.crc32);
    }
    return d;
  };
  if (e.method == 0) return verify_crc ? checked(raw) : Result<std::string_view>(raw);
  if (e.method != 8) {
    return BadInputError("{}: '{}' uses zip compression method {}; only stored and deflated entries are read",
                         path_, e.name, e.method);
  }
  if (e.size > raw.size() * 1032 + 1024) {  // deflate cannot expand more than ~1032:1
    return BadInputError("{}: '{}' claims {} bytes from {} compressed; the file is corrupt", path_, e.name, e.size,
                         raw.size());
  }
  // A deflated entry is inflated in full (its CRC covers all of it): bound what one file may make
  // us allocate. Profiling tensors are a few MiB; a zip bomb (zeros deflate ~1000:1) is refused
  // before anything is allocated.
  if (e.size > kMaxInflatedEntryBytes || inflated_total_ + e.size > kMaxInflatedFileBytes) {
    return BadInputError("{}: '{}' inflates to {} bytes ({} MiB in this file so far): more than the {} MiB optrace "
                         "inflates per entry and {} MiB per file; a profiling dump is far smaller, so this is not "
                         "one (or not one optrace will read)",
                         path_, e.name, e.size, inflated_total_ >> 20, kMaxInflatedEntryBytes >> 20,
                         kMaxInflatedFileBytes >> 20);
  }
  inflated_total_ += e.size;
  std::string& out = inflated_.emplace_back(e.size, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return InternalError("zlib inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&zs, Z_FINISH);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || zs.total_out != e.size) {
    return BadInputError("{}: '{}' does not inflate to its {} bytes; the file is corrupt", path_, e.name, e.size);
  }
  return checked(std::string_view(out));
}

}  // namespace optrace::collect
