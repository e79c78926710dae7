// Equivalence checking (LEIR.md §11) and input generation (§11 step 2).
#include <algorithm>
#include <cmath>
#include <string>
#include <nlohmann/json.hpp>

#include "equiv/equivalence.hpp"
#include "ir/task.hpp"
#include "interp/interp_helpers.hpp"

namespace steptp::equiv {
namespace {
using namespace interp::testing;
using interp::RunOptions;
using ir::DType;

const char* kMatmul =
    "B^{8}_{tx=0}L^{8}_{a=0}L^{8}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];";
std::vector<ir::KnownBuffer> matmul_known() { return {in("A", {8, 8}), in("C", {8, 8}), out("D", {8, 8})}; }

Result check(const std::string& a, const std::string& b, std::vector<ir::KnownBuffer> known,
                  Options opt = {}) {
  return check_equivalence(make_task(a, known), make_task(b, known), opt);
}

TEST(Equivalence, HandSplitLoopIsAccepted) {
  auto r = check(kMatmul,
                 "B^{8}_{tx=0}L^{8}_{a=0}L^{2}_{c=0}L^{4}_{d=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c*4+d}*"
                 "C^{f32,g}_{c*4+d,a};];",
                 matmul_known());
  EXPECT_TRUE(r.equivalent) << r.message;
  EXPECT_EQ(r.code, "");
  EXPECT_EQ(r.max_abs_err, 0.0);  // same summation order
}

TEST(Equivalence, ReorderedSumIsWithinToleranceButNotExact) {
  // typed: f32 additions round, so the summation order shows (in the default f64 mode these sums are exact)
  Options typed;
  typed.typed = true;
  const std::vector<ir::KnownBuffer> k{in("A", {4, 64}), out("S", {4})};
  const std::string a = "B^{4}_{tx=0}L^{64}_{a=0}[S^{f32,g}_{tx}=S^{f32,g}_{tx}+A^{f32,g}_{tx,a};];";
  const std::string b = "B^{4}_{tx=0}L^{64}_{a=0}[S^{f32,g}_{tx}=S^{f32,g}_{tx}+A^{f32,g}_{tx,63-a};];";
  auto r = check(a, b, k, typed);
  EXPECT_TRUE(r.equivalent) << r.message;
  EXPECT_GT(r.max_abs_err, 0.0);
  Options exact = typed;
  exact.exact = true;
  auto e = check(a, b, k, exact);
  EXPECT_FALSE(e.equivalent);
  EXPECT_EQ(e.code, "E504");
}

TEST(Equivalence, OffByOneMaskIsRejected) {
  const std::vector<ir::KnownBuffer> k{in("A", {2, 8}), out("C", {2, 8})};
  auto r = check(
      "B^{2}_{tx=0}L^{8}_{a=0}L^{8}_{c=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+if_then_else(c<=a,A^{f32,g}_{tx,c},0);];",
      "B^{2}_{tx=0}L^{8}_{a=0}L^{8}_{c=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+if_then_else(c<a,A^{f32,g}_{tx,c},0);];", k);
  EXPECT_FALSE(r.equivalent);
  EXPECT_EQ(r.code, "E504");
  EXPECT_TRUE(r.has_mismatch);
  EXPECT_EQ(r.first_mismatch.output, "C");
  EXPECT_EQ(r.first_mismatch.index, 0);  // C[0,0]: original A[0,0], candidate 0
  EXPECT_EQ(r.first_mismatch.seed, 0u);
  EXPECT_EQ(r.first_mismatch.a, 0.0);
}

TEST(Equivalence, OffByOneReductionExtentIsRejected) {
  auto r = check(kMatmul,
                 "B^{8}_{tx=0}L^{8}_{a=0}L^{7}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];",
                 matmul_known());
  EXPECT_EQ(r.code, "E504");
}

TEST(Equivalence, SwappedSubtractionOperandsAreRejected) {
  const std::vector<ir::KnownBuffer> k{in("A", {16}), in("C", {16}), out("D", {16})};
  auto r = check("B^{16}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}-C^{f32,g}_{tx};];",
                 "B^{16}_{tx=0}[D^{f32,g}_{tx}=C^{f32,g}_{tx}-A^{f32,g}_{tx};];", k);
  EXPECT_EQ(r.code, "E504");
  EXPECT_NEAR(r.max_rel_err, 2.0, 1e-12);  // a = -b everywhere
}

TEST(Equivalence, DroppedReductionInitIsRejected) {
  // an earlier write of D blocks the initialiser (rule 2): the sum starts at A[tx,0] instead of 0
  const std::vector<ir::KnownBuffer> k{in("A", {4, 4}), out("D", {4})};
  const std::string a = "B^{4}_{tx=0}L^{4}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a};];";
  auto r = check(a, "B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx,0};];B^{4}_{tx=0}L^{4}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a};];", k);
  EXPECT_EQ(r.code, "E504");
  // the operands of + swapped: no initialiser matches (§8.4 rule 3), the accumulator is read uninitialised
  auto u = check(a, "B^{4}_{tx=0}L^{4}_{a=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx,a}+D^{f32,g}_{tx};];", k);
  EXPECT_EQ(u.code, "E503");
  EXPECT_NE(u.message.find("E301"), std::string::npos) << u.message;
}

TEST(Equivalence, DegenerateCandidatesAreRejected) {
  const std::vector<ir::KnownBuffer> k{in("A", {16}), out("D", {16})};
  const std::string a = "B^{16}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}*1e-07;];";  // within atol of 0
  auto z = check(a, "B^{16}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}*0;];", k);
  EXPECT_EQ(z.code, "E505");
  EXPECT_NE(z.message.find("all zeros"), std::string::npos) << z.message;
  auto c = check(a, "B^{16}_{tx=0}[D^{f32,g}_{tx}=1e-07;];", k);
  EXPECT_EQ(c.code, "E505");
  EXPECT_NE(c.message.find("constant"), std::string::npos) << c.message;
  // not degenerate when the original has the same property
  auto same = check("B^{16}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}*0;];", "B^{16}_{tx=0}[D^{f32,g}_{tx}=0;];", k);
  EXPECT_TRUE(same.equivalent) << same.message;
}

TEST(Equivalence, SignatureMismatchIsE501) {
  auto a = make_task("B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx};];", {in("A", {4}), out("D", {4})});
  auto b = make_task("B^{4}_{tx=0}[D^{f32,g}_{tx}=E^{f32,g}_{tx};];", {in("E", {4}), out("D", {4})});
  auto r = check_equivalence(a, b);
  EXPECT_EQ(r.code, "E501");
  EXPECT_NE(r.message.find("name"), std::string::npos) << r.message;
  auto c = make_task("B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx};];", {in("A", {4}, DType::F64), out("D", {4})});
  EXPECT_EQ(check_equivalence(a, c).code, "E501");
  EXPECT_EQ(check_equivalence(a, c).message, "known signatures differ: known[0] (A) differs in dtype (f32 vs f64)");
  auto d = make_task("B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{0,tx};];", {in("A", {1, 4}), out("D", {4})});
  EXPECT_EQ(check_equivalence(a, d).message, "known signatures differ: known[0] (A) differs in shape ([4] vs [1,4])");
}

TEST(Equivalence, FailingOriginalIsInconclusiveE502AndFailingCandidateE503) {
  const std::vector<ir::KnownBuffer> k{in("A", {4}), out("D", {4})};
  const std::string good = "B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx};];";
  const std::string bad = "L^{4}_{a=0}[D^{f32,g}_{a}=M^{f32,g}_{a};M^{f32,g}_{a}=A^{f32,g}_{a};];";  // E301
  auto r = check(bad, good, k);
  EXPECT_EQ(r.code, "E502");
  EXPECT_FALSE(r.equivalent);
  auto c = check(good, bad, k);
  EXPECT_EQ(c.code, "E503");
  EXPECT_NE(c.message.find("E301"), std::string::npos) << c.message;
  // an invalid candidate (E201: writes an input) is E503 too
  auto v = check(good, "B^{4}_{tx=0}[A^{f32,g}_{tx}=0;D^{f32,g}_{tx}=1;];", k);
  EXPECT_EQ(v.code, "E503");
}

TEST(Equivalence, NanRules) {
  const std::vector<ir::KnownBuffer> k{in("A", {8}), out("D", {8})};
  // log of negative normal inputs gives NaN on both sides: NaN pairs match
  auto r = check("B^{8}_{tx=0}[D^{f32,g}_{tx}=log(A^{f32,g}_{tx});];",
                 "B^{8}_{tx=0}[D^{f32,g}_{tx}=log(A^{f32,g}_{tx}*1);];", k);
  EXPECT_TRUE(r.equivalent) << r.message;
  // NaN on one side only is a mismatch
  auto m = check("B^{8}_{tx=0}[D^{f32,g}_{tx}=log(A^{f32,g}_{tx});];",
                 "B^{8}_{tx=0}[D^{f32,g}_{tx}=log(abs(A^{f32,g}_{tx}));];", k);
  EXPECT_EQ(m.code, "E504");
}

TEST(Equivalence, ToJsonHasAllFields) {
  auto r = check("B^{16}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}-C^{f32,g}_{tx};];",
                 "B^{16}_{tx=0}[D^{f32,g}_{tx}=C^{f32,g}_{tx}-A^{f32,g}_{tx};];",
                 {in("A", {16}), in("C", {16}), out("D", {16})});
  auto j = nlohmann::json::parse(r.to_json());
  EXPECT_EQ(j["equivalent"], false);
  EXPECT_EQ(j["code"], "E504");
  EXPECT_EQ(j["first_mismatch"]["output"], "D");
  EXPECT_TRUE(j["first_mismatch"]["dist"] == "N" || j["first_mismatch"]["dist"] == "U");
  EXPECT_GT(j["max_abs_err"].get<double>(), 0.0);
  EXPECT_TRUE(j.contains("max_rel_at"));
}

TEST(Equivalence, Tolerances) {
  EXPECT_EQ(tolerance(DType::F64), (std::pair<double, double>{1e-9, 1e-12}));
  EXPECT_EQ(tolerance(DType::F32), (std::pair<double, double>{1e-4, 1e-5}));
  EXPECT_EQ(tolerance(DType::F16), (std::pair<double, double>{1e-2, 1e-3}));
  EXPECT_EQ(tolerance(DType::BF16), (std::pair<double, double>{1e-2, 1e-3}));
  EXPECT_EQ(tolerance(DType::I64), (std::pair<double, double>{0.0, 0.0}));
}

// ---- §11 step 2 inputs (values cross-checked with an independent Python SplitMix64)

TEST(MakeInputs, NormalAndUniformFloats) {
  auto t = make_task("B^{3}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx};];", {in("A", {3}), out("D", {3})});
  auto n = make_inputs(t, 0, Distribution::Normal);
  ASSERT_EQ(n.count("D"), 0u);
  expect_data(n.at("A"), {-1.8839083909988403, 0.22760793566703796, -0.22143788635730743});
  auto u = make_inputs(t, 0, Distribution::Uniform);
  expect_data(u.at("A"), {1.0665615797042847, 1.2457817792892456, 1.4710026979446411});
}

TEST(MakeInputs, GatherIndicesUseTheSmallestIndexedExtent) {
  auto t = make_task("B^{5}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{I^{i64,g}_{tx}}+R^{f32,g}_{I^{i64,g}_{tx}};];",
                     {in("I", {5}, DType::I64), in("A", {12}), in("R", {10}), out("C", {5})});
  auto v = make_inputs(t, 1, Distribution::Uniform);
  expect_data(v.at("I"), {1, 7, 6, 0, 2});
  auto k = make_task("B^{5}_{tx=0}[C^{i64,g}_{tx}=K^{i64,g}_{tx}*2;];", {in("K", {5}, DType::I64), out("C", {5}, DType::I64)});
  expect_data(make_inputs(k, 1, Distribution::Normal).at("K"), {1, 2, 1, 2, -2});
  // the compiled overload agrees
  Interpreter it(t);
  expect_data(make_inputs(it, 1, Distribution::Uniform).at("I"), {1, 7, 6, 0, 2});
}

TEST(MakeInputs, WideAndLiteralDirected) {
  // W: SplitMix64(2^63+seed), sign from u1, magnitude 2^(10*u2-4); integers floor(33*U01)-16
  auto t = make_task("B^{3}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx};];", {in("A", {3}), out("D", {3})});
  expect_data(make_inputs(t, 0, Distribution::Wide).at("A"), {-12.757611274719238, -0.6991163492202759, -0.5094815492630005});
  auto i = make_task("B^{4}_{tx=0}[C^{i32,g}_{tx}=I^{i32,g}_{tx}*2;];", {in("I", {4}, DType::I32), out("C", {4}, DType::I32)});
  expect_data(make_inputs(i, 2, Distribution::Wide).at("I"), {12, -2, 6, 12});
  // K: SplitMix64(2^62+seed); literal magnitudes {0, 1, 2.5, 3} (integers {0, 1, 3}), a third of them replaced by
  // c/d, |c-d| or c+d of two (3.5 = 2.5+1; integers 2 = |3-1|, 4 = 3+1); a quarter N / [-4,4]
  auto k = make_task("B^{4}_{tx=0}[D^{f32,g}_{tx}=max(A^{f32,g}_{tx},2.5)+K^{i32,g}_{tx}*3;];",
                     {in("A", {4}), in("K", {4}, DType::I32), out("D", {4})});
  EXPECT_EQ(literal_magnitudes(k.program), (std::vector<double>{0.0, 1.0, 2.5, 3.0}));
  const auto kin = make_inputs(k, 1, Distribution::Literal);
  expect_data(kin.at("A"), {3.5, 0.0, 0.96875, -2.578125});
  expect_data(kin.at("K"), {2, -4, 0, -4});
  EXPECT_STREQ(distribution_name(Distribution::Wide), "W");
  EXPECT_STREQ(distribution_name(Distribution::Literal), "K");
}

// S: SplitMix64(2^61+seed); per buffer one sign pattern (half zeros, all <= 0, all >= 0, mostly <= 0, mostly >= 0,
// one value) and one scale (|N|, 2^[-4,6), |N| 2^-10, |N| 2^10; integers [0,4], [0,16], 0, [0,64]); bools all
// false, all true, 1/8 or 7/8 true, or half.
TEST(MakeInputs, SkewedSignPatternsPerBuffer) {
  auto t = make_task("B^{6}_{tx=0}[D^{f32,g}_{tx}=if_then_else(B^{bool,g}_{tx},A^{f32,g}_{tx},I^{i32,g}_{tx});];",
                     {in("A", {6}), in("I", {6}, DType::I32), in("B", {6}, DType::Bool), out("D", {6})});
  const auto s0 = make_inputs(t, 0, Distribution::Skewed);  // A mostly >= 0 at scale 2^10; I one value; B all true
  expect_data(s0.at("A"), {1565.6793212890625, 414.13748168945312, 155.66325378417969, 642.8890380859375,
                           -798.48529052734375, 839.16253662109375});
  expect_data(s0.at("I"), {-1, -1, -1, -1, -1, -1});
  expect_data(s0.at("B"), {1, 1, 1, 1, 1, 1});
  const auto s3 = make_inputs(t, 3, Distribution::Skewed);  // A all <= 0 at scale 2^10; I zero
  expect_data(s3.at("A"), {-1193.8475341796875, -160.71266174316406, -1242.88037109375, -1067.2723388671875,
                           -136.10018920898438, -120.51167297363281});
  expect_data(s3.at("I"), {0, 0, 0, 0, 0, 0});
  // Over 300 seeds every pattern occurs for each buffer, and no element is -0.
  bool all_neg = false, all_pos = false, one_value = false, zeros_and_both = false, tiny = false, huge = false;
  bool all_false = false, all_true = false;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const auto v = make_inputs(t, seed, Distribution::Skewed);
    for (const char* name : {"A", "I"}) {
      const auto& d = v.at(name).data;
      const auto neg = std::count_if(d.begin(), d.end(), [](double x) { return x < 0; });
      const auto pos = std::count_if(d.begin(), d.end(), [](double x) { return x > 0; });
      const auto zero = std::count(d.begin(), d.end(), 0.0);
      for (double x : d) EXPECT_FALSE(x == 0.0 && std::signbit(x)) << "seed " << seed;
      all_neg |= neg == 6;
      all_pos |= pos == 6;
      one_value |= std::all_of(d.begin(), d.end(), [&](double x) { return x == d[0]; }) && d[0] != 0.0;
      zeros_and_both |= zero > 0 && neg > 0 && pos > 0;
      tiny |= std::string(name) == "A" && std::all_of(d.begin(), d.end(), [](double x) { return std::fabs(x) < 0.01; });
      huge |= std::string(name) == "A" && std::all_of(d.begin(), d.end(), [](double x) { return std::fabs(x) > 16; });
    }
    const auto& b = v.at("B").data;
    all_false |= std::count(b.begin(), b.end(), 0.0) == 6;
    all_true |= std::count(b.begin(), b.end(), 1.0) == 6;
  }
  EXPECT_TRUE(all_neg && all_pos && one_value && zeros_and_both && tiny && huge && all_false && all_true);
  EXPECT_STREQ(distribution_name(Distribution::Skewed), "S");
  EXPECT_EQ(parse_distributions("NS"), (std::vector<Distribution>{Distribution::Normal, Distribution::Skewed}));
}

// An `or` over 64 comparisons is true as soon as one element of its row of C is positive, so whether D passes its
// threshold shows only when all 64 are <= 0: element-wise independent draws never get there (1,000 seeds x N, U,
// W, K pass), distribution S (all <= 0 for one buffer in six draws) does, and the further draws of the CLI's
// checks include it (the fuzzer's seed-51248 miss, reduced; issue #16).
TEST(Equivalence, SkewedDrawsUnmaskAnOrOverManyComparisons) {
  const std::vector<ir::KnownBuffer> k{in("D", {}), in("C", {2, 64}), out("H", {2}, DType::Bool)};
  auto t = make_task("L^{2}_{a=0}L^{64}_{c=0}[H^{bool,g}_{a}=max(H^{bool,g}_{a},log(abs(D^{f32,g})+1.0)>0.0|"
                     "C^{f32,g}_{a,c}>0.0);];", k);
  auto m = make_task("L^{2}_{a=0}L^{64}_{c=0}[H^{bool,g}_{a}=max(H^{bool,g}_{a},log(abs(D^{f32,g})+1.0)>1.0|"
                     "C^{f32,g}_{a,c}>0.0);];", k);
  Options many;
  many.seeds.clear();
  for (std::uint64_t s = 0; s < 1000; ++s) many.seeds.push_back(s);
  EXPECT_TRUE(check_equivalence(t, m, many).equivalent);
  Options cli;
  cli.adaptive.extra_seeds = kAdaptiveExtraSeeds;
  cli.cheap.extra_seeds = kCheapExtraSeeds;
  const Result r = check_equivalence(t, m, cli);
  EXPECT_FALSE(r.equivalent);
  EXPECT_NE(r.message.find(", S"), std::string::npos) << r.message;  // found by an S draw
  cli.skewed_further_draws = false;
  EXPECT_TRUE(check_equivalence(t, m, cli).equivalent);
  cli.skewed_further_draws = true;
  EXPECT_TRUE(check_equivalence(t, t, cli).equivalent);
}

// interpolate_inputs (boundary draws): the ends are the two draws exactly, floats and integers lie on the segment
// (integers rounded, a gather index stays in range), and each bool switches once at a point of its own.
TEST(MakeInputs, InterpolateInputsBetweenTwoDraws) {
  const std::vector<ir::KnownBuffer> k{in("A", {3}), in("I", {2}, DType::I32), in("G", {2}, DType::I64),
                                       in("B", {64}, DType::Bool), out("D", {3})};
  auto t = make_task("L^{3}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{G^{i64,g}_{a%2}}*I^{i32,g}_{a%2}+B^{bool,g}_{a};];", k);
  TensorMap x0, x1;
  x0["A"] = Tensor{DType::F32, {3}, {1.0, -2.0, 0.5}};
  x1["A"] = Tensor{DType::F32, {3}, {3.0, 2.0, 0.5}};
  x0["I"] = Tensor{DType::I32, {2}, {-4, 4}};
  x1["I"] = Tensor{DType::I32, {2}, {4, 1}};
  x0["G"] = Tensor{DType::I64, {2}, {0, 2}};
  x1["G"] = Tensor{DType::I64, {2}, {2, 0}};
  x0["B"] = Tensor{DType::Bool, {64}, std::vector<double>(64, 0.0)};
  x1["B"] = Tensor{DType::Bool, {64}, std::vector<double>(64, 1.0)};
  const TensorMap a = interpolate_inputs(x0, x1, 0.0, 7), b = interpolate_inputs(x0, x1, 1.0, 7);
  for (const char* name : {"A", "I", "G", "B"}) {
    EXPECT_EQ(a.at(name).data, x0.at(name).data) << name;
    EXPECT_EQ(b.at(name).data, x1.at(name).data) << name;
  }
  const TensorMap q = interpolate_inputs(x0, x1, 0.25, 7);
  expect_data(q.at("A"), {1.5, -1.0, 0.5});
  expect_data(q.at("I"), {-2, 3});  // -4 + 0.25 * 8 = -2; 4 - 0.75 = 3.25 -> 3
  expect_data(q.at("G"), {1, 2});   // 0.5 -> 1 (half away from zero), 1.5 -> 2: in [0, 3)
  // Each bool switches from false to true exactly once as t grows, at a point of its own.
  std::vector<double> switched(64, -1.0);
  for (int step = 1; step <= 256; ++step) {
    const double u = step / 256.0;
    const TensorMap at_u = interpolate_inputs(x0, x1, u, 7);
    const auto& v = at_u.at("B").data;
    for (std::size_t e = 0; e < 64; ++e) {
      if (v[e] == 1.0 && switched[e] < 0) switched[e] = u;
      if (switched[e] >= 0) {
        EXPECT_EQ(v[e], 1.0) << "bool " << e << " switched back at t=" << u;
      }
    }
  }
  std::sort(switched.begin(), switched.end());
  EXPECT_GT(switched.front(), 0.0);
  EXPECT_LT(std::unique(switched.begin(), switched.end()) - switched.begin(), 64);  // 256 steps: some share one
  EXPECT_GT(std::unique(switched.begin(), switched.end()) - switched.begin(), 32);
  // Another salt, other switch points.
  EXPECT_NE(interpolate_inputs(x0, x1, 0.5, 7).at("B").data, interpolate_inputs(x0, x1, 0.5, 8).at("B").data);
  TensorMap extra = x0;
  extra["Q"] = x0.at("A");
  EXPECT_THROW(interpolate_inputs(extra, x1, 0.5, 1), std::invalid_argument);  // Q missing from the second
  extra = x1;
  extra["A"].data.pop_back();
  EXPECT_THROW(interpolate_inputs(x0, extra, 0.5, 1), std::invalid_argument);  // A differs in size
}

// `exp(0-|A|)>1e-30` against `exp(1-|A|)>1e-30` (after the fuzzer's mutant of seed 50581, issue #16, which
// compared with 0 and so differed only where exp underflows: now equivalent by the range rule): the two differ only
// for |A| in (69.08, 70.08], a band no draw of the CLI's checker meets. The boundary draws bisect the point where an
// output flips along a segment between two draws (one with a wide magnitude) and compare both programs on either
// side of it.
TEST(Equivalence, BoundaryDrawsLocateANarrowThresholdBand) {
  const std::vector<ir::KnownBuffer> k{in("A", {6}), out("D", {6}, DType::Bool)};
  auto t = make_task("B^{6}_{tx=0}[E^{f32,s}=exp(0.0-abs(A^{f32,g}_{tx}));D^{bool,g}_{tx}=E^{f32,s}>1e-30;];", k);
  auto m = make_task("B^{6}_{tx=0}[E^{f32,s}=exp(1.0-abs(A^{f32,g}_{tx}));D^{bool,g}_{tx}=E^{f32,s}>1e-30;];", k);
  Options cli;
  cli.adaptive.extra_seeds = kAdaptiveExtraSeeds;
  cli.cheap.extra_seeds = kCheapExtraSeeds;
  const Result without = check_equivalence(t, m, cli);
  EXPECT_TRUE(without.equivalent) << without.message;
  EXPECT_EQ(without.boundary_pairs, 0u);
  cli.boundary.pairs = kCheapBoundaryPairs;
  const Result r = check_equivalence(t, m, cli);
  ASSERT_FALSE(r.equivalent);
  EXPECT_EQ(r.code, "E504") << r.message;
  ASSERT_TRUE(r.has_mismatch);
  const ErrLocation& at = r.first_mismatch;
  EXPECT_GT(at.t, 0.0);
  EXPECT_LT(at.t, 1.0);
  EXPECT_NE(at.t, 0.5);  // not the middle draw: a point the bisection found
  EXPECT_NE(at.dist, at.to);
  EXPECT_NE(r.message.find(draw_label(at)), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("->"), std::string::npos) << r.message;
  // The mismatching draw itself: rebuild it from the location and see the two programs differ there.
  const std::vector<double> lits = comparison_literals(t.program, m.program);
  const TensorMap x = interpolate_inputs(make_inputs(t, at.seed, at.dist, lits), make_inputs(t, at.seed, at.to, lits),
                                         at.t, at.seed);
  RunOptions ro;
  ro.typed = at.typed;
  const double a = Interpreter(m).run(x, ro).at("D").data[static_cast<std::size_t>(at.index)];
  const double b = Interpreter(t).run(x, ro).at("D").data[static_cast<std::size_t>(at.index)];
  EXPECT_EQ(a, at.a);
  EXPECT_EQ(b, at.b);
  EXPECT_NE(a, b);
  EXPECT_NEAR(std::fabs(x.at("A").data[static_cast<std::size_t>(at.index)]), 69.6, 0.5);  // in (69.08, 70.08]
  // Equivalent programs stay equivalent; the message counts the pairs.
  const Result self = check_equivalence(t, t, cli);
  EXPECT_TRUE(self.equivalent);
  EXPECT_EQ(self.boundary_pairs, kCheapBoundaryPairs);
  EXPECT_NE(self.message.find(std::to_string(kCheapBoundaryPairs) + " boundary pair(s), untyped and typed"),
            std::string::npos)
      << self.message;
  EXPECT_EQ(nlohmann::json::parse(self.to_json()).at("boundary_pairs"), kCheapBoundaryPairs);
}

// A mutant that differs only past a threshold N(0,1) never reaches (`A>5` -> `A>6` in a bool output): N and U
// miss it, K (half of its literal draws on 5 and 6, the constants where the programs differ) catches it (issue
// #16's mutation check).
TEST(Equivalence, LiteralDirectedDrawsCatchThresholdMutants) {
  const std::vector<ir::KnownBuffer> k{in("A", {16}), out("D", {16}, DType::Bool)};
  auto t = make_task("B^{16}_{tx=0}[D^{bool,g}_{tx}=A^{f32,g}_{tx}>5;];", k);
  auto m = make_task("B^{16}_{tx=0}[D^{bool,g}_{tx}=A^{f32,g}_{tx}>6;];", k);
  EXPECT_EQ(comparison_literals(t.program, m.program), (std::vector<double>{0, 1, 5, 6, 5, 6, 5, 6}));
  Options nu;
  nu.dists = {Distribution::Normal, Distribution::Uniform};
  EXPECT_TRUE(check_equivalence(t, m, nu).equivalent);
  Options lit;
  lit.dists = {Distribution::Literal};
  const Result r = check_equivalence(t, m, lit);
  EXPECT_FALSE(r.equivalent);
  EXPECT_EQ(r.code, "E504") << r.message;  // elements in (5, 6] (5, 5 * (1 + 2^-5)) differ
  EXPECT_FALSE(check_equivalence(t, m).equivalent);  // the default draws include K
  EXPECT_TRUE(check_equivalence(t, t).equivalent);
}

// A threshold behind a scale: `min(4*A, 100)` -> `min(4*A, 101)` differs only for A in (25, 25.25]. K draws
// combinations of two literals, among them 101/4 = 25.25 exactly (W's log-uniform magnitudes fall in that interval
// with probability 7e-4 per element; on a single element the fuzzer's mutant of seed 70722 went unnoticed).
TEST(Equivalence, LiteralDirectedDrawsCombineTwoLiterals) {
  const std::vector<ir::KnownBuffer> k{in("A", {4096}), out("D", {4096})};
  auto t = make_task("L^{4096}_{a=0}[D^{f32,g}_{a}=min(A^{f32,g}_{a}*4.0,100.0);];", k);
  auto m = make_task("L^{4096}_{a=0}[D^{f32,g}_{a}=min(A^{f32,g}_{a}*4.0,101.0);];", k);
  const auto lits = comparison_literals(t.program, m.program);
  int ratios = 0;
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    const TensorMap in = make_inputs(m, seed, Distribution::Literal, lits);  // kept alive for the loop
    for (double v : in.at("A").data) ratios += v == 25.25;
  }
  EXPECT_GT(ratios, 0);
  Options lit;
  lit.dists = {Distribution::Literal};
  const Result r = check_equivalence(t, m, lit);
  EXPECT_FALSE(r.equivalent);
  EXPECT_EQ(r.code, "E504") << r.message;
}

// Adaptive draws (equiv::Options::Adaptive): a mutant the fuzzer found (seed 70054, change_literal
// `>=4` -> `>=5` on a bool output from i16 inputs) passes the 12 default draws, where the output took one value;
// the extension draws further seeds and rejects it. Outputs that vary draw no extra seed.
TEST(Equivalence, AdaptiveDrawsExtendACheckWhoseOutputDidNotVary) {
  const std::string known = R"("known": [{"name": "C", "role": "input", "dtype": "i16", "shape": [2, 3]}, )"
                            R"({"name": "A", "role": "constant", "dtype": "f32", "shape": [4]}, )"
                            R"({"name": "D", "role": "param", "dtype": "i32", "shape": [2]}, )"
                            R"({"name": "E", "role": "output", "dtype": "bool", "shape": []}])";
  auto task = [&](const std::string& rhs) {
    return ir::parse_task(R"({"workload": "fuzz_70054", "suite": "fuzz", )" + known +
                          R"(, "leir": "L^{1}_{a=0}[E^{bool,g}=abs(C^{i16,g}_{a+1,D^{i32,g}_{a}})+(a-C^{i16,g}_{a+1,a})>=)" +
                          rhs + R"(;];"})");
  };
  const ir::Task t = task("4"), m = task("5");
  const Result off = check_equivalence(t, m);  // library default: no extension
  EXPECT_TRUE(off.equivalent) << off.message;
  EXPECT_EQ(off.extra_seeds, 0u);
  Options on;
  on.adaptive.extra_seeds = kAdaptiveExtraSeeds;
  const Result r = check_equivalence(t, m, on);
  EXPECT_FALSE(r.equivalent);
  EXPECT_EQ(r.code, "E505") << r.message;  // the mutant's scalar is false where the original's is true
  EXPECT_EQ(r.message, "candidate output E is all zeros on seed 3, N while the original's is not");
  EXPECT_EQ(r.first_mismatch.seed, 3u);
  const Result self = check_equivalence(t, t, on);  // nothing to find: all 8 further seeds are drawn
  EXPECT_TRUE(self.equivalent);
  EXPECT_EQ(self.extra_seeds, kAdaptiveExtraSeeds);
  EXPECT_NE(self.message.find("equivalent on 11 seed(s) x {N,U,W,K} (8 added with S: an output element took < 3"), std::string::npos)
      << self.message;
  const std::vector<ir::KnownBuffer> k{in("A", {16}), in("C", {16}), out("D", {16})};
  const ir::Task f = make_task("B^{16}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}*C^{f32,g}_{tx};];", k);
  EXPECT_EQ(check_equivalence(f, f, on).extra_seeds, 0u);  // a float output that varies: no extension
}

TEST(Equivalence, CheapChecksDrawOnUntypedAndTypedWithinTheirBudget) {
  // 16 multiplications per draw, 32 per draw pair, x 4 distributions x untyped and typed: 256 executions per
  // further seed, so all 61 fit in 2^20. A 1024^2 product (2^20 per run) gets none.
  const std::vector<ir::KnownBuffer> k{in("A", {16}), in("C", {16}), out("D", {16})};
  const ir::Task f = make_task("B^{16}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}*C^{f32,g}_{tx};];", k);
  Options on;
  on.cheap.extra_seeds = kCheapExtraSeeds;
  const Result self = check_equivalence(f, f, on);
  EXPECT_TRUE(self.equivalent);
  EXPECT_EQ(self.extra_seeds, kCheapExtraSeeds);
  EXPECT_NE(self.message.find("equivalent on 64 seed(s) x {N,U,W,K} (61 added with S, untyped and typed: a cheap check)"),
            std::string::npos)
      << self.message;
  EXPECT_EQ(check_equivalence(f, f).extra_seeds, 0u);  // library default: off
  const std::vector<ir::KnownBuffer> big{in("A", {1024, 1024}), in("C", {1024, 1024}), out("D", {1024, 1024})};
  const ir::Task b = make_task("B^{1024}_{tx=0}L^{1024}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*C^{f32,g}_{tx,a};];", big);
  on.seeds = {0};
  on.dists = {Distribution::Normal};
  EXPECT_EQ(check_equivalence(b, b, on).extra_seeds, 0u);
  // (the typed half: fuzz/mutant_regressions/swap_operands_70451.json, an f16 product that underflows to -0)
  // An original that cannot run typed (70000 overflows f16 to inf, which no i32 holds) leaves an untyped check
  // equivalent rather than inconclusive: those draws give no verdict.
  const ir::Task o = make_task("B^{4}_{tx=0}[G^{f16,g}_{tx}=abs(A^{f32,g}_{tx})*0.0+70000.0;];B^{4}_{tx=0}[D^{i32,g}_{tx}="
                               "G^{f16,g}_{tx};];",
                               {in("A", {4}), out("D", {4}, DType::I32)});
  Options typed;
  typed.typed = true;
  EXPECT_EQ(check_equivalence(o, o, typed).code, "E502");  // the premise: typed, the original fails
  const Result ov = check_equivalence(o, o, on);
  EXPECT_TRUE(ov.equivalent) << ov.message;
  EXPECT_EQ(ov.extra_seeds, kCheapExtraSeeds);
}

}  // namespace
}  // namespace steptp::equiv
