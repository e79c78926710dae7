// partially_equivalent_then_correct (STRATEGIES.md §11 entry 35): the catalogue's example, the exact seam set on
// several sizes (B20: every correction write lies inside the output's shape), matching anywhere in the program,
// and one negative test per site condition.
#include <gtest/gtest.h>

#include "special_test_util.hpp"
#include "strategies/analysis/affine.hpp"
#include "strategies/common.hpp"

namespace st = steptp::strategy;
namespace ir = steptp::ir;
using namespace st::testing;
using R = ir::Role;
using Ids = std::vector<std::string>;

namespace {
const char* kPetc = "partially_equivalent_then_correct";

std::string pad(const std::string& out, const std::string& in, std::int64_t n, std::int64_t lo, std::int64_t hi_pad) {
  return "B^{" + std::to_string(n + lo + hi_pad) + "}_{tx=0}[" + out + "_{tx}=if_then_else(" + std::to_string(lo) +
         "<=tx<" + std::to_string(lo + n) + "," + in + "_{tx-" + std::to_string(lo) + "},0);];";
}
std::string conv(const std::string& out, const std::string& in, std::int64_t N, std::int64_t K,
                 const std::string& entry = "tx+a") {
  return "B^{" + std::to_string(N) + "}_{tx=0}L^{" + std::to_string(K) + "}_{a=0}[" + out + "_{tx}=" + out + "_{tx}+" +
         in + "_{" + entry + "}*W_{a};];";
}
std::vector<KnownSpec> known(std::int64_t n, std::int64_t N, std::int64_t K) {
  return {{"A", R::Input, {1}}, {"C", R::Input, {1}}, {"X", R::Input, {n}}, {"Y", R::Input, {n}},
          {"W", R::Param, {K}}, {"D", R::Output, {N}}, {"E", R::Output, {N}}};
}
ir::Task task(std::int64_t n, std::int64_t lo, std::int64_t hi_pad, std::int64_t K) {
  const std::int64_t N = n + lo + hi_pad - K + 1;
  return make_task(pad("F", "X", n, lo, hi_pad) + conv("D", "F", N, K) + pad("G", "Y", n, lo, hi_pad) +
                       conv("E", "G", N, K),
                   known(n, N, K));
}
}  // namespace

TEST(SpecialPetc, CatalogueExample) {
  auto t = task(6, 1, 1, 3);
  ASSERT_EQ(candidate_ids(kPetc, t), (Ids{"partially_equivalent_then_correct@1/s0{axis=tx}"}));
  auto a = apply_id("partially_equivalent_then_correct@1/s0{axis=tx}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}[F_{tx}=if_then_else(1<=tx<7,X_{tx-1},0);];"
                                 "B^{8}_{tx=0}[G_{tx}=if_then_else(1<=tx<7,Y_{tx-1},0);];"
                                 "B^{6}_{tx=0}[H_{tx}=X_{tx};H_{tx+6}=Y_{tx};];"
                                 "B^{14}_{tx=0}[I_{tx}=if_then_else(1<=tx<13,H_{tx-1},0);];"
                                 "B^{12}_{tx=0}L^{3}_{a=0}[J_{tx}=J_{tx}+I_{tx+a}*W_{a};];"
                                 "B^{6}_{tx=0}[D_{tx}=J_{tx};E_{tx}=J_{tx+6};];"
                                 "B^{1}_{tx=0}[D_{tx+5}=0;L^{3}_{a=0}[D_{tx+5}=D_{tx+5}+F_{tx+5+a}*W_{a};];];"
                                 "B^{1}_{tx=0}[E_{tx}=0;L^{3}_{a=0}[E_{tx}=E_{tx}+G_{tx+a}*W_{a};];];"));
  EXPECT_EQ(a.cls, st::Exactness::PartialCorrected);
  EXPECT_EQ(a.facts["axis"]["key"], "tx");
  EXPECT_EQ(a.facts["axis"]["n"], 6);
  EXPECT_EQ(a.facts["axis"]["K"], 3);
  EXPECT_EQ(a.facts["fused_extent"], 12);
  EXPECT_EQ(a.facts["seam_positions"]["D"], nlohmann::json::array({5, 6}));
  EXPECT_EQ(a.facts["seam_positions"]["E"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(a.facts["new_buffers"], nlohmann::json::array({"H", "I", "J"}));
  EXPECT_EQ(a.facts["elements_recomputed"], 2);
  EXPECT_EQ(a.facts["pads"][0]["p"], 1);
  EXPECT_EQ(a.facts["convs"][0]["kernel_access"], "W^{f32,g}_{a}");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialPetc, SeamCorrectionsStayInRange) {  // B20
  struct Case {
    std::int64_t n, lo, hi, K;
  };
  for (Case c : {Case{6, 1, 1, 3}, Case{6, 0, 0, 3}, Case{7, 2, 2, 5}, Case{5, 2, 2, 5}, Case{9, 2, 2, 3},
                 Case{6, 1, 3, 3}, Case{6, 3, 0, 2}, Case{3, 2, 2, 5}, Case{1, 2, 2, 5}, Case{4, 0, 2, 3}}) {
    SCOPED_TRACE(::testing::Message() << "n=" << c.n << " lo=" << c.lo << " hi=" << c.hi << " K=" << c.K);
    auto t = task(c.n, c.lo, c.hi, c.K);
    const std::int64_t N = c.n + c.lo + c.hi - c.K + 1;
    auto ids = candidate_ids(kPetc, t);
    ASSERT_EQ(ids.size(), 1u);
    auto a = apply_id(ids[0], t);
    EXPECT_TRUE(equivalent_in_class(t, a));
    std::size_t writes = 0;
    ir::for_each_stmt(a.task.program, [&](const ir::Stmt& s, const auto& loops, std::size_t) {
      if (s.lhs.text != "D" && s.lhs.text != "E") return;
      auto lf = st::analysis::linear_form(s.lhs.args[0]);
      ASSERT_TRUE(lf.has_value());
      std::int64_t hi = lf->c0;
      for (const ir::Loop* l : loops)
        if (lf->at(l->var) > 0) hi += lf->at(l->var) * (l->extent - 1);
      EXPECT_GE(lf->c0, 0);
      EXPECT_LT(hi, N) << ir::print_stmt(s);
      ++writes;
    });
    EXPECT_GE(writes, 2u);
    if (c.lo == 0 && c.hi == 0) {
      EXPECT_EQ(a.facts["elements_recomputed"], 0);  // no seam without padding
    }
  }
}

TEST(SpecialPetc, MatchesAnywhereInTheProgram) {
  const std::int64_t n = 6, N = 6, K = 3;
  auto kn = known(n, N, K);
  kn.push_back({"K", R::Output, {4}});
  kn.push_back({"M", R::Output, {4}});
  auto t = make_task("B^{4}_{tx=0}[K_{tx}=A_{0}+1;];" + pad("F", "X", n, 1, 1) + pad("G", "Y", n, 1, 1) +
                         conv("D", "F", N, K) + "B^{4}_{tx=0}[M_{tx}=C_{0}*2;];" + conv("E", "G", N, K),
                     kn);
  ASSERT_EQ(candidate_ids(kPetc, t), (Ids{"partially_equivalent_then_correct@3/s0{axis=tx}"}));
  EXPECT_EQ(check_all_candidates(kPetc, t), 1u);
}

TEST(SpecialPetc, NegativeSites) {
  const std::int64_t n = 6, K = 3;
  // Stride 2 and dilation 2 along the axis.
  EXPECT_TRUE(candidate_ids(kPetc, make_task(pad("F", "X", n, 1, 1) + conv("D", "F", 3, K, "2*tx+a") +
                                                 pad("G", "Y", n, 1, 1) + conv("E", "G", 3, K, "2*tx+a"),
                                             known(n, 3, K)))
                  .empty());
  EXPECT_TRUE(candidate_ids(kPetc, make_task(pad("F", "X", n, 1, 1) + conv("D", "F", 4, K, "tx+2*a") +
                                                 pad("G", "Y", n, 1, 1) + conv("E", "G", 4, K, "tx+2*a"),
                                             known(n, 4, K)))
                  .empty());
  // A read of D between C1 and C2.
  auto kn = known(n, 6, K);
  kn.push_back({"K", R::Output, {6}});
  EXPECT_TRUE(candidate_ids(kPetc, make_task(pad("F", "X", n, 1, 1) + conv("D", "F", 6, K) + "B^{6}_{tx=0}[K_{tx}=D_{tx}*2;];" +
                                                 pad("G", "Y", n, 1, 1) + conv("E", "G", 6, K),
                                             kn))
                  .empty());
  // Writes to X, Y or the kernel between C1 and C2 (they are intermediates here).
  auto inter = [&](const std::string& between) {
    return make_task("B^{6}_{tx=0}[X_{tx}=A_{tx};Y_{tx}=C_{tx};];B^{3}_{tx=0}[W_{tx}=A_{tx};];" + pad("F", "X", n, 1, 1) +
                         conv("D", "F", 6, K) + between + pad("G", "Y", n, 1, 1) + conv("E", "G", 6, K),
                     {{"A", R::Input, {6}}, {"C", R::Input, {6}}, {"D", R::Output, {6}}, {"E", R::Output, {6}}});
  };
  EXPECT_EQ(candidate_ids(kPetc, inter("")).size(), 1u);
  EXPECT_TRUE(candidate_ids(kPetc, inter("B^{6}_{tx=0}[X_{tx}=X_{tx}*2;];")).empty());
  EXPECT_TRUE(candidate_ids(kPetc, inter("B^{6}_{tx=0}[Y_{tx}=Y_{tx}*2;];")).empty());
  EXPECT_TRUE(candidate_ids(kPetc, inter("B^{3}_{tx=0}[W_{tx}=W_{tx}*2;];")).empty());
  // The two convolutions differ (kernel size), or the pads differ.
  EXPECT_TRUE(candidate_ids(kPetc, make_task(pad("F", "X", n, 1, 1) + conv("D", "F", 6, K) + pad("G", "Y", n, 1, 1) +
                                                 conv("E", "G", 5, K),
                                             {{"A", R::Input, {1}}, {"C", R::Input, {1}}, {"X", R::Input, {n}},
                                              {"Y", R::Input, {n}}, {"W", R::Param, {K}}, {"D", R::Output, {6}},
                                              {"E", R::Output, {5}}}))
                  .empty());
  EXPECT_TRUE(candidate_ids(kPetc, make_task(pad("F", "X", n, 1, 1) + conv("D", "F", 6, K) + pad("G", "Y", n, 2, 0) +
                                                 conv("E", "G", 6, K),
                                             known(n, 6, K)))
                  .empty());
  // A single padded convolution.
  EXPECT_TRUE(candidate_ids(kPetc, make_task(pad("F", "X", n, 1, 1) + conv("D", "F", 6, K),
                                             {{"X", R::Input, {n}}, {"W", R::Param, {K}}, {"D", R::Output, {6}}}))
                  .empty());
}
