// Operator calculation: the FLOPs and tensor bytes of one operator call, from the shapes and dtypes
// its profiler row gives (kernel_details "Input Shapes" / "Input Data Types" / "Output Shapes").
//
//   std::vector<Tensor> in = ParseTensors("4096,1024;4096,1024", "DT_BF16;DT_BF16");
//   OpCost c = ModelOpCost(rules.cost, "MatMulV3", "4096,1024;4096,1024", "4096,4096", "DT_BF16;DT_BF16");
//   if (c.modelled) use(c.flops, c.bytes, c.compute_dtype);   // else c.reason says why not
//
// Families (which op types belong to each: efficiency_rules.json "families"):
//   matmul          2*B*M*N*K; M, N from the output, K the other dim of the first input, checked
//                   against the second input (a mismatch is "not modelled", never a guess)
//   grouped_matmul  2*M*N*K over the groups: x [M,K] (or a list), weight [E,K,N] or [E,N,K]
//   flash_attention / flash_attention_grad
//                   forward 2*B*Sq*Skv*Hq*(1 + Hv/Hk) (QK^T and PV), backward 2.5x forward (five
//                   matmuls with the recompute); B, Sq from the softmax statistics [B,N,Sq,8] or a
//                   full [.,.,Sq,Skv] mask; the compressed 2048x2048 mask of sparse modes 2-4 means
//                   causal (half the score matrix)
//   vector          element-wise and norm ops: bytes-bound; FLOPs = output elements x the per-element
//                   count of efficiency_rules.json "vector_ops"
// Bytes: every input with its own dtype plus every output at the first input's element size
// (output dtypes are not kept; for int8 / int4 inputs outputs count 2 bytes, the bf16/fp16 a
// quantized matmul writes). Anything else is not modelled, with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace optrace::analyze {

struct Tensor {
  std::vector<int64_t> dims;  // empty with present: a scalar
  std::string dtype;          // "DT_BF16", "FLOAT", ... ("" when the row has none)
  bool present = false;       // false for an empty slot of an optional input ("a;;b")
  double Elements() const;
};

// "4096,1024;4096,1024" with "DT_BF16;DT_BF16". A slot that is empty text is absent (optional
// input not given); a dimension that is not a non-negative integer makes the whole list empty
// (unparsable: the caller reports "not modelled").
std::vector<Tensor> ParseTensors(std::string_view shapes, std::string_view dtypes);

// Element size in bytes (0 when unknown) and the peak class a dtype computes at: fp16, bf16,
// fp32, hf32, int8, int4, fp8, int32, int64, bool, "" unknown.
double DtypeBytes(std::string_view dtype);
std::string DtypeClass(std::string_view dtype);

struct OpCostRules {
  std::map<std::string, std::string> family_of_type;  // "MatMulV3" -> "matmul"
  std::map<std::string, double> vector_flops_per_element;  // "Add" -> 1 (the type is also "vector")
};

struct OpCost {
  bool modelled = false;
  std::string family;          // matmul, grouped_matmul, flash_attention, flash_attention_grad, vector
  std::string compute_dtype;   // the dtype class whose peak applies ("bf16", "int8")
  double flops = 0;
  double bytes = 0;
  std::string dims;            // "B=1 M=4096 N=4096 K=1024" (how the FLOPs were counted)
  std::map<std::string, double> params;  // the same numbers by name (M N K B E; B Sq Skv Hq Hk Hv Nq D)
  std::string note;            // an assumption made ("causal: compressed 2048x2048 mask")
  std::string reason;          // when not modelled: why ("no output shape", "type not modelled")
  double intensity() const { return bytes > 0 ? flops / bytes : 0; }  // FLOPs per byte
};

OpCost ModelOpCost(const OpCostRules& rules, std::string_view type, std::string_view in_shapes,
                   std::string_view out_shapes, std::string_view in_dtypes);

}  // namespace optrace::analyze
