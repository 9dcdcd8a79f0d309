#include "explain/explain_html.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace optrace::explain {
namespace {

nlohmann::ordered_json Sample() {
  std::ifstream in(std::string(OPTRACE_TEST_DATA_DIR) + "/explain/sample_explain.json");
  return nlohmann::ordered_json::parse(in);
}

std::string Html(const nlohmann::ordered_json& doc) {
  std::ostringstream out;
  WriteExplainHtml(doc, out);
  return out.str();
}

// The text of the data element: from its '>' to the next "</script>".
std::string DataText(const std::string& html) {
  size_t tag = html.find("<script id=\"optrace-explain-data\" type=\"application/json\">");
  if (tag == std::string::npos) return "";
  size_t begin = html.find('>', tag) + 1;
  return html.substr(begin, html.find("</script>", begin) - begin);
}

TEST(ExplainHtmlTest, TemplateHasExactlyOneDataMarkerInsideTheDataElement) {
  std::string_view tpl = ExplainTemplateHtml();
  size_t at = tpl.find(kExplainDataMarker);
  ASSERT_NE(at, std::string_view::npos);
  EXPECT_EQ(tpl.find(kExplainDataMarker, at + 1), std::string_view::npos);
  EXPECT_EQ(tpl.substr(0, at).rfind("<script id=\"optrace-explain-data\" type=\"application/json\">") +
                std::string_view("<script id=\"optrace-explain-data\" type=\"application/json\">").size(),
            at);
}

TEST(ExplainHtmlTest, MarkerIsReplacedByTheDocument) {
  nlohmann::ordered_json doc = Sample();
  std::string html = Html(doc);
  EXPECT_EQ(html.find(kExplainDataMarker), std::string::npos);
  EXPECT_EQ(nlohmann::ordered_json::parse(DataText(html)), doc);
  // Everything around the data is the template, unchanged.
  std::string_view tpl = ExplainTemplateHtml();
  size_t at = tpl.find(kExplainDataMarker);
  EXPECT_EQ(html.substr(0, at), tpl.substr(0, at));
  EXPECT_TRUE(html.ends_with(tpl.substr(at + kExplainDataMarker.size())));
}

TEST(ExplainHtmlTest, ScriptEndingTextInALabelStaysInsideTheDataElement) {
  nlohmann::ordered_json doc = Sample();
  const std::string evil = "</script><script>alert(1)</script> & <!--";
  doc["phases"][0]["phase"] = evil;
  doc["findings"][0]["summary"] = evil;
  std::string html = Html(doc);
  std::string data = DataText(html);
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_EQ(data.find('>'), std::string::npos);
  EXPECT_EQ(data.find('&'), std::string::npos);
  nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(data);
  EXPECT_EQ(parsed["phases"][0]["phase"], evil);
  EXPECT_EQ(parsed["findings"][0]["summary"], evil);
  EXPECT_EQ(html.find("<script>alert(1)"), std::string::npos);
}

TEST(ExplainHtmlTest, InvalidUtf8InANameBecomesAReplacementCharacter) {
  nlohmann::ordered_json doc = Sample();
  doc["phases"][0]["slowest_core"] = std::string("AIV \xff 3");
  std::string data = DataText(Html(doc));
  EXPECT_EQ(nlohmann::ordered_json::parse(data)["phases"][0]["slowest_core"], "AIV \xEF\xBF\xBD 3");
}

TEST(ExplainHtmlTest, PageIsSelfContained) {
  std::string html = Html(Sample());
  for (const char* remote : {"src=\"http", "href=\"http", "<link", "@import", "url(http", "fetch(", "XMLHttpRequest"})
    EXPECT_EQ(html.find(remote), std::string::npos) << remote;
}

TEST(ExplainHtmlTest, SampleFollowsTheSchema) {
  nlohmann::ordered_json doc = Sample();
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "optrace.explain");
  EXPECT_EQ(doc["ranks"].size(), 2u);
  EXPECT_EQ(doc["core_groups"].size(), 3u);
  EXPECT_EQ(doc["overlaps"].size(), 2u);
  EXPECT_EQ(doc["critical"].size(), 2u);
  EXPECT_EQ(doc["findings"].size(), 3u);
  for (const auto& p : doc["phases"]) {
    EXPECT_EQ(p["rank_union_us"].size(), 2u) << p["phase"];
    EXPECT_LE(p["union_us"].get<double>(), doc["kernel_wall_us"].get<double>()) << p["phase"];
  }
}

}  // namespace
}  // namespace optrace::explain
