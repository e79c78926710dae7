// S10 + S11 (DATASET.md §1 layout, §5, §7): filter the sorted archive and write every output file atomically,
// the manifest (with each file's SHA-256) last. Outputs hold no timestamps or absolute paths, so the same archive
// and configuration give byte-identical files.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "dataset/config.hpp"
#include "dataset/dataset_dir.hpp"
#include "dataset/units.hpp"

namespace steptp::dataset {

struct ExportInput {
  std::vector<ojson> archive;                     // S1–S9 records, any order (sorted here)
  std::vector<Reject> rejects;                    // S1–S9 rejects
  std::map<std::string, std::int64_t> counters;   // funnel counters
  GenConfig gen;
  FilterConfig filter;
  std::string env;                                // measurement environment fingerprint(s)
};

/// Writes OUT/{archive,chat,eval}/..., rejects.jsonl, stats.json, stats.md, README.md (the Hugging Face dataset
/// card, dataset/card.hpp), manifest.json. Throws on I/O errors.
void export_dataset(const std::string& out_dir, ExportInput in);

/// Reads back what `steptp export` needs from an existing OUT (archive/all.jsonl, S1–S9 rejects, counters and the
/// manifest's configuration). Throws std::runtime_error when OUT is not a complete dataset.
ExportInput load_export_input(const std::string& out_dir);

/// Verifies OUT/manifest.json lists every file with the right SHA-256; returns the problems (empty when fine).
std::vector<std::string> verify_manifest(const std::string& out_dir);

/// Helper shared by generate/merge/export: JSONL output (input: read_jsonl in dataset_dir.hpp).
std::string to_jsonl(const std::vector<ojson>& lines);

}  // namespace steptp::dataset
