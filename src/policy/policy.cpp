#include "policy/policy.hpp"

#include "base/hash.hpp"

namespace steptp::policy {

std::string Prompt::sha256() const { return core::H({system, user}); }

}  // namespace steptp::policy
