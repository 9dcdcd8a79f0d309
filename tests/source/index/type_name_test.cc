#include "source/index/type_name.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/index/index_test_util.h"

namespace optrace::source::index {
namespace {

// Parses the whole text as one type.
TypeName Parse(const std::string& text) {
  SingleFile f(text);
  return ParseTypeName(f.stream(), 0, f.stream().size());
}

TEST(TypeNameTest, QualifiedTemplateSplitsIntoPartsAndArguments) {
  TypeName t = Parse("typename Gemm::Block::BlockMmad<DispatchPolicy, GemmShape<128, 256, 64>, void>");
  ASSERT_EQ(t.parts.size(), 3u);
  EXPECT_EQ(t.Last(), "BlockMmad");
  EXPECT_EQ(t.Qualifier(), "Gemm::Block");
  EXPECT_TRUE(t.parts[2].templated);
  ASSERT_EQ(t.parts[2].args.size(), 3u);
  EXPECT_EQ(t.parts[2].args[0].Str(), "DispatchPolicy");
  EXPECT_EQ(t.parts[2].args[1].Last(), "GemmShape");
  ASSERT_EQ(t.parts[2].args[1].parts[0].args.size(), 3u);
  EXPECT_TRUE(t.parts[2].args[1].parts[0].args[0].IsValue());
  EXPECT_EQ(t.parts[2].args[1].parts[0].args[0].value, "128");
  EXPECT_EQ(t.Str(), "Gemm::Block::BlockMmad<DispatchPolicy, GemmShape<128, 256, 64>, void>");
}

TEST(TypeNameTest, CvQualifiersReferencesAndTypenameAreDropped) {
  TypeName t = Parse("typename BlockMmad::Params const &");
  EXPECT_EQ(t.Str(), "BlockMmad::Params");
  EXPECT_FALSE(t.pointer);
}

TEST(TypeNameTest, PointerIsRecordedButNotPartOfTheName) {
  TypeName t = Parse("__gm__ ElementA *");
  EXPECT_EQ(t.Str(), "ElementA");
  EXPECT_TRUE(t.pointer);
}

TEST(TypeNameTest, NumbersAndExpressionsAreValues) {
  TypeName swizzle = Parse("Gemm::Block::GemmIdentityBlockSwizzle<9, 1>");
  ASSERT_EQ(swizzle.parts.back().args.size(), 2u);
  EXPECT_TRUE(swizzle.parts.back().args[0].IsValue());
  EXPECT_EQ(swizzle.parts.back().args[1].value, "1");
  EXPECT_EQ(Parse("sizeof(ElementA)").value, "sizeof(ElementA)");
  EXPECT_TRUE(Parse("true").IsValue());
  EXPECT_EQ(Parse("a + b").value, "a + b");
  // A constant written by name is a name: only the index can tell it is not a type.
  EXPECT_FALSE(Parse("EpilogueAtlasA2W4A8PostPerTokenDequantSwigluQuant<ubStages>").parts.back().args[0].IsValue());
}

TEST(TypeNameTest, MultiWordFundamentalTypeIsOnePart) {
  TypeName t = Parse("unsigned int");
  ASSERT_EQ(t.parts.size(), 1u);
  EXPECT_EQ(t.Last(), "unsigned int");
}

TEST(TypeNameTest, LeadingColonsMakeAGlobalName) {
  TypeName t = Parse("::AscendC::GlobalTensor<int64_t>");
  EXPECT_TRUE(t.global);
  EXPECT_EQ(t.Str(), "::AscendC::GlobalTensor<int64_t>");
}

TEST(TypeNameTest, MemberTypeOfATemplateKeepsItsParts) {
  TypeName t = Parse("typename std::conditional<TB_, layout::ColumnMajor, layout::RowMajor>::type");
  ASSERT_EQ(t.parts.size(), 3u);
  EXPECT_EQ(t.Last(), "type");
  EXPECT_EQ(t.Str(), "std::conditional<TB_, layout::ColumnMajor, layout::RowMajor>::type");
  EXPECT_EQ(Parse("typename Catlass::template Tile<int>").Str(), "Catlass::Tile<int>");
}

TEST(TypeNameTest, EmptyArgumentListIsStillTemplated) {
  TypeName t = Parse("Arch::Resource<>");
  EXPECT_TRUE(t.parts.back().templated);
  EXPECT_TRUE(t.parts.back().args.empty());
  EXPECT_EQ(t.Str(), "Arch::Resource<>");
}

TEST(TypeNameTest, TemplateArgumentsSplitAtTopLevelCommasOnly) {
  SingleFile f("std::conditional_t<std::is_same_v<ElementA, AscendC::int4b_t>, int8_t, ElementA>");
  const TokenStream& s = f.stream();
  size_t lt = Find(s, "<");
  std::vector<TypeName> args = ParseTemplateArgs(s, lt, s.MatchAngle(lt));
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].Str(), "std::is_same_v<ElementA, AscendC::int4b_t>");
  EXPECT_EQ(args[1].Str(), "int8_t");
  EXPECT_EQ(args[2].Str(), "ElementA");
}

TEST(TypeNameTest, AttributeMacrosAreNotSpecifierKeywords) {
  EXPECT_TRUE(IsSpecifierKeyword("__aicore__"));
  EXPECT_TRUE(IsSpecifierKeyword("constexpr"));
  EXPECT_FALSE(IsSpecifierKeyword("CATLASS_DEVICE"));
  EXPECT_TRUE(IsStatementKeyword("return"));
  EXPECT_TRUE(IsStatementKeyword("static_cast"));
  EXPECT_FALSE(IsStatementKeyword("Process"));
}

}  // namespace
}  // namespace optrace::source::index
