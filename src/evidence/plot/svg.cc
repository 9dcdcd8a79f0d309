#include "evidence/plot/svg.h"

#include <fmt/format.h>

namespace optrace::evidence {

std::string SvgEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

SvgDocument::SvgDocument(double width, double height) : width_(width), height_(height) {}

void SvgDocument::Line(double x1, double y1, double x2, double y2, std::string_view stroke, double width) {
  body_ += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{}\"/>\n",
                       x1, y1, x2, y2, SvgEscape(stroke), width);
}

void SvgDocument::Rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke) {
  body_ += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" stroke=\"{}\"/>\n",
                       x, y, w, h, SvgEscape(fill), SvgEscape(stroke));
}

void SvgDocument::Polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, double width) {
  std::string pts;
  for (const auto& [x, y] : points) pts += fmt::format("{}{:.1f},{:.1f}", pts.empty() ? "" : " ", x, y);
  body_ += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"/>\n", pts,
                       SvgEscape(stroke), width);
}

void SvgDocument::Circle(double cx, double cy, double r, std::string_view fill) {
  body_ += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"/>\n", cx, cy, r, SvgEscape(fill));
}

void SvgDocument::Text(double x, double y, std::string_view text, const SvgTextStyle& s) {
  std::string rot = s.rotate != 0 ? fmt::format(" transform=\"rotate({} {:.1f} {:.1f})\"", s.rotate, x, y) : "";
  body_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" font-size=\"{}\" fill=\"{}\"{}>{}</text>\n",
                       x, y, SvgEscape(s.anchor), s.size, SvgEscape(s.fill), rot, SvgEscape(text));
}

std::string SvgDocument::Finish() {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{2}</svg>\n",
      width_, height_, body_);
}

}  // namespace optrace::evidence
