// TRACE_POINT: compile-time ids equal to point_id.h's FNV-1a scheme.
#include "optrace/trace_point.h"

#include <gtest/gtest.h>

#include <cstring>

#include "optrace/point_id.h"

namespace optrace {
namespace {

// Forced through a template argument: usable wherever a constant is.
template <uint32_t kId>
struct Constant {
  static constexpr uint32_t value = kId;
};
static_assert(Constant<TRACE_POINT("processing", "B")>::value == PointId(LabelId("processing", 10), false),
              "TRACE_POINT is a compile-time constant");

uint32_t RuntimePointId(const char* label, bool is_end) {
  return PointId(LabelId(label, static_cast<uint32_t>(std::strlen(label))), is_end);
}

TEST(TracePointTest, BeginIdIsLabelIdShiftedLeft) {
  EXPECT_EQ(TRACE_POINT("dispatch send", "B"), RuntimePointId("dispatch send", false));
  EXPECT_EQ(TRACE_POINT("dispatch send", "B"), LabelId("dispatch send", 13) << 1);
}

TEST(TracePointTest, EndIdSetsTheLowBit) {
  EXPECT_EQ(TRACE_POINT("dispatch send", "E"), TRACE_POINT("dispatch send", "B") | 1u);
  EXPECT_TRUE(IsEndPoint(TRACE_POINT("dispatch send", "E")));
  EXPECT_FALSE(IsEndPoint(TRACE_POINT("dispatch send", "B")));
}

TEST(TracePointTest, MatchesKnownFnv1aValues) {
  // FNV-1a 32-bit of "a" is 0xe40c292c; of "" the offset basis 0x811c9dc5 (masked to 31 bits).
  EXPECT_EQ(LabelIdOfPoint(TRACE_POINT("a", "B")), 0xe40c292cu & 0x7fffffffu);
  EXPECT_EQ(LabelIdOfPoint(TRACE_POINT("", "B")), 0x811c9dc5u & 0x7fffffffu);
}

TEST(TracePointTest, DistinctLabelsGiveDistinctIds) {
  EXPECT_NE(TRACE_POINT("combine send", "B"), TRACE_POINT("combine recv", "B"));
  EXPECT_NE(TRACE_POINT("gemm aic", "B"), TRACE_POINT("gemm aiv", "B"));
}

TEST(TracePointTest, LabelBytesAreHashedExactly) {
  // Whitespace and case are part of the label.
  EXPECT_NE(TRACE_POINT("gemm  aic", "B"), TRACE_POINT("gemm aic", "B"));
  EXPECT_NE(TRACE_POINT("Gemm aic", "B"), TRACE_POINT("gemm aic", "B"));
  EXPECT_EQ(TRACE_POINT("gemm aic", "B"), RuntimePointId("gemm aic", false));
}

}  // namespace
}  // namespace optrace
