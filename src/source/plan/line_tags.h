// Internal to the plan room: the tags instrument writes after every line it adds or rewrites
// (`// optrace:auto:<tag>`, `// optrace:orig:<tag>:<base64>`) and the text they hash, shared by the
// edits (instrument.cc) and revert (line_tags.cc: RevertText, HasInstrumentation in instrument.h).
#pragma once

#include <string>
#include <string_view>

namespace optrace::source {

std::string Base64(std::string_view in);
// The code with whitespace outside literals dropped: a formatter that re-indents a line or
// changes the spaces before its comment leaves the tag valid.
std::string Normalized(std::string_view code);
// Six hex digits of the FNV-1a hash of normalized code.
std::string LineTag(std::string_view code);

}  // namespace optrace::source
