// A rank's pipeline (PMU) fields: the kept fields, the wide row a reader fills (PipelineFields),
// and the sparse form a rank stores (PipeStore), read through a PipeView.
//
//   PipelineFields f;                      // a reader: every field missing
//   f.packed[StoredPipeIndex(Pipe::kAivVecTime)] = PackDecimalText("9.406", overflow);
//   uint32_t row = table.pipes.Add(f);     // Event::pipe
//   PipeView v = table.pipes.View(row);    // v.Has(i), v.Packed(i), v.op_state()
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/packed_decimal.h"

namespace optrace::analyze {

// Pipeline (PMU PipeUtilization) fields of kernel_details / op_summary / TASK_PMU_INFO. Times in
// microseconds as the CSV writes them; ratios 0..1. Missing = NaN.
enum class Pipe : uint8_t {
  kAicoreTime, kAicTotalCycles, kAicMacTime, kAicMacRatio, kAicScalarTime, kAicScalarRatio,
  kAicMte1Time, kAicMte1Ratio, kAicMte2Time, kAicMte2Ratio, kAicFixpipeTime, kAicFixpipeRatio,
  kAicIcacheMissRate,
  kAivTime, kAivTotalCycles, kAivVecTime, kAivVecRatio, kAivScalarTime, kAivScalarRatio,
  kAivMte2Time, kAivMte2Ratio, kAivMte3Time, kAivMte3Ratio, kAivIcacheMissRate,
  kCubeUtilization,
  kCount
};
inline constexpr int kPipeCount = static_cast<int>(Pipe::kCount);
// The kernel_details column name of a field ("aic_mac_time(us)"), and the db TASK_PMU_INFO name.
std::string_view PipeColumnName(Pipe p);
std::string_view PipeDbName(Pipe p);   // "aic_mac_time" ("" when the db has no such metric)
std::string_view PipeShortName(Pipe p);  // "aic_mac_time" — the CSV column name in our outputs
// The column of an Ascend910A export, whose one AI Core type writes its stages unprefixed
// ("mac_time(us)", "vec_time(us)", "mte2_time(us)"): the cube-side stages read as aic_*, vec and
// mte3 as aiv_*. "" when 910A has no such column (fixpipe, the aiv_* totals).
std::string_view Pipe910AColumnName(Pipe p);

// The pipeline fields an event keeps: the 11 stage times (us) the summaries add up and the bound
// classification reads. The other columns of the export (ratios, cycles, icache miss rates) are
// derived from these or unused, and are not materialised.
inline constexpr std::array<Pipe, 11> kPipeSumFields = {
    Pipe::kAicoreTime, Pipe::kAivTime, Pipe::kAicMacTime, Pipe::kAicFixpipeTime, Pipe::kAicMte1Time,
    Pipe::kAicMte2Time, Pipe::kAicScalarTime, Pipe::kAivVecTime, Pipe::kAivMte2Time, Pipe::kAivMte3Time,
    Pipe::kAivScalarTime};
inline constexpr int kStoredPipeCount = static_cast<int>(kPipeSumFields.size());
// Index of `p` in kPipeSumFields, -1 when it is not kept.
constexpr int StoredPipeIndex(Pipe p) {
  for (int i = 0; i < kStoredPipeCount; ++i)
    if (kPipeSumFields[i] == p) return i;
  return -1;
}

// An operator's "OP State" column (Level1/2 kernel_details, op_summary): whether it was compiled
// for a dynamic shape. It rides with the pipeline fields, which the same exports carry.
enum class OpState : uint8_t { kUnknown, kDynamic, kStatic };

// One event's kept pipeline fields as packed decimals (core/packed_decimal.h: 4 bytes a field,
// the exact double the export's text gives; NaN when missing), as a reader fills them. A rank
// stores them sparsely (PipeStore below); values that do not pack sit in RankTable::pipe_overflow,
// so a value is read through its table: RankTable::PipeValue.
struct PipelineFields {
  std::array<uint32_t, kStoredPipeCount> packed;
  OpState op_state = OpState::kUnknown;
  PipelineFields() { packed.fill(kPackedMissing); }
  bool Has(int field) const { return packed[field] != kPackedMissing; }
  // Whether any pipeline field is present (a row may carry only the OP State).
  bool AnyPipe() const {
    for (uint32_t v : packed)
      if (v != kPackedMissing) return true;
    return false;
  }
};

// One stored row. Real exports write 0.0 for the stages a kernel does not run (an AIV kernel's six
// AIC fields): about 5 of the 11 kept fields carry a value, so a row keeps two masks and only the
// nonzero values (in field order, from `first` in PipeStore's values). 8 bytes plus 4 a value,
// where the wide row is 48.
struct PipeRow {
  uint32_t first = 0;  // index of the row's first value
  uint32_t bits = 0;   // [0, 14): field has a value stored; [14, 28): field missing; [28, 30): OpState
};
static_assert(kStoredPipeCount <= 14, "PipeRow keeps a 14-bit mask per kind of field");
inline constexpr uint32_t kPipeMaskBits = 14;
inline constexpr uint32_t kPipeFieldMask = (1u << kPipeMaskBits) - 1;
inline constexpr uint32_t kPipeAllFields = (1u << kStoredPipeCount) - 1;

// Set bits of a row mask (14 bits), inline: __builtin_popcount is a call into libgcc on baseline
// x86-64 (no POPCNT), and every read of a stored value counts the fields before it.
inline uint32_t PipeMaskCount(uint32_t m) {
  m = m - ((m >> 1) & 0x5555u);
  m = (m & 0x3333u) + ((m >> 2) & 0x3333u);
  m = (m + (m >> 4)) & 0x0f0fu;
  return (m + (m >> 8)) & 0x1fu;
}

// A stored row as the wide row's accessors read it. Cheap to copy; valid while its store is
// unchanged.
class PipeView {
 public:
  PipeView(PipeRow row, const uint32_t* values) : bits_(row.bits), values_(values + row.first) {}
  bool Has(int field) const { return !((Missing() >> field) & 1u); }
  // Whether any pipeline field is present (a row may carry only the OP State).
  bool AnyPipe() const { return Missing() != kPipeAllFields; }
  OpState op_state() const { return static_cast<OpState>((bits_ >> (2 * kPipeMaskBits)) & 3u); }
  // Calls f(field, packed bits) for each present field in field order: a packed zero where no
  // value is stored. One pass over the row, where Packed() per field counts the mask each time.
  template <typename F>
  void ForEachPresent(F&& f) const {
    const uint32_t valued = bits_ & kPipeFieldMask;
    const uint32_t* next = values_;
    for (uint32_t present = ~Missing() & kPipeAllFields; present; present &= present - 1) {
      const int field = __builtin_ctz(present);  // bsf: an instruction on every x86-64
      f(field, (valued >> field) & 1u ? *next++ : 0u);
    }
  }
  // The field's packed bits: kPackedMissing, a packed zero, or the stored value.
  uint32_t Packed(int field) const {
    const uint32_t bit = 1u << field;
    if (Missing() & bit) return kPackedMissing;
    const uint32_t valued = bits_ & kPipeFieldMask;
    if (!(valued & bit)) return 0;  // mantissa 0, no decimals: +0.0, as every packed zero reads
    return values_[PipeMaskCount(valued & (bit - 1))];
  }

 private:
  uint32_t Missing() const { return (bits_ >> kPipeMaskBits) & kPipeFieldMask; }
  uint32_t bits_;
  const uint32_t* values_;
};

// A rank's pipeline rows: Event::pipe indexes them.
class PipeStore {
 public:
  // Stores `f` and returns its row index. A packed zero (any number of decimals) is not stored:
  // every one unpacks to +0.0. An overflow value is stored (its double may be -0.0).
  uint32_t Add(const PipelineFields& f) {
    PipeRow row;
    row.first = static_cast<uint32_t>(values_.size());
    uint32_t valued = 0, missing = 0;
    for (int i = 0; i < kStoredPipeCount; ++i) {
      const uint32_t v = f.packed[i];
      if (v == kPackedMissing) {
        missing |= 1u << i;
      } else if (!IsPackedZero(v)) {
        valued |= 1u << i;
        values_.push_back(v);
      }
    }
    row.bits = valued | (missing << kPipeMaskBits) | (uint32_t(f.op_state) << (2 * kPipeMaskBits));
    rows_.push_back(row);
    return static_cast<uint32_t>(rows_.size() - 1);
  }
  // Appends `from`'s rows, each stored value passed through `map` (an overflow index moves to
  // another table's vector); returns the index the first of them gets.
  template <typename Map>
  uint32_t Append(const PipeStore& from, Map map) {
    const uint32_t base = static_cast<uint32_t>(rows_.size());
    const uint32_t value_base = static_cast<uint32_t>(values_.size());
    for (PipeRow r : from.rows_) {
      r.first += value_base;
      rows_.push_back(r);
    }
    for (uint32_t v : from.values_) values_.push_back(map(v));
    return base;
  }
  PipeView View(uint32_t row) const { return PipeView(rows_[row], values_.data()); }
  // The row as a reader filled it (zeros as packed 0).
  PipelineFields Wide(uint32_t row) const {
    PipelineFields f;
    const PipeView v = View(row);
    for (int i = 0; i < kStoredPipeCount; ++i) f.packed[i] = v.Packed(i);
    f.op_state = v.op_state();
    return f;
  }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  // Room for `rows` rows of up to `values_per_row` values (capacity never written is not memory).
  void Reserve(size_t rows, size_t values_per_row) {
    rows_.reserve(rows);
    values_.reserve(rows * values_per_row);
  }
  void Clear() {  // keeps the capacity
    rows_.clear();
    values_.clear();
  }
  // The storage itself: for stage files and their checks, and to advise huge pages.
  std::vector<PipeRow>& rows() { return rows_; }
  const std::vector<PipeRow>& rows() const { return rows_; }
  std::vector<uint32_t>& values() { return values_; }
  const std::vector<uint32_t>& values() const { return values_; }

 private:
  std::vector<PipeRow> rows_;
  std::vector<uint32_t> values_;
};

}  // namespace optrace::analyze
