// The other side of the mutation check: `steptp equiv`'s checker (cli_checker_options) must accept legitimate
// steps. Its typed runs, S draws and degenerate-output rule once rejected 24 of 2,746 strategy candidates of the
// fuzzer's programs that the dataset's check accepted (bench/RESULTS.md, "Checker specificity"); 1 still is.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <nlohmann/json.hpp>

#include "interp/cli_checker.hpp"
#include "interp/equivalence.hpp"
#include "ir/task.hpp"
#include "interp_helpers.hpp"

namespace steptp::interp {
namespace {
using namespace testing;
using ir::DType;

/// Every candidate in tests/interp/checker_false_rejections/ (a strategy candidate of a fuzzer program, class R or
/// D, that passed the dataset's check and that the checker at 2d2f021 rejected: typed rounding of an additive
/// split, an f16 store that overflowed, an exp split overflowing f64 on an S draw, a sum that cancels to 1e-17 in
/// one order and to 0 in the other, an output made constant by f16 rounding; and one fuzzer mutant whose only
/// difference is an overflow) is accepted now, except the one marked "still_rejected" (a bool that an f32 underflow
/// flipped, the known limit).
// Slow (about a minute under ASan): runs in `make unit` only; the rules' own tests below run under ASan too.
TEST(CheckerSpecificitySlow, AcceptsTheLegitimateStepsItOnceRejected) {
  const std::filesystem::path dir =
      std::filesystem::path(STEPTP_SOURCE_DIR) / "tests" / "interp" / "checker_false_rejections";
  int n = 0, still = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    SCOPED_TRACE(e.path().filename().string());
    std::ifstream f(e.path());
    const auto j = nlohmann::json::parse(f);
    const ir::Task t = ir::parse_task(j.at("original").dump()), c = ir::parse_task(j.at("candidate").dump());
    const EquivResult r = check_equivalence(t, c, cli_checker_options());
    if (j.contains("still_rejected")) {
      EXPECT_FALSE(r.equivalent) << "fixed? then drop \"still_rejected\" from the file";
      EXPECT_NE(r.message.find("typed: candidate 1 vs original 0"), std::string::npos) << r.message;
      ++still;
    } else {
      EXPECT_TRUE(r.equivalent) << r.message << "\nonce: " << j.at("rejected_before").get<std::string>();
    }
    ++n;
  }
  EXPECT_EQ(n, 25);
  EXPECT_EQ(still, 1);
}

// An additive split in f16 (E = A + C - C against E = A): the original is an exact copy, so its own rounding
// allowance is 0, while the candidate's sum rounds. The candidate's rounding level is excused; a changed value is not.
TEST(CheckerSpecificity, TypedRoundingOfTheCandidateIsExcusedAndAChangedValueIsNot) {
  const std::vector<ir::KnownBuffer> k{in("A", {8}, DType::F16), in("C", {8}, DType::F16), out("E", {8}, DType::F16)};
  const auto t = make_task("L^{8}_{a=0}[E^{f16,g}_{a}=A^{f16,g}_{a};];", k);
  const auto c = make_task("L^{8}_{a=0}[E^{f16,g}_{a}=A^{f16,g}_{a}+C^{f16,g}_{a}-C^{f16,g}_{a};];", k);
  EquivOptions typed_w;
  typed_w.typed = true;
  typed_w.dists = {Distribution::Wide};
  typed_w.seeds = {0, 1, 2, 3, 4, 5, 6, 7};
  // the typed runs do differ (C up to 2^6 makes the f16 sum round), so the rule is what accepts them
  Interpreter it(t), ic(c);
  RunOptions ro;
  ro.typed = true;
  double worst = 0;
  for (std::uint64_t s : typed_w.seeds) {
    const TensorMap x = make_inputs(it, s, Distribution::Wide);
    const std::vector<double> a = ic.run(x, ro).at("E").data, b = it.run(x, ro).at("E").data;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]) - 1e-2 * std::fabs(b[i]));
  }
  EXPECT_GT(worst, 1e-3);  // beyond the f16 tolerance somewhere
  const EquivResult r = check_equivalence(t, c, typed_w);
  EXPECT_TRUE(r.equivalent) << r.message;
  EXPECT_TRUE(check_equivalence(t, c, cli_checker_options()).equivalent);
  const auto wrong = make_task("L^{8}_{a=0}[E^{f16,g}_{a}=A^{f16,g}_{a}+C^{f16,g}_{a}-C^{f16,g}_{a}+0.125;];", k);
  const EquivResult rw = check_equivalence(t, wrong, typed_w);
  EXPECT_FALSE(rw.equivalent);
  EXPECT_EQ(rw.code, "E504");
}

// compute_inline of an f16 intermediate: on S draws (|N| x 2^10) the original's f16 store overflows to inf while
// the inlined candidate stays finite; the element is judged on the two f64 values, which agree.
TEST(CheckerSpecificity, AnOverflowOfTheDeclaredTypesIsJudgedOnTheF64Values) {
  const std::vector<ir::KnownBuffer> k{in("A", {4}), out("D", {4})};
  const auto t = make_task("L^{4}_{a=0}[F^{f16,g}_{a}=A^{f32,g}_{a}*A^{f32,g}_{a};D^{f32,g}_{a}=F^{f16,g}_{a}*0.5;];", k);
  const auto c = make_task("L^{4}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{a}*A^{f32,g}_{a}*0.5;];", k);
  EquivOptions typed_s;
  typed_s.typed = true;
  typed_s.dists = {Distribution::Skewed};
  typed_s.seeds.clear();
  for (std::uint64_t s = 0; s < 16; ++s) typed_s.seeds.push_back(s);
  Interpreter it(t);
  RunOptions ro;
  ro.typed = true;
  int infinite = 0;
  for (std::uint64_t s : typed_s.seeds) {
    const TensorMap o = it.run(make_inputs(it, s, Distribution::Skewed), ro);
    for (double v : o.at("D").data) infinite += std::isinf(v);
  }
  EXPECT_GT(infinite, 0);  // the original does overflow on these draws
  const EquivResult r = check_equivalence(t, c, typed_s);
  EXPECT_TRUE(r.equivalent) << r.message;
  // a candidate that is wrong in f64 as well is still rejected on those draws
  const auto wrong = make_task("L^{4}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{a}*A^{f32,g}_{a}*0.75;];", k);
  EXPECT_FALSE(check_equivalence(t, wrong, typed_s).equivalent);
}

// STRATEGIES.md §6 range rule in f64: exp(A-C) against exp(A)*exp(0-C) on 64 elements gets the CLI's cheap
// checks, whose S draws (scale 2^10) overflow the split; those elements are not judged and the message says so.
// A NaN on ordinary draws is still a mismatch.
TEST(CheckerSpecificity, AnExpSplitThatOverflowsF64OnlyOnLargeDrawsIsAccepted) {
  const std::vector<ir::KnownBuffer> k{in("A", {64}), in("C", {64}), out("D", {64})};
  const auto t = make_task("L^{64}_{a=0}[D^{f32,g}_{a}=exp(A^{f32,g}_{a}-C^{f32,g}_{a});];", k);
  const auto c = make_task("L^{64}_{a=0}[D^{f32,g}_{a}=exp(A^{f32,g}_{a})*exp(0.0-C^{f32,g}_{a});];", k);
  const EquivResult r = check_equivalence(t, c, cli_checker_options());
  EXPECT_TRUE(r.equivalent) << r.message;
  EXPECT_NE(r.message.find("infinite or NaN in one program only on draws near exp's f64 overflow point, not judged"),
            std::string::npos)
      << r.message;
  const auto nan = make_task("L^{64}_{a=0}[D^{f32,g}_{a}=exp(A^{f32,g}_{a}-C^{f32,g}_{a})+log(0.0-abs(A^{f32,g}_{a}));];", k);
  const EquivResult rn = check_equivalence(t, nan, cli_checker_options());
  EXPECT_FALSE(rn.equivalent);
  EXPECT_NE(rn.message.find("seed 0, N"), std::string::npos) << rn.message;
}

}  // namespace
}  // namespace steptp::interp
