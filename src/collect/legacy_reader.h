// Decoding legacy dumps (rank<NNN>.pt from the seed toolchain, SPEC section 5).
//
//   OPTRACE_ASSIGN_OR_RETURN(Dump dump, DecodeLegacyDump(bytes, path, rank, /*clock_hz=*/50e6));
//
// Row layout per core: word 0 = 1 + record count; record i's combined id (point id | extra << 32)
// at word 1 + i; word -1 the initial timestamp; record i's timestamp at word -2 - i; at most
// (PROF_SIZE - 2) / 2 records. A list of two tensors is [AIC, AIV]; a list of one tensor or a
// bare tensor holds AIV rows (the seed instruments vector cores); further list items are kept as
// core kind "core". A row whose word 0 is 0 was never written.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "collect/model.h"
#include "collect/torch_reader.h"
#include "core/status.h"

namespace optrace::collect {

Result<Dump> DecodeLegacyTensors(const TorchFile& file, std::string_view path, int rank, double clock_hz,
                                 DumpDetail detail = DumpDetail::kFull);
Result<Dump> DecodeLegacyDump(std::string_view bytes, std::string_view path, int rank, double clock_hz,
                              DumpDetail detail = DumpDetail::kFull);

// DecodeLegacyDump of the file at `path`, holding a block of rows at a time instead of the file:
// a dump's rows are mostly unwritten capacity (records at the front, timestamps at the back), so
// the decoded events take a fraction of the file. The zip CRC-32 is checked over every byte as
// they go by. A file stored any other way (deflated, strided), or with any problem, is read whole
// into `buffer` and decoded from there: same dump, same errors. `buffer` is reused between calls.
// DumpDetail::kDeferred: a streamed dump keeps its file open and leaves each core's events there
// (Dump::deferred reads them a core at a time, from blocks of rows); read whole, it decodes them all.
Result<Dump> ReadLegacyDumpFile(const std::filesystem::path& path, int rank, double clock_hz, DumpDetail detail,
                                std::string& buffer);

}  // namespace optrace::collect
