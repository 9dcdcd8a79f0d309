// EscapeMarkdownHtml: Markdown text made safe to render, names from the inputs kept as text.
//
//   std::ostringstream md;  ... write the document ...
//   out << EscapeMarkdownHtml(md.str());
//
// Every Markdown optrace writes (report.md, compare, the evidence report, env, explain) holds
// names from the user's files; a viewer that renders inline HTML would run them.
#pragma once

#include <string>
#include <string_view>

namespace optrace {

// `<`, `>` and `&` outside code spans as entities: operator names, keys and paths come from the
// capture, and a viewer that renders inline HTML would otherwise run them. Code spans are kept
// as they are (entities inside one would show literally), found by CommonMark's rules where
// they decide safety:
//  - outside a code span a backslash escapes the ASCII punctuation after it: "\`" is a literal
//    backtick, not an opener (taking it for one let `x\`<img onerror=...>` through as HTML);
//  - a run of N backticks opens a span closed by the next run of exactly N; no closer, and the
//    run is literal text.
// Where the rules depend on more than this scanner sees, it takes the run as literal and escapes
// what follows (at worst "&lt;" shows inside a code span): a span is only kept when its closer is
// on the same line and no `|` lies between (GFM splits table cells before it finds code spans).
std::string EscapeMarkdownHtml(std::string_view md);

}  // namespace optrace
