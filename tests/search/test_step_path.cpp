// Step path files (search/step_path.hpp, issue #49 item 4): both root forms, the file text round trip, replay by
// candidate id with each step's class, and bad files named by code and location.
#include <gtest/gtest.h>

#include "base/json_text.hpp"
#include "ir/printer.hpp"
#include "search/step_path.hpp"

namespace steptp::search {
namespace {

using core::ojson;

const char* kGemm = "B^{8}_{tx=0}L^{6}_{a=0}L^{4}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];";

ojson gemm_path(const ojson& steps) {
  return {{"workload", "Square_matrix_multiplication"}, {"params", {{"n", 8}}}, {"steps", steps}};
}

std::string error_of(const ojson& j) {
  try {
    (void)replay_steps(step_path_from_json(j, "p.json"), "p.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(StepPath, CatalogueRootAndReplayByCandidateId) {
  const StepPath p = step_path_from_json(
      gemm_path({{{"strategy", "loop_split"}, {"candidate", "loop_split@0/l0{outer=2}"}},
                 {{"candidate", "loop_reorder@0{p=2,q=3}"}}}),
      "p.json");
  EXPECT_EQ(p.workload, "Square_matrix_multiplication");
  EXPECT_EQ(ir::print_program(p.root.program),
            "B^{8}_{tx=0}L^{8}_{a=0}L^{8}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];");
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[1].strategy, "loop_reorder");  // taken from the candidate id when the step omits it
  const auto r = replay_steps(p, "p.json");
  ASSERT_EQ(r.size(), 2u);
  // split tx into 2 x 4, then swap the inner loops a and c
  EXPECT_EQ(ir::print_program(r[0].after.program),
            "L^{2}_{d=0}B^{4}_{tx=0}L^{8}_{a=0}L^{8}_{c=0}[D^{f32,g}_{d*4+tx,a}=D^{f32,g}_{d*4+tx,a}+A^{f32,g}_{d*4+tx,c}*"
            "C^{f32,g}_{c,a};];");
  EXPECT_EQ(r[0].cls, 'E');
  EXPECT_EQ(ir::print_program(r[1].after.program),
            "L^{2}_{d=0}B^{4}_{tx=0}L^{8}_{c=0}L^{8}_{a=0}[D^{f32,g}_{d*4+tx,a}=D^{f32,g}_{d*4+tx,a}+A^{f32,g}_{d*4+tx,c}*"
            "C^{f32,g}_{c,a};];");
  EXPECT_EQ(path_class(r), r[1].cls);
  EXPECT_EQ(path_class({}), 'E');
}

TEST(StepPath, TaskRootAndTextRoundTrip) {
  const ojson task{{"workload", "my_gemm"},
                   {"suite", "custom"},
                   {"known",
                    {{{"name", "A"}, {"role", "input"}, {"dtype", "f32"}, {"shape", {8, 4}}},
                     {{"name", "C"}, {"role", "input"}, {"dtype", "f32"}, {"shape", {4, 6}}},
                     {{"name", "D"}, {"role", "output"}, {"dtype", "f32"}, {"shape", {8, 6}}}}},
                   {"leir", kGemm}};
  const ojson j{{"task", task},
                {"steps", {{{"strategy", "loop_reorder"}, {"candidate", "loop_reorder@0{p=1,q=2}"}}}},
                {"found_by", {{"command", "steptp search"}}},
                {"speedup", 1.5}};
  const StepPath p = step_path_from_json(j, "t.json");
  EXPECT_EQ(p.workload, "my_gemm");
  EXPECT_TRUE(p.params.is_null());
  EXPECT_EQ(p.meta["speedup"], 1.5);  // members it does not read are kept
  EXPECT_EQ(p.to_json(), j);
  const std::string text = p.to_text();
  EXPECT_EQ(ojson::parse(text), j);
  EXPECT_NE(text.find("\n    {\"strategy\": \"loop_reorder\", \"candidate\": \"loop_reorder@0{p=1,q=2}\"}\n  ]"),
            std::string::npos)
      << text;
  EXPECT_EQ(ir::print_program(replay_steps(p, "t.json")[0].after.program),
            "B^{8}_{tx=0}L^{4}_{c=0}L^{6}_{a=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];");
}

TEST(StepPath, BadFilesAreNamedByCodeAndLocation) {
  EXPECT_EQ(error_of(ojson::array()), "S005 at p.json: not a JSON object");
  EXPECT_EQ(error_of({{"steps", ojson::array()}}),
            "S005 at p.json: no root: give \"workload\" (with \"params\") or \"task\"");
  EXPECT_EQ(error_of({{"workload", "ReLU"}, {"task", ojson::object()}, {"steps", ojson::array()}}),
            "S005 at p.json: give the root as \"workload\" (with \"params\") or as \"task\", not both");
  EXPECT_EQ(error_of({{"workload", "Square_matrix_multiplication"}}), "S005 at p.json: steps: missing, or not an array");
  EXPECT_EQ(error_of(gemm_path({{{"candidate", 3}}})), "S005 at p.json: steps[0]: candidate: missing, or not a string");
  ojson bad_param = gemm_path(ojson::array());
  bad_param["params"]["n"] = "eight";
  EXPECT_EQ(error_of(bad_param), "S005 at p.json: params.n: not an integer");
  EXPECT_EQ(error_of(gemm_path({{{"candidate", "loop_split@0/l7{outer=2}"}}})),
            "S001 at p.json: steps[0] (loop_split@0/l7{outer=2}): stale site: loop_split@0/l7{outer=2} is not a site of "
            "this task");
  EXPECT_EQ(error_of(gemm_path({{{"candidate", "no id"}}})),
            "S002 at p.json: steps[0] (no id): malformed candidate id (expected strategy@site{name=value,...})");
  EXPECT_EQ(error_of(gemm_path({{{"strategy", "loop_split"}, {"candidate", "loop_reorder@0{p=1,q=2}"}}})),
            "S005 at p.json: steps[0] (loop_reorder@0{p=1,q=2}): \"strategy\" loop_split is not the candidate's "
            "strategy");
  ojson both = gemm_path(ojson::array());
  both["task"] = ojson::object();
  EXPECT_EQ(error_of(both),
            "S005 at p.json: give the root as \"workload\" (with \"params\") or as \"task\", not both");
  // an embedded task's own error keeps its code and is located in the file
  EXPECT_EQ(error_of({{"task", ojson::object()}, {"steps", ojson::array()}}),
            "E101 at p.json: missing members \"workload\", \"suite\", \"known\", \"leir\" (task, at $)");
  EXPECT_EQ(error_of(gemm_path({{{"candidate", "no_such_strategy@0{p=1}"}}})),
            "S004 at p.json: steps[0] (no_such_strategy@0{p=1}): unknown strategy 'no_such_strategy' (see `steptp "
            "strategies list`)");
  EXPECT_EQ(error_of({{"workload", "NoSuchWorkload"}, {"steps", ojson::array()}}),
            "LEIR-E109 at p.json: workload: unknown workload (see `steptp workloads list`): 'NoSuchWorkload'");
}

}  // namespace
}  // namespace steptp::search
