// Decoding native dumps (rank<N>.bin, buffer format v1, SPEC section 4).
//
//   OPTRACE_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
//   OPTRACE_ASSIGN_OR_RETURN(Dump dump, DecodeNativeDump(bytes, path, rank));
//
// The slot size is read from the first slot header found; every slot must agree with it.
// Errors (exit 2 in the CLI) name the file, the slot and its byte offset, and what to do:
// a size that is not a whole number of words or slots (truncated), no header anywhere
// (all zero: saved before the device synchronised; otherwise not an optrace dump), an
// unknown magic or version, a count larger than the capacity, slot sizes that disagree.
#pragma once

#include <string_view>

#include "collect/model.h"
#include "core/status.h"

namespace optrace::collect {

// True when every byte is zero (a buffer read back before the kernel wrote it).
bool IsAllZero(std::string_view bytes);

Result<Dump> DecodeNativeDump(std::string_view bytes, std::string_view path, int rank,
                              DumpDetail detail = DumpDetail::kFull);

// The all-zero message shared by the native and legacy readers and the Python helper's docs.
std::string AllZeroMessage(std::string_view path, size_t bytes);

}  // namespace optrace::collect
