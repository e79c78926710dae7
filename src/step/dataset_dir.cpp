#include "step/dataset_dir.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "base/file_io.hpp"

namespace steptp::dataset {

namespace fs = std::filesystem;

DatasetDirError::DatasetDirError(Code c, std::string location, const std::string& message)
    : DatasetDirError(code_str(c), std::move(location), message) {}

DatasetDirError::DatasetDirError(std::string code, std::string location, const std::string& message)
    : Error(code_or(code), message, Location{0, location}, code + " at " + location + ": " + message),
      code_(std::move(code)) {}

ojson read_manifest(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw DatasetDirError(Code::D001, dir, "no such dataset directory");
  if (!fs::is_directory(dir, ec))
    throw DatasetDirError(Code::D001, dir, "not a directory (give the directory `steptp generate --out` wrote)");
  const fs::path mp = fs::path(dir) / "manifest.json";
  if (!fs::is_regular_file(mp, ec)) {
    if (fs::is_directory(fs::path(dir) / "shards", ec))
      throw DatasetDirError(Code::D004, dir, "no manifest.json; this holds shards: run `steptp merge --out " + dir +
                                             "` first");
    throw DatasetDirError(Code::D001, dir, "not a steptp dataset (no manifest.json; run `steptp generate`)");
  }
  std::ifstream in(mp);
  ojson m = ojson::parse(in, nullptr, false);
  if (m.is_discarded() || !m.is_object())
    throw DatasetDirError(Code::D003, mp.string(), "not a steptp manifest (not a JSON object)");
  return m;
}

std::string require_file(const std::string& dir, const std::string& rel, const std::string& what) {
  const std::string p = (fs::path(dir) / rel).string();
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) throw DatasetDirError(Code::D002, p, what + " is missing");
  return p;
}

bool is_atomic_temp_name(const std::string& filename) {
  const auto at = filename.rfind(".tmp.");
  if (at == std::string::npos || at == 0 || at + 5 == filename.size()) return false;
  return filename.find_first_not_of("0123456789", at + 5) == std::string::npos;
}

std::vector<std::string> remove_stale_temp_files(const std::string& dir, const std::vector<std::string>& subdirs) {
  std::vector<std::string> removed;
  std::vector<fs::path> dirs{fs::path(dir)};
  for (const auto& s : subdirs) dirs.push_back(fs::path(dir) / s);
  for (const auto& d : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!is_atomic_temp_name(name) || !it->is_regular_file(ec)) continue;
      const std::string digits = name.substr(name.rfind(".tmp.") + 5);
      const long long pid = digits.size() > 9 ? -1 : std::stoll(digits);
      const bool gone = pid <= 0 || pid == ::getpid() || (::kill(pid_t(pid), 0) != 0 && errno == ESRCH);
      std::error_code rm;
      if (gone && fs::remove(it->path(), rm)) removed.push_back(it->path().string());
    }
  }
  return removed;
}

std::vector<ojson> read_jsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw DatasetDirError(Code::D002, path, "missing or unreadable");
  std::vector<ojson> v;
  std::string line;
  for (int no = 1; ir::getline_bounded(in, line, path); ++no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ojson j = ojson::parse(line, nullptr, false);
    if (j.is_discarded()) throw DatasetDirError(Code::D003, path + ":" + std::to_string(no), "not a JSON line");
    v.push_back(std::move(j));
  }
  return v;
}

}  // namespace steptp::dataset
