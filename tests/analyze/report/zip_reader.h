// Reads the members of a small .zip (an .xlsx) into memory, for tests: central directory +
// zlib raw inflate. Returns an empty map when the bytes are not a zip.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>

namespace optrace::analyze::testing {

inline uint32_t ReadLe(const std::string& b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(b[at + i]);
  return v;
}

inline std::map<std::string, std::string> UnzipAll(const std::string& zip) {
  std::map<std::string, std::string> files;
  if (zip.size() < 22) return files;
  size_t eocd = zip.size() - 22;
  while (eocd > 0 && ReadLe(zip, eocd, 4) != 0x06054b50) --eocd;
  if (ReadLe(zip, eocd, 4) != 0x06054b50) return files;
  uint32_t entries = ReadLe(zip, eocd + 10, 2), at = ReadLe(zip, eocd + 16, 4);
  for (uint32_t n = 0; n < entries && at + 46 <= zip.size() && ReadLe(zip, at, 4) == 0x02014b50; ++n) {
    uint32_t method = ReadLe(zip, at + 10, 2), csize = ReadLe(zip, at + 20, 4), usize = ReadLe(zip, at + 24, 4);
    uint32_t name_len = ReadLe(zip, at + 28, 2), extra = ReadLe(zip, at + 30, 2), comment = ReadLe(zip, at + 32, 2);
    uint32_t local = ReadLe(zip, at + 42, 4);
    std::string name = zip.substr(at + 46, name_len);
    size_t data = local + 30 + ReadLe(zip, local + 26, 2) + ReadLe(zip, local + 28, 2);
    std::string out(usize, '\0');
    if (method == 0) {
      out = zip.substr(data, csize);
    } else {
      z_stream zs;
      std::memset(&zs, 0, sizeof(zs));
      inflateInit2(&zs, -15);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zip.data() + data));
      zs.avail_in = csize;
      zs.next_out = reinterpret_cast<Bytef*>(out.data());
      zs.avail_out = usize;
      inflate(&zs, Z_FINISH);
      inflateEnd(&zs);
    }
    files[name] = out;
    at += 46 + name_len + extra + comment;
  }
  return files;
}

}  // namespace optrace::analyze::testing
