// Buffer-level sites of set_storage_scope and set_storage_layout (STRATEGIES.md §11 entries 20, 21): one site per
// intermediate (non-known) buffer, addressed by its first writing statement (nest path, statement index), in
// program order.
#pragma once
#include <string>
#include <vector>

#include "ir/task.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::memory {

struct BufferSite {
  std::string buffer;
  ir::Scope scope = ir::Scope::Global;  // the scope of its occurrences (validator: all agree, E204)
  SiteRef ref;                          // first writing statement
  int top_nests = 0;                    // top-level nests that read or write it (> 1: never confined, §7.4)
};

/// The sites in program order, from one walk over the program (buffer names interned, no per-nest sets).
std::vector<BufferSite> buffer_sites(const ir::Task& t);

/// The buffer whose site is `ref` (StrategyError S001 when there is none).
BufferSite buffer_site_at(const ir::Task& t, const SiteRef& ref);

}  // namespace steptp::strategy::memory
