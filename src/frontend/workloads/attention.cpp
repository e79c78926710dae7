#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

void add_attention(std::vector<Workload>&) {}

}  // namespace steptp::frontend::wl
