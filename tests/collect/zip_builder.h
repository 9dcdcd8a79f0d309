// A minimal zip writer for tests: stored or deflated entries with CRC-32, a central directory
// and the end record, as torch.save and zipfile write them (no zip64).
//
//   std::string zip = testing::BuildZip({{"a/data.pkl", pickle, false}, {"a/data/0", raw, true}});
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace optrace::collect::testing {

struct ZipFile {
  std::string name;
  std::string data;
  bool deflate = false;
  // Overrides for crafted entries (zip bombs): the sizes and CRC the headers claim.
  int64_t claimed_size = -1;
  int64_t claimed_crc = -1;
};

inline void Put16(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
inline void Put32(std::string& s, uint32_t v) {
  Put16(s, v & 0xffff);
  Put16(s, v >> 16);
}

inline std::string Deflate(const std::string& in) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, in.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline std::string BuildZip(const std::vector<ZipFile>& files) {
  std::string out, central;
  for (const ZipFile& f : files) {
    const std::string body = f.deflate ? Deflate(f.data) : f.data;
    const uint32_t crc = f.claimed_crc >= 0 ? static_cast<uint32_t>(f.claimed_crc)
                                            : static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(f.data.data()),
                                                                          static_cast<uInt>(f.data.size())));
    const uint32_t size = f.claimed_size >= 0 ? static_cast<uint32_t>(f.claimed_size) : static_cast<uint32_t>(f.data.size());
    const uint32_t offset = static_cast<uint32_t>(out.size());
    const uint16_t method = f.deflate ? 8 : 0;
    Put32(out, 0x04034b50);
    Put16(out, 20);
    Put16(out, 0);
    Put16(out, method);
    Put32(out, 0);  // time, date
    Put32(out, crc);
    Put32(out, static_cast<uint32_t>(body.size()));
    Put32(out, size);
    Put16(out, static_cast<uint32_t>(f.name.size()));
    Put16(out, 0);
    out += f.name;
    out += body;
    Put32(central, 0x02014b50);
    Put16(central, 20);
    Put16(central, 20);
    Put16(central, 0);
    Put16(central, method);
    Put32(central, 0);
    Put32(central, crc);
    Put32(central, static_cast<uint32_t>(body.size()));
    Put32(central, size);
    Put16(central, static_cast<uint32_t>(f.name.size()));
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0);
    Put32(central, 0);
    Put32(central, offset);
    central += f.name;
  }
  const uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += central;
  Put32(out, 0x06054b50);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, static_cast<uint32_t>(files.size()));
  Put16(out, static_cast<uint32_t>(files.size()));
  Put32(out, static_cast<uint32_t>(central.size()));
  Put32(out, cd_offset);
  Put16(out, 0);
  return out;
}

}  // namespace optrace::collect::testing
