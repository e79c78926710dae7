#include "dataset_test_util.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace steptp::dataset::dstest {

std::string temp_dir(const std::string& tag) {
  static std::atomic<int> n{0};
  fs::path p = fs::temp_directory_path() / ("steptp-ds-" + tag + "-" + std::to_string(getpid()) + "-" + std::to_string(n++));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::string write_tiny_tasks(const std::string& dir) {
  const char* lines[] = {
      R"({"workload": "ReLU", "suite": "level1", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [8, 12]}, {"name": "C", "role": "output", "dtype": "f32", "shape": [8, 12]}], "leir": "B^{8}_{tx=0}L^{12}_{a=0}[C^{f32,g}_{tx,a}=max(A^{f32,g}_{tx,a},0);];"})",
      R"({"workload": "Scale_by_two", "suite": "level1", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [6, 8]}, {"name": "C", "role": "output", "dtype": "f32", "shape": [6, 8]}], "leir": "B^{6}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"})",
      R"({"workload": "Square", "suite": "level1", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [4, 6]}, {"name": "C", "role": "output", "dtype": "f32", "shape": [4, 6]}], "leir": "B^{4}_{tx=0}L^{6}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*A^{f32,g}_{tx,a};];"})",
      R"({"workload": "Standard_matrix_multiplication", "suite": "level1", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [8, 6]}, {"name": "C", "role": "input", "dtype": "f32", "shape": [6, 4]}, {"name": "D", "role": "output", "dtype": "f32", "shape": [8, 4]}], "leir": "B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];"})",
      R"({"workload": "Matmul_small", "suite": "level1", "known": [{"name": "A", "role": "input", "dtype": "f64", "shape": [4, 8]}, {"name": "C", "role": "input", "dtype": "f64", "shape": [8, 6]}, {"name": "D", "role": "output", "dtype": "f64", "shape": [4, 6]}], "leir": "B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[D^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];"})",
      R"({"workload": "Sum_reduction", "suite": "level1", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [4, 6]}, {"name": "C", "role": "output", "dtype": "f32", "shape": [4]}], "leir": "B^{4}_{tx=0}L^{6}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,a};];"})",
  };
  std::string path = (fs::path(dir) / "tiny.jsonl").string();
  std::ofstream f(path);
  for (const char* l : lines) f << l << "\n";
  return path;
}

namespace {
std::vector<char*> argv_of(const std::vector<std::string>& args, std::vector<std::string>& storage) {
  storage.clear();
  storage.push_back(STEPTP_BINARY);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> v;
  for (auto& s : storage) v.push_back(s.data());
  v.push_back(nullptr);
  return v;
}
}  // namespace

int spawn_cli(const std::vector<std::string>& args) {
  std::vector<std::string> storage;
  auto argv = argv_of(args, storage);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int run_cli(const std::vector<std::string>& args, const std::string& log_dir) {
  std::vector<std::string> storage;
  auto argv = argv_of(args, storage);
  pid_t pid = fork();
  if (pid == 0) {
    std::string log = log_dir.empty() ? "/dev/null" : (fs::path(log_dir) / "log.txt").string();
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::map<std::string, std::string> read_tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), dir).string();
    if (rel.rfind("cache.sqlite", 0) == 0 || rel.rfind("shards", 0) == 0 || rel == "log.txt") continue;
    std::ifstream f(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    out[rel] = ss.str();
  }
  return out;
}

std::vector<std::string> tiny_args(const std::string& tasks, const std::string& out) {
  return {"generate", "--tasks", tasks, "--out", out, "--no-measure", "--no-progress", "--min-per-strategy", "2"};
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<core::ojson> read_json_lines(const std::string& path) {
  std::vector<core::ojson> v;
  std::ifstream f(path);
  for (std::string l; std::getline(f, l);) v.push_back(core::ojson::parse(l));
  return v;
}

void expect_same_tree(const std::string& a, const std::string& b) {
  auto ta = read_tree(a), tb = read_tree(b);
  ASSERT_FALSE(ta.empty());
  std::vector<std::string> na, nb;
  for (auto& [k, v] : ta) na.push_back(k);
  for (auto& [k, v] : tb) nb.push_back(k);
  ASSERT_EQ(na, nb);
  for (auto& [k, v] : ta) EXPECT_TRUE(v == tb[k]) << k << " differs";
}

}  // namespace steptp::dataset::dstest
