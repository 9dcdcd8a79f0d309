// The writers' escaping, each against a rule stated independently of its code (issue 53.10-12):
// data[0] % 3: 0 = CsvCell read back by the CSV reader gives the text (after the one leading
// quote that keeps a formula text); 1 = ShellWord / ShellQuote read back by a POSIX word reader
// of this file's own give the text as one word; 2 = EscapeMarkdownHtml leaves no '<' or '>' that
// is not backslash-escaped outside code spans (checked on inputs without backticks, where there
// are none). A difference aborts.
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "core/csv_reader.h"
#include "core/csv_writer.h"
#include "core/markdown_escape.h"
#include "core/shell_quote.h"
#include "fuzz_harness.h"
#include "fuzz_target.h"

namespace {

[[noreturn]] void Mismatch(const char* what, const std::string& text) {
  std::fprintf(stderr, "fuzz_escaping: %s (input of %zu bytes)\n", what, text.size());
  std::abort();
}

void CheckCsv(const std::string& text) {
  const std::string cell = optrace::CsvCell(text);
  // After a header (a BOM only counts at the start of the file), a record of the cell and "x".
  optrace::CsvReader r = optrace::CsvReader::FromString("h,h\n" + cell + ",x\n", "fuzz");
  optrace::CsvRecord rec;
  auto more = r.Next(rec);
  if (more.ok() && *more) more = r.Next(rec);
  if (!more.ok() || !*more || rec.size() != 2) Mismatch("a CsvCell that does not read back as one field", text);
  std::string field(rec.Field(0));
  if (!field.empty() && field.front() == '\'' && (text.empty() || field.size() == text.size() + 1))
    field.erase(0, 1);  // the formula guard
  if (field != text) Mismatch("a CsvCell that reads back as other text", text);
}

// POSIX shell word rules for what ShellWord writes: bare characters, '...' (no escapes inside),
// and \c outside quotes. nullopt when the text is not one word (an unquoted blank or metachar).
std::optional<std::string> ReadShellWord(const std::string& w) {
  std::string out;
  size_t i = 0;
  while (i < w.size()) {
    const char c = w[i];
    if (c == '\'') {
      size_t close = w.find('\'', i + 1);
      if (close == std::string::npos) return std::nullopt;
      out.append(w, i + 1, close - i - 1);
      i = close + 1;
    } else if (c == '\\') {
      if (i + 1 >= w.size()) return std::nullopt;
      out += w[i + 1];
      i += 2;
    } else {
      static const std::string kSpecial = " \t\n|&;<>()$`\"*?[]#~{}!";
      if (kSpecial.find(c) != std::string::npos) return std::nullopt;
      out += c;
      ++i;
    }
  }
  return out;
}

void CheckShell(const std::string& text) {
  for (const std::string& w : {optrace::ShellQuote(text), optrace::ShellWord(text)}) {
    std::optional<std::string> back = ReadShellWord(w);
    if (!back) Mismatch("a shell word that is not one word", text);
    if (*back != text) Mismatch("a shell word that reads back as other text", text);
  }
}

void CheckMarkdown(const std::string& text) {
  const std::string md = optrace::EscapeMarkdownHtml(text);
  if (text.find('`') != std::string::npos) return;  // only the crash checks for code spans
  for (size_t i = 0; i < md.size(); ++i) {
    if (md[i] != '<' && md[i] != '>') continue;
    size_t slashes = 0;
    while (slashes < i && md[i - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) Mismatch("an unescaped angle bracket outside code spans", text);
  }
}

}  // namespace

OPTRACE_FUZZ_TARGET(fuzz_escaping) {
  optrace::fuzz::Selected in = optrace::fuzz::Select(data, size, 3);
  switch (in.selector) {
    case 0: CheckCsv(in.payload); break;
    case 1: CheckShell(in.payload); break;
    default: CheckMarkdown(in.payload); break;
  }
  return 0;
}
