// The `--base-url ... --api-key-env` flags of the llm policy (DATASET.md §9.3), shared by `steptp eval` and
// `steptp search`.
#pragma once
#include <CLI/CLI.hpp>

#include "policy/llm_client.hpp"

namespace steptp::cli {

/// Adds --base-url, --model, --temperature, --max-tokens, --timeout, --retries, --backoff and --api-key-env to
/// `c`, bound to `llm` (whose current values are shown as defaults).
void add_llm_options(CLI::App* c, policy::LlmConfig& llm);

}  // namespace steptp::cli
