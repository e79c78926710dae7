// The job-array scripts of tools/cluster/ (docs/cluster.md, DATASET.md §10) run as the schedulers would run them:
// the array script once per index with that scheduler's environment variables (Slurm SLURM_ARRAY_TASK_ID/COUNT,
// PBS Pro PBS_ARRAY_INDEX, Grid Engine SGE_TASK_ID from 1 and SGE_TASK_LAST), then the merge script. The result is
// byte for byte the dataset of a single process. The test runs the committed script files themselves.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>

#include "dataset_test_util.hpp"

using namespace steptp::dataset::dstest;
namespace fs = std::filesystem;

namespace {

/// Runs `bash tools/cluster/SCRIPT` with the variables `env` added to this process's environment; output to LOG.
int run_script(const std::string& script, const std::map<std::string, std::string>& env, const std::string& log) {
  const std::string path = std::string(STEPTP_SOURCE_DIR) + "/tools/cluster/" + script;
  pid_t pid = fork();
  if (pid == 0) {
    // a test run inside a real array job must not leak that job's variables into the scripts
    for (const char* k : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_CPUS_PER_TASK", "PBS_ARRAY_INDEX",
                          "NCPUS", "SGE_TASK_ID", "SGE_TASK_FIRST", "SGE_TASK_LAST", "NSLOTS", "NSHARDS", "OUT",
                          "STEPTP", "STEPTP_ARGS", "MERGE_ARGS"})
      unsetenv(k);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    FILE* f = std::fopen(log.c_str(), "a");
    dup2(fileno(f), 1);
    dup2(fileno(f), 2);
    execl("/bin/bash", "bash", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace

TEST(ClusterArraysSlow, SlurmPbsAndGridEngineArraysPlusMergeEqualSingleRun) {
  std::string d = temp_dir("arrays");
  std::string tasks = write_tiny_tasks(d);
  const std::string log = d + "/log.txt";
  ASSERT_EQ(run_cli({"generate", "--tasks", tasks, "--out", d + "/single", "--timer", "fixed", "--no-progress",
                     "--min-per-strategy", "2"},
                    d),
            0);
  const std::map<std::string, std::string> common{
      {"STEPTP", STEPTP_BINARY}, {"STEPTP_ARGS", "--tasks " + tasks + " --timer fixed --min-per-strategy 2"}};
  struct Scheduler {
    std::string name, script;
    int shards;
    std::function<std::map<std::string, std::string>(int)> env;  // array index 0..shards-1 -> its variables
  };
  const std::vector<Scheduler> schedulers{
      {"slurm", "slurm-array.sh", 3,
       [](int i) {
         return std::map<std::string, std::string>{{"SLURM_ARRAY_TASK_ID", std::to_string(i)},
                                                   {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_CPUS_PER_TASK", "1"}};
       }},
      {"pbs", "pbs-array.sh", 2,
       [](int i) {
         return std::map<std::string, std::string>{{"PBS_ARRAY_INDEX", std::to_string(i)}, {"NSHARDS", "2"},
                                                   {"NCPUS", "1"}};
       }},
      {"sge", "sge-array.sh", 4,
       [](int i) {
         return std::map<std::string, std::string>{{"SGE_TASK_ID", std::to_string(i + 1)}, {"SGE_TASK_FIRST", "1"},
                                                   {"SGE_TASK_LAST", "4"}, {"NSLOTS", "1"}};
       }},
  };
  for (const auto& s : schedulers) {
    SCOPED_TRACE(s.name);
    const std::string out = d + "/" + s.name;
    auto env = common;
    env["OUT"] = out;
    for (int i = 0; i < s.shards; ++i) {
      auto e = env;
      e.merge(s.env(i));
      ASSERT_EQ(run_script(s.script, e, log), 0) << s.name << " index " << i << ": " << slurp(log);
    }
    EXPECT_FALSE(fs::exists(out + "/manifest.json"));
    EXPECT_EQ(fs::exists(out + "/shards/shard-0000-of-000" + std::to_string(s.shards) + "/manifest.json"), true);
    ASSERT_EQ(run_script("merge.sh", env, log), 0) << slurp(log);
    expect_same_tree(d + "/single", out);
  }
  // an index outside a scheduler's array environment is refused with the script's own message
  EXPECT_NE(run_script("slurm-array.sh", {{"OUT", d + "/x"}, {"STEPTP", STEPTP_BINARY}}, log), 0);
  EXPECT_NE(slurp(log).find("run as a Slurm array job"), std::string::npos) << slurp(log);
  fs::remove_all(d);
}
