// Fused family (KernelBench level 2): Gemm/Matmul chains (fused_gemm.cpp) and Conv chains (fused_conv.cpp).
#include "frontend/workloads/fused_common.hpp"

namespace steptp::frontend::wl {

void add_fused(std::vector<Workload>& v) {
  fused::add_gemm_chains(v);
  fused::add_conv_chains(v);
}

}  // namespace steptp::frontend::wl
