// The dataset card OUT/README.md (issue #15 part 3): a Hugging Face dataset card, i.e. a YAML header between `---`
// lines followed by Markdown, so that `datasets.load_dataset(OUT)` and the Hub read the directory as it is. The
// header follows the Hub's dataset-card metadata (huggingface.co/docs/hub/datasets-cards, "configs" with
// data_files per split as in huggingface.co/docs/hub/datasets-manual-configuration, and "dataset_info" features in
// the form `push_to_hub` writes). The license is left to the user (a commented `license:` line): the data's license
// is not steptp's to choose. Deterministic: no timestamps or absolute paths, like every other output (§11).
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace steptp::dataset {

/// What the card describes: line counts of the files export writes (DATASET.md §1 layout).
struct CardInput {
  std::map<std::string, std::int64_t> chat_lines;     // "train"/"val"/"test" -> lines of chat/<split>.jsonl
  std::map<std::string, std::int64_t> archive_lines;  // "all"/"train"/"val"/"test" -> lines of archive/<name>.jsonl
  std::map<std::string, std::int64_t> eval_lines;     // "val"/"test" -> lines of eval/<split>.prompts.jsonl
  std::string gen_hash, filter_hash;
};

/// The Hub's name of one of our splits: "val" -> "validation" (the name `datasets` and the Hub use), others as is.
std::string hub_split_name(const std::string& split);

/// Renders README.md: YAML header with configs `chat` (default; chat/{train,val,test}.jsonl), `archive`
/// (archive/{train,val,test}.jsonl), `archive_all` (archive/all.jsonl, split train) and `eval_prompts`
/// (eval/{val,test}.prompts.jsonl), dataset_info for `chat` (features: messages = list of {role, content}
/// strings; num_examples per split), then a short Markdown description of the files and how to load them.
std::string render_dataset_card(const CardInput& in);

}  // namespace steptp::dataset
