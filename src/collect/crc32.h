// Crc32: the CRC-32 of zip and gzip (reflected polynomial 0xEDB88320), the value zlib's crc32()
// returns, at memory speed where the CPU has carry-less multiply.
//
//   uint32_t crc = Crc32(0, header);
//   crc = Crc32(crc, body);          // == Crc32(0, header + body)
//
// Every stored tensor of a legacy dump is checked against its zip CRC before a record is read;
// zlib's table-driven loop made that check a fifth of `collect` (1.3 GB/s). On x86-64 with
// PCLMULQDQ the bytes are folded 64 at a time (Intel's "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ"); on aarch64 with the CRC32 extension (every Kunpeng) its
// instructions take 8 bytes at a time; elsewhere, and for x86's last few bytes, zlib computes it.
#pragma once

#include <cstdint>
#include <string_view>

namespace optrace::collect {

uint32_t Crc32(uint32_t crc, std::string_view bytes);

// zlib's loop alone: the reference the folded path is tested against.
uint32_t Crc32Portable(uint32_t crc, std::string_view bytes);

}  // namespace optrace::collect
