// A one-rank torch_npu text export with two steps and, when asked, memory_record.csv and
// operator_memory.csv in their real columns (APP peaks at 2500 MB reserved, row 5; PTA at 1800 MB in
// step 2, with empty_strided and add live at its peak). Shared by the memory summary and finding tests.
#pragma once

#include "analyze/analyze_test_util.h"

namespace optrace::analyze::testing {

inline void WriteRank(const TempDir& tmp, bool with_memory) {
  tmp.Write("r0_ascend_pt/profiler_info_0.json", "{}");
  tmp.Write("r0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
            "1,MatMul,MatMul,AI_CORE,1000.000,100\n2,MatMul,MatMul,AI_CORE,2000.000,100\n");
  if (!with_memory) return;
  tmp.Write("r0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv",
            "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n"
            "APP,1000.000\t,,2100.0,,,NPU:0\n"
            "PTA,1050.000\t,900.0,1400.0,900.0,1,NPU:0\n"
            "PTA,2050.000\t,1300.0,1800.0,1300.0,1,NPU:0\n"
            "APP,2060.000\t,,2500.0,,,NPU:0\n");
  tmp.Write("r0_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_memory.csv",
            "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
            "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),Allocation Total "
            "Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),Release Total Active(MB),Stream Ptr,"
            "Device Type\n"
            "aten::empty_strided,409600,2010.000\t,,,,,,,,,,,1,NPU:0\n"
            "aten::mm,102400,1500.000\t,1600.000\t,,,,,,,,,,1,NPU:0\n"
            "aten::add,204800,1900.000\t,2100.000\t,,,,,,,,,,1,NPU:0\n");
}

}  // namespace optrace::analyze::testing
