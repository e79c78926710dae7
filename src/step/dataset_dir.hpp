// Opening the directories steptp writes (a `generate` dataset, its shards, `eval` and `search` outputs) when a
// user names one on the command line. Every failure is a DatasetDirError with a stable code and the path as its
// location, printed by the CLI as one line (`steptp: error: D001 at /tmp/x: not a steptp dataset ...`, exit 2):
//   D001  not a dataset directory: missing, not a directory, or no manifest.json;
//   D002  a file the dataset should hold is missing or empty (a split's prompts or records, archive/all.jsonl);
//   D003  a file that is not what steptp wrote: a manifest that is not a JSON object, a line that is not JSON;
//   D004  incomplete: a shard without a complete manifest, or a directory of shards never merged;
//   D005  a directory of no known kind (`report`: not a dataset, eval or search output).
// `steptp audit` reports these failures (FAIL lines, exit 1) with a code:
//   D006  two archive records with the same record_id (at the second line, naming the first);
//   D007  stats.json or stats.md is not valid JSON, or not what the archive, rejects and counters give;
//   D008  a stray temporary file `NAME.tmp.PID` (a writer killed before its rename).
// `steptp export` errors (exit 2) use D001-D004 for the directory and its lines, and:
//   D009  a file is missing or differs from its SHA-256 in the manifest;
//   D010  an output file cannot be written (also `generate` and `merge`);
//   D011  the --config file is unreadable, not JSON, or has an unknown key.
// D012 (src/step/bpe_tokenizer.hpp) is a bad `generate --tokenizer` file, wherever it is read.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/json_text.hpp"

namespace steptp::dataset {

/// Bad dataset input: a steptp::Error whose what() is "CODE at LOCATION: MESSAGE"; LOCATION (where().path) is a
/// path, or path:line for a bad line.
class DatasetDirError : public Error {
 public:
  DatasetDirError(Code c, std::string location, const std::string& message);
  /// A code given as text (tests; a text that is no code is an uncoded input error).
  DatasetDirError(std::string code, std::string location, const std::string& message);
  /// The code's text, D001 (id() is the enumerator).
  const std::string& code() const { return code_; }
  const std::string& location() const { return where().path; }

 private:
  std::string code_;
};

/// `dir`/manifest.json, parsed. Throws D001 when `dir` is missing, not a directory or has no manifest.json
/// (D004 instead when it holds a shards/ folder: `steptp merge` was not run), D003 when the manifest is not a JSON
/// object.
ojson read_manifest(const std::string& dir);

/// `dir`/`rel` when it exists as a regular file; otherwise throws D002 naming `what` (e.g. "the test split's
/// prompt file").
std::string require_file(const std::string& dir, const std::string& rel, const std::string& what);

/// True for the name of a write_file_atomic temporary file: "NAME.tmp.PID" (PID: decimal digits).
bool is_atomic_temp_name(const std::string& filename);

/// Removes the write_file_atomic temporary files ("NAME.tmp.PID") in `dir` and in its subdirectories `subdirs` (not
/// recursively) whose writer is gone: a PID that is not running, or this process's own PID (nothing is in flight
/// when a command starts). Returns the removed paths. Errors are ignored (a file that cannot be removed stays).
std::vector<std::string> remove_stale_temp_files(const std::string& dir, const std::vector<std::string>& subdirs);

/// Every non-blank line of a JSONL file written by steptp (archive, rejects, prompts, chat, shard records), parsed.
/// Throws D002 when the file cannot be opened, D003 at path:line for a line that is not JSON.
std::vector<ojson> read_jsonl(const std::string& path);

}  // namespace steptp::dataset
