// S10 + S11 (DATASET.md §1 layout, §5, §7): filter the sorted archive and write every output file atomically,
// the manifest (with each file's SHA-256) last. Outputs hold no timestamps or absolute paths, so the same archive
// and configuration give byte-identical files.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "step/config.hpp"
#include "step/dataset_dir.hpp"
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
/// card, dataset/card.hpp), manifest.json, after removing stale temporary files of a killed writer (NAME.tmp.PID)
/// from OUT, OUT/archive, OUT/chat and OUT/eval. Throws DatasetDirError D010 when a file cannot be written.
void export_dataset(const std::string& out_dir, ExportInput in);

/// Reads back what `steptp export` needs from an existing OUT (archive/all.jsonl, S1–S9 rejects, counters and the
/// manifest's configuration). Throws DatasetDirError when OUT is not a complete dataset: D001/D004 not a dataset
/// directory, D002 a missing file, D003 a manifest, line or stats.json that is not what steptp wrote, D009 a file
/// missing or differing from its SHA-256 in the manifest (codes in dataset_dir.hpp).
ExportInput load_export_input(const std::string& out_dir);

/// The statistics (stats.json) that export_dataset writes for these records (any order), S1–S9 rejects, funnel
/// counters and configuration; `steptp audit` compares it with the stored file.
ojson expected_stats(std::vector<ojson> archive, std::vector<Reject> rejects,
                     const std::map<std::string, std::int64_t>& counters, const GenConfig& gen,
                     const FilterConfig& filter);

/// Verifies OUT/manifest.json lists every file with the right SHA-256; returns the problems (empty when fine).
std::vector<std::string> verify_manifest(const std::string& out_dir);

/// Helper shared by generate/merge/export: JSONL output (input: read_jsonl in dataset_dir.hpp).
std::string to_jsonl(const std::vector<ojson>& lines);

}  // namespace steptp::dataset
