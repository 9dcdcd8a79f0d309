#include "bundle/skills.h"

namespace optrace::bundle {
namespace {

// The value of `key: value` in the front matter (between the first two "---" lines).
std::string FrontMatterValue(std::string_view text, std::string_view key) {
  if (!text.starts_with("---\n")) return {};
  const size_t end = text.find("\n---", 3);
  std::string_view head = text.substr(4, end == std::string_view::npos ? 0 : end - 3);
  size_t pos = 0;
  while (pos < head.size()) {
    size_t eol = head.find('\n', pos);
    if (eol == std::string_view::npos) eol = head.size();
    std::string_view line = head.substr(pos, eol - pos);
    if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ':') {
      std::string_view value = line.substr(key.size() + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      return std::string(value);
    }
    pos = eol + 1;
  }
  return {};
}

}  // namespace

std::vector<SkillInfo> ListSkills() {
  std::vector<SkillInfo> skills;
  for (const auto& [path, text] : SkillFiles()) {
    const size_t slash = path.find('/');
    if (slash == std::string::npos || path.substr(slash + 1) != "SKILL.md") continue;
    skills.push_back({path.substr(0, slash), FrontMatterValue(text, "description")});
  }
  return skills;
}

FileTable SkillFilesOf(std::string_view name) {
  FileTable files;
  for (const auto& entry : SkillFiles()) {
    if (entry.first.size() > name.size() && entry.first.starts_with(name) && entry.first[name.size()] == '/') {
      files.push_back(entry);
    }
  }
  return files;
}

}  // namespace optrace::bundle
