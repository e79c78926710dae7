#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

void add_scan(std::vector<Workload>&) {}

}  // namespace steptp::frontend::wl
