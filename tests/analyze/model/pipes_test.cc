#include "analyze/model/pipes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "analyze/model/events.h"

namespace optrace::analyze {
namespace {

int Field(Pipe p) { return StoredPipeIndex(p); }

TEST(PipeStoreTest, StoresOnlyNonzeroValuesAndReadsEveryFieldBack) {
  RankTable t;
  PipelineFields f;
  f.packed[Field(Pipe::kAivTime)] = PackDecimalText("28.711", t.pipe_overflow);
  f.packed[Field(Pipe::kAivVecTime)] = PackDecimalText("15.954", t.pipe_overflow);
  f.packed[Field(Pipe::kAicMacTime)] = PackDecimalText("0.0", t.pipe_overflow);  // a stage the kernel does not run
  f.packed[Field(Pipe::kAicMte2Time)] = PackDecimalText("0", t.pipe_overflow);
  f.op_state = OpState::kDynamic;
  const uint32_t row = t.pipes.Add(f);
  EXPECT_EQ(t.pipes.values().size(), 2u);  // the two nonzero fields
  const PipeView v = t.pipes.View(row);
  for (int i = 0; i < kStoredPipeCount; ++i) {
    EXPECT_EQ(v.Has(i), f.packed[i] != kPackedMissing) << i;
    const double want = UnpackDecimal(f.packed[i], t.pipe_overflow), got = t.PipeValue(v, i);
    EXPECT_TRUE(want == got || (std::isnan(want) && std::isnan(got))) << i;
  }
  EXPECT_DOUBLE_EQ(t.PipeValue(v, Pipe::kAivVecTime), 15.954);
  EXPECT_EQ(t.PipeValue(v, Pipe::kAicMacTime), 0.0);
  EXPECT_TRUE(std::isnan(t.PipeValue(v, Pipe::kAicScalarTime)));
  EXPECT_EQ(v.op_state(), OpState::kDynamic);
  EXPECT_TRUE(v.AnyPipe());
}

TEST(PipeStoreTest, RowWithOnlyAnOpStateHasNoPipelineData) {
  PipeStore s;
  PipelineFields f;
  f.op_state = OpState::kStatic;
  const PipeView v = s.View(s.Add(f));
  EXPECT_FALSE(v.AnyPipe());
  EXPECT_EQ(v.op_state(), OpState::kStatic);
  for (int i = 0; i < kStoredPipeCount; ++i) EXPECT_EQ(v.Packed(i), kPackedMissing);
}

TEST(PipeStoreTest, NegativeZeroKeepsItsSign) {
  // -0.0 does not pack (negative): it is an overflow value, stored, not read back as +0.0.
  RankTable t;
  PipelineFields f;
  f.packed[0] = PackDecimalText("-0.0", t.pipe_overflow);
  const PipeView v = t.pipes.View(t.pipes.Add(f));
  const double got = t.PipeValue(v, 0);
  EXPECT_EQ(got, 0.0);
  EXPECT_TRUE(std::signbit(got));
}

TEST(PipeStoreTest, WideGivesBackTheRowAsAdded) {
  std::vector<double> overflow;
  PipeStore s;
  PipelineFields a, b;
  a.packed[1] = PackDecimalText("7.5", overflow);
  a.packed[4] = PackDecimalText("-3.25", overflow);  // overflow
  a.packed[6] = PackDecimalText("0.000", overflow);
  b.packed[10] = PackDecimalText("12", overflow);
  s.Add(a);
  const uint32_t rb = s.Add(b);
  for (int i = 0; i < kStoredPipeCount; ++i) {
    const uint32_t want = IsPackedZero(a.packed[i]) ? 0u : a.packed[i];
    EXPECT_EQ(s.Wide(0).packed[i], want) << i;
    EXPECT_EQ(s.Wide(rb).packed[i], b.packed[i]) << i;
  }
}

TEST(PipeStoreTest, AppendMovesRowsAndRemapsTheirValues) {
  std::vector<double> from_overflow, to_overflow{1.5, 2.5};
  PipeStore from, to;
  PipelineFields x;
  x.packed[2] = PackDecimalText("-4.75", from_overflow);  // overflow index 0 in `from`
  x.packed[3] = PackDecimalText("8.125", from_overflow);
  to.Add(x);  // something already there: the appended rows' values start after its
  const uint32_t row = from.Add(x);
  const uint32_t base = to.Append(from, [&](uint32_t v) { return RepackDecimal(v, from_overflow, to_overflow); });
  EXPECT_EQ(base, 1u);
  const PipeView v = to.View(base + row);
  EXPECT_EQ(UnpackDecimal(v.Packed(2), to_overflow), -4.75);
  EXPECT_EQ(UnpackDecimal(v.Packed(3), to_overflow), 8.125);
  EXPECT_EQ(to_overflow.size(), 3u);
}

TEST(PipeViewTest, ForEachPresentVisitsThePresentFieldsWithWhatPackedReads) {
  // Every pattern of missing / zero / valued over the kept fields (3^11 rows).
  RankTable t;
  const uint32_t value = PackDecimalText("1.5", t.pipe_overflow);
  int rows = 1;
  for (int i = 0; i < kStoredPipeCount; ++i) rows *= 3;
  for (int code = 0; code < rows; ++code) {
    PipelineFields f;
    for (int i = 0, c = code; i < kStoredPipeCount; ++i, c /= 3)
      f.packed[i] = c % 3 == 0 ? kPackedMissing : c % 3 == 1 ? 0u : value + uint32_t(i);
    const PipeView v = t.pipes.View(t.pipes.Add(f));
    std::vector<std::pair<int, uint32_t>> seen, want;
    v.ForEachPresent([&](int field, uint32_t packed) { seen.emplace_back(field, packed); });
    for (int i = 0; i < kStoredPipeCount; ++i)
      if (v.Has(i)) want.emplace_back(i, v.Packed(i));
    ASSERT_EQ(seen, want) << code;
  }
}

TEST(PipeMaskCountTest, CountsTheSetBitsOfEveryRowMask) {
  for (uint32_t m = 0; m <= kPipeFieldMask; ++m) {
    uint32_t n = 0;
    for (uint32_t x = m; x; x &= x - 1) ++n;
    ASSERT_EQ(PipeMaskCount(m), n) << m;
  }
}

}  // namespace
}  // namespace optrace::analyze
