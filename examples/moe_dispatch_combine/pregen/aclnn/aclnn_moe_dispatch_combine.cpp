// Hand-written aclnn entry of moe_dispatch_combine (pregen): same parameter order as the
// generated aclnnInner* - inputs, attributes, outputs with profilingData last.
#include "aclnn_moe_dispatch_combine.h"
#include "aclnnInner_moe_dispatch_combine.h"

extern "C" {

aclnnStatus aclnnMoeDispatchCombineGetWorkspaceSize(const aclTensor* x, const aclTensor* expertIds,
                                                    const aclTensor* weight, const aclTensor* windows, int64_t rankId,
                                                    int64_t rankNum, int64_t expertGroups, aclTensor* y,
                                                    aclTensor* profilingData, uint64_t* workspaceSize,
                                                    aclOpExecutor** executor) {
  return aclnnInnerMoeDispatchCombineGetWorkspaceSize(x, expertIds, weight, windows, rankId, rankNum, expertGroups, y,
                                                      profilingData, workspaceSize, executor);
}

aclnnStatus aclnnMoeDispatchCombine(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                    aclrtStream stream) {
  return aclnnInnerMoeDispatchCombine(workspace, workspaceSize, executor, stream);
}

}  // extern "C"
