#include "step/cache.hpp"

#include <sqlite3.h>

#include <set>
#include <stdexcept>

namespace steptp::core {

const char* const Cache::kTables[] = {"tasks", "candidates", "lowerings", "equivalence", "measurements",
                                      "texts", "units", "llm_calls", "eval_grades", "search_results", nullptr};

namespace {
void check_table(const std::string& t) {
  for (int i = 0; Cache::kTables[i]; ++i)
    if (t == Cache::kTables[i]) return;
  throw std::invalid_argument("cache: unknown table " + t);
}
}  // namespace

Cache::Cache(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("cannot open cache " + path + ": " + msg);
  }
  sqlite3_busy_timeout(db_, 10000);
  if (path != ":memory:") exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
  for (int i = 0; kTables[i]; ++i)
    exec(std::string("CREATE TABLE IF NOT EXISTS ") + kTables[i] + " (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
}

Cache::~Cache() {
  if (db_) sqlite3_close(db_);
}

void Cache::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error("cache " + path_ + ": " + msg);
  }
}

std::optional<std::string> Cache::get(const std::string& table, const std::string& key) {
  check_table(table);
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3_stmt* st = nullptr;
  std::string sql = "SELECT value FROM " + table + " WHERE key=?1";
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    throw std::runtime_error("cache " + path_ + ": " + sqlite3_errmsg(db_));
  sqlite3_bind_text(st, 1, key.data(), int(key.size()), SQLITE_TRANSIENT);
  std::optional<std::string> out;
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    const unsigned char* v = sqlite3_column_text(st, 0);
    out = std::string(reinterpret_cast<const char*>(v), std::size_t(sqlite3_column_bytes(st, 0)));
  } else if (rc != SQLITE_DONE) {
    std::string msg = sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    throw std::runtime_error("cache " + path_ + ": " + msg);
  }
  sqlite3_finalize(st);
  auto& c = counters_[table];
  (out ? c.first : c.second)++;
  return out;
}

void Cache::put(const std::string& table, const std::string& key, const std::string& value) {
  check_table(table);
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3_stmt* st = nullptr;
  std::string sql = "INSERT OR REPLACE INTO " + table + " (key, value) VALUES (?1, ?2)";
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    throw std::runtime_error("cache " + path_ + ": " + sqlite3_errmsg(db_));
  sqlite3_bind_text(st, 1, key.data(), int(key.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, value.data(), int(value.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) throw std::runtime_error("cache " + path_ + ": " + sqlite3_errmsg(db_));
}

void Cache::clear(const std::string& table) {
  check_table(table);
  std::lock_guard<std::mutex> lock(mu_);
  exec("DELETE FROM " + table);
}

std::int64_t Cache::count(const std::string& table) {
  check_table(table);
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3_stmt* st = nullptr;
  std::string sql = "SELECT COUNT(*) FROM " + table;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    throw std::runtime_error("cache " + path_ + ": " + sqlite3_errmsg(db_));
  std::int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  return n;
}

std::map<std::string, std::pair<std::int64_t, std::int64_t>> Cache::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

}  // namespace steptp::core
