// Blocks of a lexed file: function bodies (with name and template arguments), lambdas,
// control blocks (if/for/while/else with their condition), class/namespace scopes.
// Enough structure for lint rules that reason per function body or per core type.
//
//   CodeStructure cs = AnalyzeStructure(file.lex);
//   int b = cs.InnermostBlock(token_index);             // -1: file scope
//   int f = cs.EnclosingFunction(token_index);          // function or lambda body
//   if (f >= 0) use(cs.blocks[f].name, cs.blocks[f].template_args);
//
// Only active tokens outside #define bodies take part (the `code` index list).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "source/lexer/lexer.h"

namespace optrace::source {

enum class BlockKind { kFunction, kLambda, kControl, kScope, kOther };

struct Block {
  BlockKind kind = BlockKind::kOther;
  size_t open = 0, close = 0;  // token indices of '{' and '}' (close == tokens.size(): never closed)
  int parent = -1;             // enclosing block, -1 at file scope
  int function = -1;           // this block if a function or lambda body, else the innermost one around it
  std::string name;            // function: "Process", "operator()"; control: "if", "for", "else", ...
  std::string template_args;   // function: "AscendC::AIV" for operator()<AscendC::AIV>
  size_t head_begin = 0, head_end = 0;  // function: parameter tokens; control: condition tokens [begin, end)
  int else_of = -1;            // for `else {`: the block of the matching if
  int line = 0, column = 0;    // of the name (function) or keyword (control) or '{'
};

struct CodeStructure {
  std::vector<size_t> code;       // indices of active, non-directive tokens, in order
  std::vector<Block> blocks;      // in order of their '{'
  std::vector<int> block_of;      // per token index: innermost block containing it, -1 at file scope

  int InnermostBlock(size_t token) const { return token < block_of.size() ? block_of[token] : -1; }
  // Innermost function or lambda body containing the token, -1 if none.
  int EnclosingFunction(size_t token) const;
  // True when block `inner` is `outer` or nested in it.
  bool Within(int inner, int outer) const;
};

CodeStructure AnalyzeStructure(const LexedFile& file);

// The text of tokens [begin, end) joined with single spaces.
std::string JoinTokens(const std::vector<Token>& tokens, size_t begin, size_t end);

}  // namespace optrace::source
