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

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/model.h"
#include "analyze/rules.h"

namespace optrace::analyze {

// `threads` > 1 computes class signatures side by side (the result is the same).
void ClassifyAll(AnalysisResult& result, const Rules& rules, int threads = 1);

// A 64-bit hash of each interned string's bytes, by string id: computed once, so that a
// signature costs a multiply per event instead of a pass over its name and shape text.
std::vector<uint64_t> StringHashes(const StringTable& strings);

// Signature of an event range, or "" when none of its compute events has shapes.
std::string ShapeSignature(const std::vector<uint64_t>& string_hashes, const RankTable& table, EventRange range);

}  // namespace optrace::analyze
