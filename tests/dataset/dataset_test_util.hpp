// Helpers for the dataset tests: a tiny task-file workload set, running the built CLI (STEPTP_BINARY) in a child
// process, and reading a dataset directory into memory for byte comparisons.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "base/json_text.hpp"

namespace steptp::dataset::dstest {

/// A fresh empty directory under the system temp dir (unique per call).
std::string temp_dir(const std::string& tag);

/// Writes the tiny workload set (6 small tasks: 3 elementwise, 2 matmul, 1 reduction) to DIR/tiny.jsonl and returns
/// its path.
std::string write_tiny_tasks(const std::string& dir);

/// Runs STEPTP_BINARY with args; returns the exit status (or 128 + signal). stdout/stderr go to DIR/log.txt when
/// log_dir is not empty.
int run_cli(const std::vector<std::string>& args, const std::string& log_dir = "");

/// Starts the CLI without waiting; returns the child pid.
int spawn_cli(const std::vector<std::string>& args);

/// Every regular file under `dir` (relative path -> bytes), skipping cache.sqlite* and shards/.
std::map<std::string, std::string> read_tree(const std::string& dir);

/// GoogleTest assertions that two dataset directories hold the same files (read_tree) with the same bytes;
/// names the first differing file.
void expect_same_tree(const std::string& a, const std::string& b);

/// The bytes of a file ("" when it cannot be read).
std::string slurp(const std::string& path);

/// The JSON lines of a file, parsed.
std::vector<core::ojson> read_json_lines(const std::string& path);

/// The common arguments of a tiny, deterministic generation run (task file, no measurement, no progress).
std::vector<std::string> tiny_args(const std::string& tasks, const std::string& out);

}  // namespace steptp::dataset::dstest
