// Result cache of the dataset pipeline (DATASET.md §3): one SQLite database in WAL mode, one table per result kind
// (tasks, candidates, lowerings, equivalence, measurements, texts, units; llm_calls, eval_grades and search_results for
// `steptp eval` and `steptp search`), each (key TEXT PRIMARY KEY, value TEXT).
// Every put is its own transaction, so a killed process loses only the work in flight. Thread-safe (one
// connection behind a mutex). Throws std::runtime_error naming the database on SQLite errors.
#pragma once
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>

struct sqlite3;

namespace steptp::core {

class Cache {
 public:
  /// Opens (creating if needed) the database at `path`; ":memory:" gives a private in-memory cache.
  explicit Cache(const std::string& path);
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  std::optional<std::string> get(const std::string& table, const std::string& key);
  void put(const std::string& table, const std::string& key, const std::string& value);
  /// Deletes every row of `table` (the --recompute rule).
  void clear(const std::string& table);
  std::int64_t count(const std::string& table);

  /// Lookup counters since opening: per table, hits and misses.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> counters() const;

  static const char* const kTables[];

 private:
  void exec(const std::string& sql);
  sqlite3* db_ = nullptr;
  std::string path_;
  mutable std::mutex mu_;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> counters_;
};

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
