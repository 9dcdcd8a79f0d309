// The A2/A3 msprof op column lists (FORMATS.md section 10), used only to name what an export
// lacks. Values are never assumed from these lists.
#include "evidence/pipe/opprof.h"

namespace optrace::evidence {
namespace {

using Columns = std::vector<std::string_view>;

const Columns kPipeUtilization = {
    "aic_time(us)", "aic_total_cycles", "aic_cube_time(us)", "aic_cube_ratio", "aic_scalar_time(us)",
    "aic_scalar_ratio", "aic_mte1_time(us)", "aic_mte1_ratio", "aic_mte2_time(us)", "aic_mte2_ratio",
    "aic_mte3_time(us)", "aic_mte3_ratio", "aic_mte3_active_bw(GB/s)", "aic_fixpipe_time(us)", "aic_fixpipe_ratio",
    "aic_fixpipe_active_bw(GB/s)", "aic_icache_miss_rate", "aiv_time(us)", "aiv_total_cycles", "aiv_vec_time(us)",
    "aiv_vec_ratio", "aiv_scalar_time(us)", "aiv_scalar_ratio", "aiv_mte2_time(us)", "aiv_mte2_ratio",
    "aiv_mte2_active_bw(GB/s)", "aiv_mte3_time(us)", "aiv_mte3_ratio", "aiv_mte3_active_bw(GB/s)",
    "aiv_icache_miss_rate", "aic_mte1_active_bw(GB/s)", "aic_mte2_active_bw(GB/s)"};

const Columns kArithmeticUtilization = {
    "aic_time(us)", "aic_total_cycles", "aic_cube_ratio", "aic_cube_fp16_ratio", "aic_cube_int8_ratio",
    "aic_cube_fops", "aic_cube_total_instr_number", "aic_cube_fp_instr_number", "aic_cube_int_instr_number",
    "aiv_time(us)", "aiv_total_cycles", "aiv_vec_ratio", "aiv_vec_fp32_ratio", "aiv_vec_fp16_ratio",
    "aiv_vec_int32_ratio", "aiv_vec_int16_ratio", "aiv_vec_misc_ratio", "aiv_vec_fops"};

const Columns kMemory = {
    "aic_time(us)", "aic_total_cycles", "aic_l1_read_bw(GB/s)", "aic_l1_write_bw(GB/s)",
    "aic_main_mem_read_bw(GB/s)", "aic_main_mem_write_bw(GB/s)", "aic_mte1_instructions", "aic_mte1_ratio",
    "aic_mte2_instructions", "aic_mte2_ratio", "aic_mte3_instructions", "aic_mte3_ratio", "aiv_time(us)",
    "aiv_total_cycles", "aiv_ub_to_gm_bw(GB/s)", "aiv_gm_to_ub_bw(GB/s)", "aiv_main_mem_read_bw(GB/s)",
    "aiv_main_mem_write_bw(GB/s)", "aiv_mte2_instructions", "aiv_mte2_ratio", "aiv_mte3_instructions",
    "aiv_mte3_ratio", "read_main_memory_datas(KB)", "write_main_memory_datas(KB)", "GM_to_L1_datas(KB)",
    "GM_to_L1_bw_usage_rate(%)", "L1_to_GM_datas(KB)(estimate)", "L1_to_GM_bw_usage_rate(%)(estimate)",
    "L0C_to_L1_datas(KB)", "L0C_to_L1_bw_usage_rate(%)", "L0C_to_GM_datas(KB)", "L0C_to_GM_bw_usage_rate(%)",
    "GM_to_UB_datas(KB)", "GM_to_UB_bw_usage_rate(%)", "UB_to_GM_datas(KB)", "UB_to_GM_bw_usage_rate(%)"};

const Columns kMemoryL0 = {"aic_time(us)",           "aic_total_cycles",         "aic_l0a_read_bw(GB/s)",
                           "aic_l0a_write_bw(GB/s)", "aic_l0b_read_bw(GB/s)",    "aic_l0b_write_bw(GB/s)",
                           "aic_l0c_read_bw_cube(GB/s)", "aic_l0c_write_bw_cube(GB/s)", "aiv_time(us)",
                           "aiv_total_cycles"};

const Columns kMemoryUB = {"aic_time(us)",
                           "aic_total_cycles",
                           "aiv_time(us)",
                           "aiv_total_cycles",
                           "aiv_ub_read_bw_vector(GB/s)",
                           "aiv_ub_write_bw_vector(GB/s)",
                           "aiv_ub_read_bw_scalar(GB/s)",
                           "aiv_ub_write_bw_scalar(GB/s)"};

const Columns kResourceConflictRatio = {
    "aic_time(us)", "aic_total_cycles", "aic_cube_wait_ratio", "aic_mte1_wait_ratio", "aic_mte2_wait_ratio",
    "aic_mte3_wait_ratio", "aiv_time(us)", "aiv_total_cycles", "aiv_vec_total_cflt_ratio",
    "aiv_vec_bankgroup_cflt_ratio", "aiv_vec_bank_cflt_ratio", "aiv_vec_resc_cflt_ratio", "aiv_vec_mte_cflt_ratio",
    "aiv_vec_wait_ratio", "aiv_mte1_wait_ratio", "aiv_mte2_wait_ratio", "aiv_mte3_wait_ratio"};

const Columns kL2Cache = {
    "aic_time(us)", "aic_total_cycles", "aic_write_cache_hit", "aic_write_cache_miss_allocate",
    "aic_r0_read_cache_hit", "aic_r0_read_cache_miss_allocate", "aic_r1_read_cache_hit",
    "aic_r1_read_cache_miss_allocate", "aic_write_hit_rate(%)", "aic_read_hit_rate(%)", "aic_total_hit_rate(%)",
    "aiv_time(us)", "aiv_total_cycles", "aiv_write_cache_hit", "aiv_write_cache_miss_allocate",
    "aiv_r0_read_cache_hit", "aiv_r0_read_cache_miss_allocate", "aiv_r1_read_cache_hit",
    "aiv_r1_read_cache_miss_allocate", "aiv_write_hit_rate(%)", "aiv_read_hit_rate(%)", "aiv_total_hit_rate(%)"};

}  // namespace

const std::vector<std::string_view>& KnownMetricTables() {
  static const std::vector<std::string_view> kTables = {"PipeUtilization", "ArithmeticUtilization",
                                                        "ResourceConflictRatio", "Memory", "MemoryL0", "MemoryUB",
                                                        "L2Cache"};
  return kTables;
}

const std::vector<std::string_view>* KnownColumns(std::string_view table) {
  if (table == "PipeUtilization") return &kPipeUtilization;
  if (table == "ArithmeticUtilization") return &kArithmeticUtilization;
  if (table == "ResourceConflictRatio") return &kResourceConflictRatio;
  if (table == "Memory") return &kMemory;
  if (table == "MemoryL0") return &kMemoryL0;
  if (table == "MemoryUB") return &kMemoryUB;
  if (table == "L2Cache") return &kL2Cache;
  return nullptr;
}

}  // namespace optrace::evidence
