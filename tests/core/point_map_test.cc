#include "core/point_map.h"

#include <gtest/gtest.h>

#include "optrace/point_id.h"

namespace optrace {
namespace {

TEST(PointMapTest, ParsesLegacySchema) {
  auto map = ParsePointMap(R"({"points": {"1": {"label": "processing", "event_type": "B",
      "file": "op_kernel/a.h", "line": 12, "event_id": 1},
      "2": {"label": "processing", "event_type": "E", "file": "op_kernel/a.h", "line": 40, "event_id": 1}}})",
                           "point_map.json");
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_EQ(map->scheme, PointIdScheme::kLegacySequential);
  ASSERT_NE(map->Find(2), nullptr);
  EXPECT_EQ(map->Find(2)->event_type, 'E');
  EXPECT_EQ(map->Find(2)->line, 40);
  EXPECT_EQ(map->Find(3), nullptr);
}

TEST(PointMapTest, SerializeThenParseRoundTrips) {
  PointMap map;
  map.source_root = "/src/op";
  uint32_t label = LabelId("processing", 10);
  map.points[PointId(label, false)] = {PointId(label, false), "processing", 'B', "k.cpp", 3, 5, 0};
  map.points[PointId(label, true)] = {PointId(label, true), "processing", 'E', "k.cpp", 9, 5, 0};
  auto back = ParsePointMap(SerializePointMap(map), "mem");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->scheme, PointIdScheme::kFnv1a31);
  EXPECT_EQ(back->source_root, "/src/op");
  ASSERT_EQ(back->points.size(), 2u);
  EXPECT_EQ(back->Find(PointId(label, true))->line, 9);
  EXPECT_EQ(back->Find(PointId(label, false))->column, 5);
}

TEST(PointMapTest, MalformedJsonNamesFileAndByteOffset) {
  auto map = ParsePointMap("{\"points\": {\"1\": ", "maps/pm.json");
  ASSERT_FALSE(map.ok());
  EXPECT_EQ(map.status().code(), StatusCode::kBadInput);
  EXPECT_NE(map.status().message().find("maps/pm.json: not valid JSON at byte"), std::string::npos)
      << map.status().message();
}

TEST(PointMapTest, JsonWithoutPointsIsRejected) {
  auto map = ParsePointMap(R"({"traceEvents": []})", "trace.json");
  ASSERT_FALSE(map.ok());
  EXPECT_NE(map.status().message().find("no \"points\" object"), std::string::npos);
}

TEST(PointMapTest, BadEventTypeIsRejected) {
  auto map = ParsePointMap(R"({"points": {"1": {"label": "x", "event_type": "X"}}})", "pm.json");
  ASSERT_FALSE(map.ok());
  EXPECT_NE(map.status().message().find("event_type \"X\""), std::string::npos);
}

TEST(PointMapTest, PointSetFingerprintDependsOnTheIdsOnly) {
  PointMap a, b;
  a.points[4] = PointInfo{4, "send", 'B', "a.cc", 3};
  a.points[5] = PointInfo{5, "send", 'E', "a.cc", 9};
  b.points[5] = PointInfo{5, "send", 'E', "other.cc", 1};  // other files, lines, insertion order
  b.points[4] = PointInfo{4, "send", 'B', "other.cc", 2};
  EXPECT_EQ(PointSetFingerprint(a), PointSetFingerprint(b));
  EXPECT_NE(PointSetFingerprint(a), 0u) << "0 means unknown in a slot";
  b.points[6] = PointInfo{6, "recv", 'B', "other.cc", 3};
  EXPECT_NE(PointSetFingerprint(a), PointSetFingerprint(b)) << "one more point is another point set";
}

}  // namespace
}  // namespace optrace
