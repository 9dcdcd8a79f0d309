// Words of code names, for labels and role names: CamelCase, snake_case and digits split into
// lowercase words ("GmmDeqSwigluQuant" -> gmm deq swiglu quant, "FP8W8A16Matmul" -> fp8 w8
// a16 matmul, "kSendCore" -> send core, "SERVER_RANK_SIZE" -> server rank size).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace optrace::source::index {

std::vector<std::string> SplitWords(std::string_view name);
// The words joined with '-': "SendTokens" -> "send-tokens".
std::string KebabCase(std::string_view name);

}  // namespace optrace::source::index
