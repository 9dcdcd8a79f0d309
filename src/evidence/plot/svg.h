// A minimal SVG 1.1 writer for the evidence plots: shapes and text, escaped, nothing else.
//
//   SvgDocument svg(640, 360);
//   svg.Line(10, 10, 100, 10, "#333");
//   svg.Text(10, 30, "rank 0", {.anchor = "start"});
//   std::string file = svg.Finish();
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace optrace::evidence {

struct SvgTextStyle {
  std::string_view anchor = "middle";  // start | middle | end
  int size = 11;
  std::string_view fill = "#222";
  double rotate = 0;  // degrees about (x, y)
};

class SvgDocument {
 public:
  SvgDocument(double width, double height);

  void Line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1);
  void Rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke);
  void Polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, double width = 1.5);
  void Circle(double cx, double cy, double r, std::string_view fill);
  void Text(double x, double y, std::string_view text, const SvgTextStyle& style = {});
  std::string Finish();

 private:
  std::string body_;
  double width_, height_;
};

// Escapes &, <, >, " for text and attribute values.
std::string SvgEscape(std::string_view text);

}  // namespace optrace::evidence
