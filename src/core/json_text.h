// JSON documents as text that never throws: bytes that are not valid UTF-8 (a Latin-1 directory
// name, a label with raw bytes, raw input quoted in a message) become U+FFFD instead of aborting
// the writer (nlohmann's default is to throw type_error 316).
//
//   io.out << JsonText(doc) << "\n";        // indented by 2
//   std::string line = JsonText(doc, -1);   // one line
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace optrace {

// Any nlohmann document type (json, ordered_json: key order kept).
template <typename Json>
std::string JsonText(const Json& j, int indent = 2) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace optrace
