// Words for a POSIX shell: text optrace prints or writes for a shell to run (a compile command to
// rerun by hand, a hook's default binary) means exactly the text it came from.
//
//   ShellQuote("a b'c")   -> 'a b'\''c'          always single-quoted
//   ShellWord("-I/x/inc") -> -I/x/inc            bare when no character means anything to a shell
//   ShellWord("x`id`.cc") -> 'x`id`.cc'
#pragma once

#include <string>
#include <string_view>

namespace optrace {

std::string ShellQuote(std::string_view s);

// Bare only when every character is one no shell gives a meaning to (letters, digits,
// - _ . / = : , +); else ShellQuote, so a name with ` > ; | & * ? ~ ( ) or a newline runs nothing
// when pasted (issue 53.12).
std::string ShellWord(std::string_view s);

}  // namespace optrace
