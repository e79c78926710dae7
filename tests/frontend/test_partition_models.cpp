// Task extraction on real PyTorch models (issue #14): tests/models/export_models.py exports torchvision's resnet18
// and mobilenet_v2 and a torch.nn.TransformerEncoderLayer; each partitions into valid tasks that run in the
// interpreter on the model's weights, with the expected families and dedup weights. Skipped (with the reason) when
// the script or its Python packages are missing.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "frontend/onnx_import.hpp"
#include "frontend/partition.hpp"
#include "ir/task.hpp"
#include "partition_test_util.hpp"

namespace fs = std::filesystem;
using namespace steptp;

namespace {

TEST(PartitionModelsSlow, RealModelsSplitIntoValidRunnableTasks) {
  const fs::path script = fs::path(STEPTP_SOURCE_DIR) / "tests/models/export_models.py";
  if (!fs::exists(script)) GTEST_SKIP() << script << " is not in this checkout";
  const fs::path dir = fs::temp_directory_path() / ("steptp_partition_models_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path log = dir / "export.log";
  int rc = std::system(("/usr/bin/python3 " + script.string() + " " + dir.string() +
                        " resnet18 mobilenet_v2 encoder_layer >" + log.string() + " 2>&1")
                           .c_str());
  rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  if (rc == 3) {
    std::string why = ir::read_file(log.string());
    fs::remove_all(dir);
    GTEST_SKIP() << "export_models.py: " << why;
  }
  ASSERT_EQ(rc, 0) << ir::read_file(log.string());

  std::map<std::string, frontend::Partition> parts;
  for (const char* name : {"resnet18", "mobilenet_v2", "encoder_layer"}) {
    const auto t0 = std::chrono::steady_clock::now();
    frontend::OnnxImport imp = frontend::import_onnx((dir / name / "model.onnx").string());
    const auto t1 = std::chrono::steady_clock::now();
    frontend::Partition p = frontend::partition_import(imp, name);
    const auto t2 = std::chrono::steady_clock::now();
    const double secs = std::chrono::duration<double>(t2 - t0).count();
    const double part_secs = std::chrono::duration<double>(t2 - t1).count();
    std::size_t stmts = 0, weights = 0, max_stmts = 0;
    for (const auto& t : p.tasks) {
      stmts += t.statements;
      max_stmts = std::max(max_stmts, t.statements);
      weights += std::size_t(t.weight);
      for (const auto& out : test::run_extracted(t))
        for (double v : out.data) ASSERT_TRUE(std::isfinite(v)) << t.task.workload;
    }
    EXPECT_EQ(weights, p.groups) << name;  // every group is one occurrence of one distinct task
    std::cout << fmt::format("{}: {} nests, {} groups -> {} distinct tasks ({} statements, at most {} in one); "
                             "import + partition {:.2f} s (partition {:.3f} s)\n",
                             name, imp.task.program.nests.size(), p.groups, p.tasks.size(), stmts, max_stmts, secs,
                             part_secs);
    parts.emplace(name, std::move(p));
  }
  std::map<std::string, std::map<std::string, int>> fam;  // model -> family -> distinct tasks
  for (const auto& [name, p] : parts)
    for (const auto& t : p.tasks) ++fam[name][t.family];
  // resnet18 (BN folded into the convs by the exporter): conv+relu / conv+add+relu tasks, max pool, global pool
  // with its flatten, the classifier Gemm; the repeated blocks of each stage dedup.
  EXPECT_EQ(fam["resnet18"], (std::map<std::string, int>{{"conv", fam["resnet18"]["conv"]}, {"pool", 2}, {"matmul", 1}}));
  EXPECT_LT(parts.at("resnet18").tasks.size(), parts.at("resnet18").groups);
  // mobilenet_v2: conv+clip tasks, the pool and the classifier
  EXPECT_EQ(fam["mobilenet_v2"]["pool"], 1);
  EXPECT_EQ(fam["mobilenet_v2"]["matmul"], 1);
  EXPECT_LT(parts.at("mobilenet_v2").tasks.size(), parts.at("mobilenet_v2").groups);
  // the encoder layer: one attention core, its two LayerNorms are one norm task of weight 2
  EXPECT_EQ(fam["encoder_layer"]["attention"], 1);
  EXPECT_EQ(fam["encoder_layer"]["norm"], 1);
  for (const auto& t : parts.at("encoder_layer").tasks) {
    if (t.family == "norm") {
      EXPECT_EQ(t.weight, 2);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
