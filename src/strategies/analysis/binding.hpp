// GPU binding keys and launch limits (LEIR.md §5 bound names; STRATEGIES.md entry 16, B19) and the helper-nest
// binding rule (STRATEGIES.md §7.5).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/ast.hpp"
#include "strategies/config.hpp"

namespace steptp::strategy::analysis {

/// The six hardware tags in tag order.
inline const std::vector<std::string>& hw_tags() {
  static const std::vector<std::string> t = {"tx", "ty", "tz", "bx", "by", "bz"};
  return t;
}

/// Hardware tag selected by a bound key ("tya" -> "ty"), or nullopt if `key` is not a bound name.
std::optional<std::string> hw_tag(const std::string& key);

/// Tag -> extent of the B loops of a nest (nested nests included).
std::map<std::string, std::int64_t> bound_tags(const ir::Nest& n);

/// LEIR.md §5 (E114): no two B loops of the nest (nested nests included) select the same hardware axis.
bool hw_tags_distinct(const ir::Nest& n);

/// Launch limits of entry 16: threadIdx x, y <= 1024, z <= 64, product <= 1024; blockIdx x <= 2^31-1, y, z <=
/// 65535. `why` receives the first violated limit.
bool launch_limits_ok(const std::map<std::string, std::int64_t>& tags, const StrategyConfig& cfg,
                      std::string* why = nullptr);
/// Product of the threadIdx extents.
std::int64_t thread_product(const std::map<std::string, std::int64_t>& tags);

/// §7.5 helper-nest header. `site_loops` are the loops of the site nest that the helper uses, in site order.
/// If none is bound, the first loop with extent <= 1024 becomes a B loop whose key is renamed to the first free
/// binding key (tx, ty, tz, then suffixed forms), recorded in `renamed` (old key -> new key); the caller must
/// apply the renaming to the helper body (rename_key / substitute). If no loop qualifies, `B^{1}_{tx=0}` is
/// prepended.
struct HelperHeader {
  std::vector<ir::Loop> loops;
  std::map<std::string, std::string> renamed;
};
HelperHeader helper_header(const std::vector<ir::Loop>& site_loops);

}  // namespace steptp::strategy::analysis
