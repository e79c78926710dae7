// Versions written into records, manifests and eval/search outputs (DATASET.md §4 `versions`). A change to the
// lowering, the reasoning renderer or the prompt template bumps its number (and so every key that includes it).
#pragma once

namespace steptp::core {

inline constexpr const char* kSteptpVersion = "0.1.0";
inline constexpr int kGeneratorVersion = 4;
inline constexpr int kLoweringVersion = 3;
inline constexpr int kRendererVersion = 1;
inline constexpr int kPromptVersion = 1;

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
