// What each slot of a dump holds, with a verdict per file (optrace inspect).
//
//   OPTRACE_ASSIGN_OR_RETURN(std::vector<FileReport> files, InspectDumps({"dumps/"}));
//   std::cout << FormatInspectText(files);
//
// Verdicts: empty (every byte / record count zero: saved before the device synchronised?),
// valid, overflowed (some slot dropped events), corrupt (the file cannot be decoded; the
// message says where and why). Only finding no dumps at all is an error.
#pragma once

#include <string>
#include <vector>

#include "collect/model.h"
#include "core/status.h"

namespace optrace::collect {

enum class Verdict { kValid, kEmpty, kOverflowed, kCorrupt };
const char* VerdictName(Verdict v);

struct SlotRow {
  uint32_t slot = 0;
  CoreKind kind = CoreKind::kUnknown;
  uint32_t core_index = 0;
  uint32_t sub_block = 0;
  uint64_t events = 0;
  uint64_t dropped = 0;
  uint32_t capacity = 0;
  double clock_hz = 0;
  int64_t first_ticks = 0;  // first / last event timestamp (0 when no events)
  int64_t last_ticks = 0;
};

struct FileReport {
  std::string path;
  int rank = 0;
  DumpFormat format = DumpFormat::kNative;
  Verdict verdict = Verdict::kValid;
  std::string message;  // why empty / corrupt
  uint32_t slot_words = 0;
  uint32_t never_written = 0;
  std::vector<SlotRow> slots;  // written slots only
};

Result<std::vector<FileReport>> InspectDumps(const std::vector<std::string>& inputs, double legacy_clock_mhz);

std::string FormatInspectText(const std::vector<FileReport>& files);
std::string InspectToJson(const std::vector<FileReport>& files);

}  // namespace optrace::collect
