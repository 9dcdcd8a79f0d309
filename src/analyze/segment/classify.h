// classify: layers into blocks (attention / ffn / moe / communication / aicpu / other) and
// step / layer / block classes by exact shape signature.
//
//   ClassifyAll(result, rules);   // fills result.blocks, Layer::blocks, *_class fields and classes
//
// Block cut (block_rules.json): a layer holding attention operators is [start .. last attention
// operator] = attention, then the rest = moe if it holds a moe operator, else ffn, else
// communication / aicpu / other by what it holds. A layer without attention is a companion
// layer with one block. Class signature: the ordered sequence of (operator name, input shapes);
// communication operators contribute their name only; a member none of whose compute operators
// has shapes (Level0) is a class of its own ("noshape:..."): missing shapes never merge.
#pragma once

#include <string>

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {

// `threads` > 1 computes class signatures side by side (the result is the same).
void ClassifyAll(AnalysisResult& result, const Rules& rules, int threads = 1);

}  // namespace optrace::analyze
