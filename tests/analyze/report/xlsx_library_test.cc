#include "analyze/report/xlsx_library.h"

#include <gtest/gtest.h>

namespace optrace::analyze::report {
namespace {

TEST(XlsxLibraryTest, TheBuildsLibraryLoadsWithEveryEntryPoint) {
  Result<const XlsxLibrary*> lib = LoadXlsxLibrary();
  ASSERT_TRUE(lib.ok()) << lib.status().message();
  const XlsxLibrary& l = **lib;
  EXPECT_NE(l.workbook_new_opt, nullptr);
  EXPECT_NE(l.workbook_close, nullptr);
  EXPECT_NE(l.worksheet_autofilter, nullptr);
  EXPECT_STREQ(l.lxw_strerror(LXW_NO_ERROR), "No error.");  // a call through the table works
}

TEST(XlsxLibraryTest, LoadingTwiceGivesTheSameTable) {
  Result<const XlsxLibrary*> a = LoadXlsxLibrary();
  Result<const XlsxLibrary*> b = LoadXlsxLibrary();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(XlsxLibraryTest, AMissingLibraryIsAnErrorNamingItAndThePackage) {
  Result<XlsxLibrary> lib = LoadXlsxLibraryFrom("liboptrace_no_such_xlsxwriter.so.4");
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.status().message().find("cannot load liboptrace_no_such_xlsxwriter.so.4"), std::string::npos)
      << lib.status().message();
  EXPECT_NE(lib.status().message().find("apt-get install libxlsxwriter4"), std::string::npos);
  EXPECT_NE(lib.status().message().find("the fast mode writes no workbook"), std::string::npos);
}

TEST(XlsxLibraryTest, ALibraryWithoutTheEntryPointsIsAnErrorNamingTheFirstMissing) {
  Result<XlsxLibrary> lib = LoadXlsxLibraryFrom("libm.so.6");  // glibc's: on every machine optrace runs on
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.status().message().find("libm.so.6 has no workbook_new_opt"), std::string::npos)
      << lib.status().message();
}

}  // namespace
}  // namespace optrace::analyze::report
