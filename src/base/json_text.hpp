// JSON text forms used by dataset outputs: the Python json.dumps layout (", " and ": " separators, key order kept,
// UTF-8 passed through) for archive and chat lines, and canonical JSON (sorted keys, no whitespace) for hashing
// (DATASET.md §3). No NaN/Infinity literals are ever written: non-finite numbers become null.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace steptp::core {

using ojson = nlohmann::ordered_json;

/// One-line text like Python json.dumps(obj, ensure_ascii=False).
std::string dump_py(const ojson& j);
/// Canonical JSON: object keys sorted (bytewise), no whitespace; arrays keep their order.
std::string canonical_json(const ojson& j);
/// Pretty text (2-space indent, key order kept) for manifests and stats.
std::string dump_pretty(const ojson& j);

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
