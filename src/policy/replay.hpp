// The `replay` policy (DATASET.md §9.3): a JSONL file of {"prompt_sha256": "<hex>", "replies": ["...", ...]}
// lines; sample s of a prompt gets replies[s] (consumed in order). A prompt the file lacks, or a sample beyond its
// replies, yields Reply::none ("no proposal"), which callers count but do not treat as an error.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace steptp::policy {

class ReplayPolicy : public Policy {
 public:
  /// Reads `path`. Throws std::runtime_error naming the file and line on a missing file, a line that is not a JSON
  /// object with a 64-hex-digit "prompt_sha256" string and a "replies" array of strings, or a repeated hash.
  explicit ReplayPolicy(const std::string& path);
  std::string name() const override { return "replay"; }
  Reply reply(const Prompt& p, int sample) override;
  std::size_t prompts() const { return replies_.size(); }

 private:
  std::map<std::string, std::vector<std::string>> replies_;
};

}  // namespace steptp::policy
