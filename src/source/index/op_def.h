// The operator's definition as the graph sees it (op_host OpDef): `this->Input("x")...`,
// `this->Output("y")...`, `this->Attr("a")...` in order, with each parameter's ParamType and
// the length of its DataType list. Shared by lint's binding rules and instrument's profiling
// chain.
//
//   OpDef def = ParseOpDef(host_files);
//   if (def.profiling < 0) ...   // no profiling output yet
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "source/lexer/source_set.h"

namespace optrace::source {

struct OpDefParam {
  std::string name;
  bool required = true;
  bool dynamic = false;       // ParamType(DYNAMIC): a list of tensors, its length known at run time
  const SourceFile* file = nullptr;
  int line = 0, column = 0;
  size_t token = 0;           // the Input/Output token
  size_t statement_end = 0;   // the ';' ending its chain of calls
  int dtype_count = 0;        // entries of its .DataType({...}) list (0 when none)
  bool list_form = false;     // .DataTypeList / .FormatList
  bool unknown_shape_format = false;  // has .UnknownShapeFormat(...)
  std::string receiver;       // `config_kirin.Output(...)`: "config_kirin"; "" for the OpDef's own (this->)
};

struct OpDef {
  const SourceFile* file = nullptr;
  std::string class_name;  // class X : public OpDef
  std::vector<OpDefParam> inputs, outputs;  // the OpDef's own (this->Output / Output)
  // Outputs declared on an OpAICoreConfig object for one SoC (`config_kirin.Output("out")`):
  // the config replaces the OpDef's list on that SoC, so it needs the profiling output too.
  std::vector<OpDefParam> config_outputs;
  size_t attrs = 0;
  int profiling = -1;  // index in outputs
};

// Lowercase without '_': profiling_data == profilingData.
std::string NormalizeName(std::string_view name);
bool IsProfilingName(std::string_view name);
// `aclnnFoo`, `aclnnFooGetWorkspaceSize`, `aclnnInplaceFoo`, `aclnnInnerFoo` are the APIs of the
// OpDef class `Foo`; `aclnnFooW4A8` is another operator's. True for any name when the class is
// unknown, or when the name is not an aclnn API.
bool IsAclnnApiOf(std::string_view api, std::string_view op_class);
// `workspace`, `usrWorkspace`, `tiling`, `tilingGM`: the parameters the generated launch passes
// after the OpDef's inputs and outputs.
bool IsLaunchTailName(std::string_view name);
OpDef ParseOpDef(const std::vector<const SourceFile*>& host_files);

}  // namespace optrace::source
