// A minimal protobuf wire reader for the checks of optrace's .pftrace against Perfetto's schema
// (tests/collect/perfetto_writer_test.cc, fuzz/fuzz_pftrace_vs_json.cc): the fields of one
// message, and the inflation of a compressed_packets payload. Malformed input is reported through
// `error`; the caller decides what it means (a test fails, a fuzz target aborts).
//
//   std::string error;
//   for (const WireField& packet : WireFields(trace, &error)) ...
//   if (const WireField* z = WireGet(fields, 50)) Inflate(z->bytes, &inner);
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace optrace::testing {

struct WireField {
  uint32_t number = 0;
  uint64_t varint = 0;
  std::string bytes;  // length-delimited
  bool is_bytes = false;
};

inline bool ReadWireVarint(std::string_view s, size_t& p, uint64_t& v) {
  v = 0;
  for (int shift = 0; p < s.size() && shift < 64; shift += 7) {
    const uint8_t b = static_cast<uint8_t>(s[p++]);
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// The fields of message `s`. At the first malformed field, the fields before it, and *error says
// what is wrong.
inline std::vector<WireField> WireFields(std::string_view s, std::string* error) {
  std::vector<WireField> out;
  size_t p = 0;
  while (p < s.size()) {
    uint64_t key = 0;
    if (!ReadWireVarint(s, p, key)) return *error = "a truncated key", out;
    WireField f;
    f.number = static_cast<uint32_t>(key >> 3);
    if ((key & 7) == 0) {
      if (!ReadWireVarint(s, p, f.varint)) return *error = "a truncated varint", out;
    } else if ((key & 7) == 2) {
      uint64_t n = 0;
      if (!ReadWireVarint(s, p, n) || n > s.size() - p) return *error = "a length past the message", out;
      f.bytes = std::string(s.substr(p, n));
      f.is_bytes = true;
      p += n;
    } else if ((key & 7) == 1 || (key & 7) == 5) {  // fixed64 (a double), fixed32: the raw bytes
      const size_t n = (key & 7) == 1 ? 8 : 4;
      if (n > s.size() - p) return *error = "a truncated fixed field", out;
      f.bytes = std::string(s.substr(p, n));
      p += n;
    } else {
      return *error = "an unexpected wire type " + std::to_string(key & 7), out;
    }
    out.push_back(std::move(f));
  }
  return out;
}

inline const WireField* WireGet(const std::vector<WireField>& fs, uint32_t number) {
  for (const WireField& f : fs)
    if (f.number == number) return &f;
  return nullptr;
}

// zlib-inflates a compressed_packets payload into *out; false unless it inflates to its end.
inline bool Inflate(std::string_view z, std::string* out) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return false;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
  zs.avail_in = static_cast<uInt>(z.size());
  out->clear();
  char chunk[1 << 14];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    out->append(chunk, sizeof chunk - zs.avail_out);
  }
  inflateEnd(&zs);
  return rc == Z_STREAM_END;
}

}  // namespace optrace::testing
