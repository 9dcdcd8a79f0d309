// The agent skills optrace ships: their names and descriptions, read from each SKILL.md's front
// matter, and the files of one skill.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bundle/embedded.h"

namespace optrace::bundle {

struct SkillInfo {
  std::string name;         // the folder name, which is the front matter's `name`
  std::string description;  // the front matter's `description` (when to use it, trigger words)
};

// Every shipped skill, in name order.
std::vector<SkillInfo> ListSkills();

// The files of skill `name` (keys relative to the skill folder's parent); empty if none.
FileTable SkillFilesOf(std::string_view name);

}  // namespace optrace::bundle
