// UriPath: a file path as the path of a URI reference (RFC 3986).
//
//   "file://" + UriPath("/runs/a b#1/x.db")   // "file:///runs/a%20b%231/x.db"
//
// Every byte but the unreserved characters and '/' is percent-encoded, so a space, '#', '?', '%'
// or a non-ASCII byte in a path stays one valid URI (SARIF locations, SQLite "file:" URIs).
#pragma once

#include <string>
#include <string_view>

namespace optrace {

std::string UriPath(std::string_view path);

}  // namespace optrace
