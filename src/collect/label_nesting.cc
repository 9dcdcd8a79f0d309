#include "collect/label_nesting.h"

#include <fmt/format.h>

namespace optrace::collect {
namespace {

// "a b c" -> "a b"; "" for a one-word label.
std::string_view ParentWords(std::string_view label) {
  size_t space = label.rfind(' ');
  return space == std::string_view::npos ? std::string_view() : label.substr(0, space);
}

// `ancestor` is `label`'s word prefix: "a" and "a b" of "a b c".
bool IsWordPrefix(std::string_view ancestor, std::string_view label) {
  return label.size() > ancestor.size() && label.starts_with(ancestor) && label[ancestor.size()] == ' ';
}

}  // namespace

LabelNestingCheck::LabelNestingCheck(const PointMap& map) {
  for (const auto& [id, p] : map.points) names_.insert(p.label);
}

bool LabelNestingCheck::Checkable(uint32_t label, const std::vector<LabelInfo>& labels) {
  if (label >= checkable_.size()) checkable_.resize(labels.size(), -1);
  if (checkable_[label] < 0) {
    std::string_view parent = ParentWords(labels[label].name);
    checkable_[label] = !parent.empty() && names_.count(std::string(parent)) ? 1 : 0;
  }
  return checkable_[label] == 1;
}

void LabelNestingCheck::AddCore(std::span<const Interval> ivs, const std::vector<int64_t>& parents,
                                const std::vector<LabelInfo>& labels) {
  for (size_t i = 0; i < ivs.size() && i < parents.size(); ++i) {
    if (!Checkable(ivs[i].label, labels)) continue;
    ++checked_;
    const std::string& name = labels[ivs[i].label].name;
    std::string_view inside =
        parents[i] < 0 ? std::string_view() : std::string_view(labels[ivs[static_cast<size_t>(parents[i])].label].name);
    if (!inside.empty() && IsWordPrefix(inside, name)) continue;
    ++contradicted_;
    if (example_.empty())
      example_ = inside.empty() ? fmt::format("'{}' outside every range", name)
                                : fmt::format("'{}' inside '{}'", name, inside);
  }
}

}  // namespace optrace::collect
