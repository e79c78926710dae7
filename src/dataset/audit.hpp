// `steptp audit DATASET_DIR` (issue #6): re-parse every archived record, check its schema and ids, re-validate
// before and after, re-check numeric equivalence (all records or a seeded sample), re-run the reasoning checker,
// and check every chat line, ids file and evaluation prompt against their schemas and records, plus the manifest's
// SHA-256s; record ids are unique (D006), stats.json and stats.md are what the records give (D007), and no stray
// temporary file `NAME.tmp.PID` is left (D008; codes in dataset_dir.hpp). Any failure makes the audit fail.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace steptp::dataset {

struct AuditOptions {
  std::string dir;
  std::int64_t sample = 0;  // equivalence re-checks: 0 = every record, else this many (seeded choice)
  int jobs = 1;
};

struct AuditReport {
  std::int64_t records = 0, equivalence_checked = 0, chat_lines = 0, failures = 0;
  std::vector<std::string> problems;  // first 50 problems, "where: what" or "CODE at where: what"
  bool ok() const { return failures == 0; }
};

/// Throws std::invalid_argument when opt.dir is not a dataset directory (missing, not a directory, no manifest.json).
AuditReport run_audit(const AuditOptions& opt);

}  // namespace steptp::dataset
