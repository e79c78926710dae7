// `steptp generate --mpi` (DATASET.md §10, issue #15 part 2) through a real `mpirun`: 3 ranks (oversubscribed on
// any machine) give byte for byte the dataset of one process; --no-merge leaves the shards to `steptp merge`; a
// rank killed with SIGKILL mid-run and the same command rerun give the same dataset. Without MPI in the build,
// --mpi is a usage error naming the CMake option.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "step/cache.hpp"
#include "dataset_test_util.hpp"

using namespace steptp::dataset::dstest;
namespace fs = std::filesystem;

namespace {

/// The tiny task set with the deterministic latency model (so S7 runs, as in a real job, but reproducibly).
std::vector<std::string> fixed_args(const std::string& tasks, const std::string& out) {
  return {"generate", "--tasks", tasks, "--out", out, "--timer", "fixed", "--no-progress", "--min-per-strategy", "2"};
}

/// The tiny task set `copies` times over under distinct workload names (Name_c0, Name_c1, ...): more units per
/// shard, so that a rank can be caught between its first cached unit and its last.
[[maybe_unused]] std::string write_tasks_copies(const std::string& dir, int copies) {
  const std::string tiny = slurp(write_tiny_tasks(dir));
  std::string out;
  for (int c = 0; c < copies; ++c)
    for (std::size_t i = 0; i < tiny.size();) {
      std::size_t j = tiny.find('\n', i);
      std::string line = tiny.substr(i, j - i);
      const std::string key = "\"workload\": \"";
      auto k = line.find(key);
      auto e = line.find('"', k + key.size());
      line.insert(e, "_c" + std::to_string(c));
      out += line + "\n";
      i = j + 1;
    }
  const std::string path = dir + "/copies.jsonl";
  std::ofstream(path) << out;
  return path;
}

#ifdef STEPTP_MPIEXEC
/// argv of `mpirun [--allow-run-as-root] --oversubscribe -np N steptp ARGS... --mpi` (OpenMPI refuses to run as
/// root without the first).
std::vector<std::string> mpirun_argv(int np, const std::vector<std::string>& args) {
  std::vector<std::string> v{STEPTP_MPIEXEC};
  if (getuid() == 0) v.push_back("--allow-run-as-root");
  v.insert(v.end(), {"--oversubscribe", "-np", std::to_string(np), STEPTP_BINARY});
  v.insert(v.end(), args.begin(), args.end());
  v.push_back("--mpi");
  return v;
}

/// Starts argv[0] with argv, output appended to LOG; returns the pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<std::string> storage = argv;
  std::vector<char*> a;
  for (auto& s : storage) a.push_back(s.data());
  a.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::fopen(log.c_str(), "a");
    dup2(fileno(f), 1);
    dup2(fileno(f), 2);
    execv(a[0], a.data());
    _exit(127);
  }
  return pid;
}

int wait_rc(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int run_mpi(int np, const std::vector<std::string>& args, const std::string& log) {
  return wait_rc(spawn(mpirun_argv(np, args), log));
}

/// The pid of the process that mpirun `parent` started as rank `rank` (its environment says
/// OMPI_COMM_WORLD_RANK=rank), or -1.
pid_t rank_pid(pid_t parent, int rank) {
  const std::string want = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream st(e.path() / "stat");
    std::string line;
    if (!std::getline(st, line)) continue;
    auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != parent) continue;
    std::string env = slurp((e.path() / "environ").string());
    for (std::size_t i = 0; i < env.size();) {
      std::size_t j = env.find('\0', i);
      if (j == std::string::npos) j = env.size();
      if (env.compare(i, j - i, want) == 0) return pid_t(std::stoi(name));
      i = j + 1;
    }
  }
  return -1;
}
#endif

}  // namespace

TEST(MpiGenerateCli, UsageErrors) {
  std::string d = temp_dir("mpiuse");
  std::string tasks = write_tiny_tasks(d);
  auto with = [&](std::vector<std::string> a, std::initializer_list<std::string> more) {
    a.insert(a.end(), more);
    return a;
  };
  EXPECT_EQ(run_cli(with(fixed_args(tasks, d + "/o"), {"--no-merge"}), d), 2);
  EXPECT_NE(slurp(d + "/log.txt").find("--no-merge needs --mpi"), std::string::npos) << slurp(d + "/log.txt");
#ifdef STEPTP_MPIEXEC
  EXPECT_EQ(run_cli(with(fixed_args(tasks, d + "/o"), {"--mpi", "--shard", "0/2"}), d), 2);
  EXPECT_NE(slurp(d + "/log.txt").find("--mpi and --shard exclude each other"), std::string::npos);
#else
  EXPECT_EQ(run_cli(with(fixed_args(tasks, d + "/o"), {"--mpi"}), d), 2);
  EXPECT_NE(slurp(d + "/log.txt").find("steptp: error: --mpi: built without MPI: rebuild with -DSTEPTP_WITH_MPI=ON"),
            std::string::npos)
      << slurp(d + "/log.txt");
#endif
  // --measure-jobs slots of --threads CPUs each must fit on the node (disjoint cores)
  EXPECT_EQ(run_cli(with(fixed_args(tasks, d + "/o"), {"--measure-jobs", "100000"}), d), 2);
  EXPECT_NE(slurp(d + "/log.txt").find("--measure-jobs 100000 x --threads 1 needs 100000 CPUs"), std::string::npos)
      << slurp(d + "/log.txt");
  EXPECT_FALSE(fs::exists(d + "/o/manifest.json"));
  fs::remove_all(d);
}

#ifdef STEPTP_MPIEXEC

TEST(MpiGenerateSlow, ThreeRanksEqualSingleRunWithAndWithoutMerge) {
  std::string d = temp_dir("mpi");
  std::string tasks = write_tiny_tasks(d);
  const std::string log = d + "/log.txt";
  ASSERT_EQ(run_cli(fixed_args(tasks, d + "/single"), d), 0);
  // --no-merge: three complete shards and no dataset yet; `steptp merge` then gives the single run's files
  auto args = fixed_args(tasks, d + "/mpi");
  args.push_back("--no-merge");
  ASSERT_EQ(run_mpi(3, args, log), 0) << slurp(log);
  EXPECT_FALSE(fs::exists(d + "/mpi/manifest.json"));
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(fs::exists(d + "/mpi/shards/shard-000" + std::to_string(i) + "-of-0003/manifest.json")) << i;
  ASSERT_EQ(run_cli({"merge", "--out", d + "/mpi"}, d), 0);
  expect_same_tree(d + "/single", d + "/mpi");
  // the merging run (rank 0 merges after the barrier), all units now from the shard caches
  fs::remove_all(d + "/mpi2");
  ASSERT_EQ(run_mpi(3, fixed_args(tasks, d + "/mpi2"), log), 0) << slurp(log);
  expect_same_tree(d + "/single", d + "/mpi2");
  const std::string out = slurp(log);
  EXPECT_NE(out.find("rank 0 of 3: merged 3 shard(s) into " + d + "/mpi2"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 2 of 3: generated "), std::string::npos) << out;
  fs::remove_all(d);
}

TEST(MpiGenerateSlow, RankKilledMidRunThenRerunEqualsSingleRun) {
  std::string d = temp_dir("mpikill");
  const std::string tasks = write_tasks_copies(d, 8);  // 48 units, about 16 per rank
  const std::string log = d + "/log.txt";
  auto serial_args = [](const std::string& t, const std::string& out) {  // one worker: units one after the other
    auto a = fixed_args(t, out);
    a.insert(a.end(), {"--jobs", "1"});
    return a;
  };
  ASSERT_EQ(run_cli(serial_args(tasks, d + "/single"), d), 0);
  // One rank of a 3-rank job is killed with SIGKILL once its shard has cached a unit but before it is complete;
  // mpirun then ends the job. The victim is the first rank seen with a cached unit and no shard manifest.
  const std::string out = d + "/mpi";
  pid_t mpirun = spawn(mpirun_argv(3, serial_args(tasks, out)), log);
  bool killed = false;
  auto t0 = std::chrono::steady_clock::now();
  while (!killed && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
    int st = 0;
    if (waitpid(mpirun, &st, WNOHANG) == mpirun) {
      mpirun = -1;
      break;
    }
    for (int r = 0; r < 3 && !killed; ++r) {
      const std::string shard = out + "/shards/shard-000" + std::to_string(r) + "-of-0003";
      if (fs::exists(shard + "/manifest.json") || !fs::exists(shard + "/cache.sqlite")) continue;
      try {
        steptp::dataset::Cache c(shard + "/cache.sqlite");
        if (c.count("units") < 1) continue;
      } catch (const std::exception&) {
        continue;
      }
      pid_t victim = rank_pid(mpirun, r);
      if (victim > 0 && kill(victim, SIGKILL) == 0) {
        killed = true;
        std::cerr << "killed rank " << r << " (pid " << victim << ")\n";
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(killed) << "no rank could be killed mid-run: " << slurp(log);
  EXPECT_NE(wait_rc(mpirun), 0) << "mpirun must fail when a rank dies";
  EXPECT_FALSE(fs::exists(out + "/manifest.json"));
  ASSERT_EQ(run_mpi(3, serial_args(tasks, out), log), 0) << slurp(log);
  expect_same_tree(d + "/single", out);
  fs::remove_all(d);
}

#endif
