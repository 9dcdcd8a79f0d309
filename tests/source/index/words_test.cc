#include "source/index/words.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/plan/plan_words.h"

namespace optrace::source::index {
namespace {

using ::testing::ElementsAre;

TEST(WordsTest, CamelCaseSplitsAtLowerToUpper) {
  EXPECT_THAT(SplitWords("GmmDeqSwigluQuant"), ElementsAre("gmm", "deq", "swiglu", "quant"));
  EXPECT_THAT(SplitWords("initBuffer"), ElementsAre("init", "buffer"));
}

TEST(WordsTest, AcronymEndsBeforeTheNextCapitalisedWord) {
  EXPECT_THAT(SplitWords("DispatchFFNCombineW4A8Kernel"),
              ElementsAre("dispatch", "ffn", "combine", "w4", "a8", "kernel"));
  EXPECT_THAT(SplitWords("BGMVShrink"), ElementsAre("bgmv", "shrink"));
}

TEST(WordsTest, DigitsStayWithTheLettersBeforeThem) {
  EXPECT_THAT(SplitWords("FP8W8A16Matmul"), ElementsAre("fp8", "w8", "a16", "matmul"));
  EXPECT_THAT(SplitWords("bgmv_shrink_bfloat16_t"), ElementsAre("bgmv", "shrink", "bfloat16", "t"));
}

TEST(WordsTest, SnakeCaseConstantPrefixAndMemberUnderscoresAreNotWords) {
  EXPECT_THAT(SplitWords("SERVER_RANK_SIZE"), ElementsAre("server", "rank", "size"));
  EXPECT_THAT(SplitWords("kSendCore"), ElementsAre("send", "core"));
  EXPECT_THAT(SplitWords("aivId_"), ElementsAre("aiv", "id"));
  EXPECT_THAT(SplitWords("key"), ElementsAre("key"));  // a lowercase k is a letter of the word
}

TEST(WordsTest, KebabCaseJoinsWithDashes) {
  EXPECT_EQ(KebabCase("SendTokens"), "send-tokens");
  EXPECT_EQ(KebabCase("DispatchBetweenServer"), "dispatch-between-server");
  EXPECT_EQ(KebabCase(""), "");
}

TEST(WordsTest, LabelWordsDropFuncImplKernelSuffixes) {
  EXPECT_EQ(NameWord("GmmDeqSwigluQuant"), "gmm-deq-swiglu-quant");
  EXPECT_EQ(NameWord("ProcessImpl"), "process");
  EXPECT_EQ(NameWord("CopyInFunc"), "copy-in");
  EXPECT_EQ(NameWord("BGMVShrinkKernel"), "bgmv-shrink");
  EXPECT_THAT(NameWords("GDNFwdOKernel"), ElementsAre("gdn", "fwd", "o"));
  EXPECT_EQ(NameWord("Kernel"), "kernel");  // a name that is only a suffix keeps it
}

TEST(WordsTest, LongLabelIsCutAtAndOrKeepsItsLastWord) {
  // dispatch_ffn_combine_w4a8: CrossRankSyncAndlocalTokenPerExpertAllGatherAndGetSumPreRankV2.
  EXPECT_EQ(NameWord("CrossRankSyncAndlocalTokenPerExpertAllGatherAndGetSumPreRankV2"), "cross-rank-sync");
  EXPECT_EQ(NameWord("KernelAddRmsNormBias"), "kernel-add-rms-bias");
  EXPECT_EQ(NameWord("DispatchFFNCombineW4A8Kernel"), "dispatch-ffn-combine-w4");
}

TEST(WordsTest, SetUpNamesCarryNoHotSemantic) {
  // DispatchGmmCombineDecode: QuantInit sets up the quant buffers; it is not the quant phase.
  EXPECT_EQ(HotNameWord("QuantInit"), "");
  EXPECT_EQ(HotNameWord("InitSyncBuffer"), "");
  EXPECT_EQ(HotNameWord("QuantProcess"), "quant");
  EXPECT_EQ(HotNameWord("SetWaitTpStatusAndDisPatch"), "wait");
  EXPECT_TRUE(IsSetUpName("BuffInit"));
  EXPECT_FALSE(IsSetUpName("AllToAllSend"));
}

}  // namespace
}  // namespace optrace::source::index
