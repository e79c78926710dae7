// Golden before/after tests of the memory strategies 18-22 on the catalogue's examples (STRATEGIES.md §11), with
// their facts and numeric checks, plus negative tests. Fresh names are the smallest unused ones of the test task
// (the catalogue's examples assume a larger program, so its F is C here).
#include <gtest/gtest.h>

#include <algorithm>

#include "graph_memory_test_util.hpp"
#include "strategies/common.hpp"
#include "strategies/memory/layout_map.hpp"

using st::testing::catalogue_gemm;
using st::testing::has_id;
using st::testing::kCatalogueGemm;

TEST(CacheReadWrite, CatalogueReadExample) {
  auto t = catalogue_gemm();
  const std::string id = R"(cache_read_write@0/s0{variant=read,access="E^{f32,g}_{c,a}",scope=l,d=2})";
  auto ids = candidate_ids("cache_read_write", t);
  EXPECT_TRUE(has_id(ids, id));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}[L^{6}_{c=0}[C^{f32,l}_{c,a}=E_{c,a};];"
                                 "L^{6}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*C^{f32,l}_{c,a};];];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["variant"], "read");
  EXPECT_EQ(a.facts["cache_buffer"]["name"], "C");
  EXPECT_EQ(a.facts["cache_buffer"]["scope"], "l");
  EXPECT_EQ(a.facts["cache_buffer"]["shape"], nlohmann::json::array({6, 4}));
  EXPECT_EQ(a.facts["attach_depth"], 2);
  EXPECT_EQ(a.facts["outer_loops"], "B^{8}_{tx=0}L^{4}_{a=0}");
  EXPECT_EQ(a.facts["cost"]["bytes_added"], 96);
  EXPECT_EQ(a.facts["names"], nlohmann::json::array({"C"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(CacheReadWrite, EnumerationAndWriteVariant) {
  auto t = catalogue_gemm();
  // D is written in the nest (no read cache); the write cache needs the reduction key c inside, and some inner
  // loop in D's subscript, so only d=1.
  const std::string a1 = R"(cache_read_write@0/s0{variant=read,access="A^{f32,g}_{tx,c}",scope=)";
  const std::string e1 = R"(cache_read_write@0/s0{variant=read,access="E^{f32,g}_{c,a}",scope=)";
  const std::string w1 = R"(cache_read_write@0/s0{variant=write,access="D^{f32,g}_{tx,a}",scope=)";
  EXPECT_EQ(candidate_ids("cache_read_write", t),
            (Ids{a1 + "l,d=1}", a1 + "l,d=2}", a1 + "s,d=1}", a1 + "s,d=2}", e1 + "l,d=1}", e1 + "l,d=2}",
                 e1 + "s,d=1}", e1 + "s,d=2}", w1 + "l,d=1}", w1 + "s,d=1}"}));
  auto a = apply_id(w1 + "l,d=1}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}[L^{4}_{a=0}L^{6}_{c=0}[C^{f32,l}_{tx,a}=C^{f32,l}_{tx,a}+A_{tx,c}*E_{c,a};];"
                                 "L^{4}_{a=0}[D_{tx,a}=C^{f32,l}_{tx,a};];];"));
  EXPECT_EQ(a.facts["variant"], "write");
  EXPECT_EQ(check_all_candidates("cache_read_write", t), 10u);
}

TEST(CacheReadWrite, NoCacheOfLazyReadsOrContinuingAccumulators) {
  // The only read of A is in a lazy branch; C is a continuing accumulator (written by nest 0) so no write cache.
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=E_{tx};];"
                     "B^{4}_{tx=0}L^{3}_{a=0}L^{2}_{c=0}[C_{tx,a}=C_{tx,a}+if_then_else(a>0,A_{tx,a-1,c},0.0);];",
                     {{"A", R::Input, {4, 3, 2}}, {"E", R::Input, {4}}, {"C", R::Output, {4, 3}}});
  for (const auto& id : candidate_ids("cache_read_write", t)) EXPECT_EQ(id.rfind("cache_read_write@0/", 0), 0u) << id;
  // Without a bound loop the cache could not be confined: no candidate at all.
  auto u = make_task("L^{4}_{a=0}L^{3}_{c=0}[C_{a}=C_{a}+A_{a,c};];", {{"A", R::Input, {4, 3}}, {"C", R::Output, {4}}});
  EXPECT_TRUE(candidate_ids("cache_read_write", u).empty());
}

TEST(LayoutTransformation, CatalogueTransposeExample) {
  auto t = catalogue_gemm();
  const std::string id = R"(layout_transformation@0{access="A^{f32,g}_{tx,c}",variant=transpose,detail=1})";
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{6}_{c=0}[C_{c,tx}=A_{tx,c};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}[D_{tx,a}=D_{tx,a}+C_{c,tx}*E_{c,a};];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["variant"], "transpose");
  EXPECT_EQ(a.facts["entry_extents"], nlohmann::json::array({8, 6}));
  EXPECT_EQ(a.facts["new_buffer"]["name"], "C");
  EXPECT_EQ(a.facts["new_buffer"]["shape"], nlohmann::json::array({6, 8}));
  EXPECT_EQ(a.facts["map"]["entries_after"], nlohmann::json::array({"c", "tx"}));
  EXPECT_EQ(a.facts["copy_nest"], expand_refs("B^{8}_{tx=0}L^{6}_{c=0}[C_{c,tx}=A_{tx,c};];"));
  EXPECT_EQ(a.facts["cost"]["elements_added"], 48);
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(LayoutTransformation, FlattenSplitAndHelperBinding) {
  auto t = catalogue_gemm();
  // E_{c,a} uses no bound key: the helper binds c (the first loop of extent <= 1024) as tx (§7.5).
  auto a = apply_id(R"(layout_transformation@0{access="E^{f32,g}_{c,a}",variant=flatten})", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{6}_{c=0}[C_{c*4+tx}=E_{c,tx};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*C_{c*4+a};];"));
  EXPECT_TRUE(equivalent_in_class(t, a));
  auto b = apply_id(R"(layout_transformation@0{access="A^{f32,g}_{tx,c}",variant=split,detail=[1,3]})", t);
  EXPECT_EQ(leir(b), expand_refs("B^{8}_{tx=0}L^{6}_{c=0}[C_{tx,c//3,c%3}=A_{tx,c};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}[D_{tx,a}=D_{tx,a}+C_{tx,c//3,c%3}*E_{c,a};];"));
  EXPECT_TRUE(equivalent_in_class(t, b));
  // 2 accesses x (1 transpose + 1 flatten + splits of 8 (2, 4) and 6 (2, 3), resp. 6 (2, 3) and 4 (2)).
  EXPECT_EQ(candidate_ids("layout_transformation", t).size(), 6u + 5u);
  EXPECT_EQ(check_all_candidates("layout_transformation", t), 11u);
}

TEST(LayoutTransformation, NoCopyOfWrittenOrLazyOperands) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=if_then_else(a>0,A_{tx,a-1},0.0)+C_{tx,a};];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  // A is only read lazily, C is written in the nest.
  EXPECT_FALSE(candidate_ids("layout_transformation", t).size() > 0 &&
               candidate_ids("layout_transformation", t)[0].find("A^") != std::string::npos);
  for (const auto& id : candidate_ids("layout_transformation", t)) EXPECT_EQ(id.find("A^"), std::string::npos);
}

TEST(LayoutMap, LehmerPermutations) {
  EXPECT_EQ(st::memory::permutation_at(3, 0), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(st::memory::permutation_at(3, 1), (std::vector<std::size_t>{0, 2, 1}));
  EXPECT_EQ(st::memory::permutation_at(3, 2), (std::vector<std::size_t>{1, 0, 2}));
  EXPECT_EQ(st::memory::permutation_at(3, 5), (std::vector<std::size_t>{2, 1, 0}));
  // rank 3, extents (4, 6, 5): 5 transposes, flatten, 2 merges, splits of 4 (2) and 6 (2, 3).
  EXPECT_EQ(st::memory::layout_params({4, 6, 5}).size(), 5u + 1u + 2u + 3u);
}

TEST(SetStorageScope, CatalogueExample) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});C_{tx,a}=D_{tx,a}+1;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  // C is known (B15): only D is a site.
  EXPECT_EQ(candidate_ids("set_storage_scope", t),
            (Ids{"set_storage_scope@0/s0{scope=s}", "set_storage_scope@0/s0{scope=l}"}));
  auto a = apply_id("set_storage_scope@0/s0{scope=l}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,l}_{tx,a}=exp(A_{tx,a});C_{tx,a}=D^{f32,l}_{tx,a}+1;];"));
  EXPECT_EQ(a.facts["buffer"], "D");
  EXPECT_EQ(a.facts["scope_before"], "g");
  EXPECT_EQ(a.facts["scope_after"], "l");
  EXPECT_EQ(a.facts["occurrences"], 2);
  EXPECT_EQ(a.facts["confinement"]["method"], "isl");
  EXPECT_TRUE(equivalent_in_class(t, a));
  // Back to g is always allowed.
  EXPECT_EQ(candidate_ids("set_storage_scope", a.task),
            (Ids{"set_storage_scope@0/s0{scope=g}", "set_storage_scope@0/s0{scope=s}"}));
}

TEST(SetStorageScope, KnownAndUnconfinedBuffersGetNoCandidate) {
  // D crosses two nests (E214) and only outputs remain: nothing to offer.
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=D_{tx,a}+1;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  EXPECT_TRUE(candidate_ids("set_storage_scope", t).empty());
  // M is read across iterations of the bound loop (every tx reads M_{0}): l and s are not confined.
  auto u = make_task("B^{4}_{tx=0}[M_{tx}=A_{tx};C_{tx}=M_{0}+M_{tx};];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}}});
  EXPECT_TRUE(candidate_ids("set_storage_scope", u).empty());
}

TEST(SetStorageLayout, CatalogueExample) {
  auto t = make_task("B^{8}_{tx=0}L^{4}_{a=0}[D_{tx,a}=A_{tx,a}*2;];B^{8}_{tx=0}L^{4}_{a=0}[C_{tx,a}=D_{tx,a}+1;];",
                     {{"A", R::Input, {8, 4}}, {"C", R::Output, {8, 4}}});
  EXPECT_EQ(candidate_ids("set_storage_layout", t),
            (Ids{"set_storage_layout@0/s0{variant=transpose,detail=1}", "set_storage_layout@0/s0{variant=flatten}",
                 "set_storage_layout@0/s0{variant=split,detail=[0,2]}",
                 "set_storage_layout@0/s0{variant=split,detail=[0,4]}",
                 "set_storage_layout@0/s0{variant=split,detail=[1,2]}"}));
  auto tr = apply_id("set_storage_layout@0/s0{variant=transpose,detail=1}", t);
  EXPECT_EQ(leir(tr), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}[D_{a,tx}=A_{tx,a}*2;];B^{8}_{tx=0}L^{4}_{a=0}[C_{tx,a}=D_{a,tx}+1;];"));
  auto fl = apply_id("set_storage_layout@0/s0{variant=flatten}", t);
  EXPECT_EQ(leir(fl), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}[D_{tx*4+a}=A_{tx,a}*2;];B^{8}_{tx=0}L^{4}_{a=0}[C_{tx,a}=D_{tx*4+a}+1;];"));
  EXPECT_EQ(fl.facts["shape_before"], nlohmann::json::array({8, 4}));
  EXPECT_EQ(fl.facts["shape_after"], nlohmann::json::array({32}));
  EXPECT_EQ(fl.facts["occurrences_rewritten"], 2);
  auto sp = apply_id("set_storage_layout@0/s0{variant=split,detail=[0,4]}", t);
  EXPECT_EQ(leir(sp), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}[D_{tx//4,tx%4,a}=A_{tx,a}*2;];"
                                  "B^{8}_{tx=0}L^{4}_{a=0}[C_{tx,a}=D_{tx//4,tx%4,a}+1;];"));
  EXPECT_EQ(sp.facts["shape_after"], nlohmann::json::array({2, 4, 4}));
  EXPECT_EQ(check_all_candidates("set_storage_layout", t), 5u);
}

TEST(SetStorageLayout, RejectsMapsThatMoveReadsOutsideTheWrittenShape) {
  // D is written on the anti-diagonal only (inferred shape 4x4). The read D_{tx,a} is unguarded for the validator
  // (E208) but evaluated only on the anti-diagonal (& short-circuits). Flattened, the writes span 3..12 (shape 13)
  // while that read would statically reach 15 (E208): flatten is not offered; transpose and splits are.
  auto t = make_task("B^{4}_{tx=0}[D_{tx,3-tx}=A_{tx};];"
                     "B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a}=if_then_else((a+tx==3)&(D_{tx,a}>0.0),1.0,0.0);];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4, 4}}});
  auto ids = candidate_ids("set_storage_layout", t);
  EXPECT_EQ(ids, (Ids{"set_storage_layout@0/s0{variant=transpose,detail=1}",
                      "set_storage_layout@0/s0{variant=split,detail=[0,2]}",
                      "set_storage_layout@0/s0{variant=split,detail=[1,2]}"}));
  EXPECT_EQ(check_all_candidates("set_storage_layout", t), 3u);
  // A gather entry anywhere disqualifies the buffer.
  auto u = make_task("B^{4}_{tx=0}[D_{tx}=A_{tx};];B^{4}_{tx=0}[C_{tx}=D_{I^{i64,g}_{tx}};];",
                     {{"A", R::Input, {4}}, {"I", R::Input, {4}, steptp::ir::DType::I64}, {"C", R::Output, {4}}});
  EXPECT_TRUE(candidate_ids("set_storage_layout", u).empty());
}

TEST(PrecomputeIndices, CatalogueExample) {
  auto t = make_task("B^{2}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}L^{3}_{d=0}L^{3}_{f=0}[C_{tx,a,c}=C_{tx,a,c}+D_{a,d,f}*A_{tx,d,c*2+f*2};];",
                     {{"A", R::Input, {2, 3, 13}}, {"D", R::Input, {4, 3, 3}}, {"C", R::Output, {2, 4, 5}}});
  EXPECT_EQ(candidate_ids("precompute_indices", t), (Ids{"precompute_indices@0/s0/e1.1.1.2"}));
  auto a = apply_id("precompute_indices@0/s0/e1.1.1.2", t);
  EXPECT_EQ(leir(a), expand_refs("B^{5}_{tx=0}L^{3}_{f=0}[E^{i64,g}_{tx,f}=tx*2+f*2;];"
                                 "B^{2}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}L^{3}_{d=0}L^{3}_{f=0}[C_{tx,a,c}=C_{tx,a,c}+D_{a,d,f}*"
                                 "A_{tx,d,E^{i64,g}_{c,f}};];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["entry"], "c*2+f*2");
  EXPECT_EQ(a.facts["keys"], nlohmann::json::array({"c", "f"}));
  EXPECT_EQ(a.facts["table"]["name"], "E");
  EXPECT_EQ(a.facts["table"]["shape"], nlohmann::json::array({5, 3}));
  EXPECT_EQ(a.facts["occurrences"], 1);
  EXPECT_EQ(a.facts["helper_nest"], "B^{5}_{tx=0}L^{3}_{f=0}[E^{i64,g}_{tx,f}=tx*2+f*2;];");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(PrecomputeIndices, SharedEntriesAndLazyOnlyEntries) {
  // a+1 appears twice (one candidate, both replaced); c-1 appears only in a lazy branch (never materialised).
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}L^{3}_{c=0}[C_{tx,a,c}=A_{tx,a+1}*A_{tx,a+1}+if_then_else(c>0,A_{tx,c-1},0.0);];",
                     {{"A", R::Input, {4, 4}}, {"C", R::Output, {4, 3, 3}}});
  EXPECT_EQ(candidate_ids("precompute_indices", t), (Ids{"precompute_indices@0/s0/e1.0.0.1"}));
  auto a = apply_id("precompute_indices@0/s0/e1.0.0.1", t);
  EXPECT_EQ(a.facts["occurrences"], 2);
  EXPECT_EQ(leir(a), expand_refs("B^{3}_{tx=0}[D^{i64,g}_{tx}=tx+1;];B^{4}_{tx=0}L^{3}_{a=0}L^{3}_{c=0}[C_{tx,a,c}="
                                 "A_{tx,D^{i64,g}_{a}}*A_{tx,D^{i64,g}_{a}}+if_then_else(c>0,A_{tx,c-1},0.0);];"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(ReferenceDefects, B1TwoAccessesOfOneBufferStayDistinct) {
  // B1: the reference mapped each buffer name to the first subscript seen, so A_{tx,c}*A_{a,c} collapsed. Here each
  // access is its own site and every candidate of every memory/loop strategy stays equivalent.
  auto t = make_task("B^{4}_{tx=0}L^{4}_{a=0}L^{3}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*A_{a,c};];",
                     {{"A", R::Input, {4, 3}}, {"D", R::Output, {4, 4}}});
  auto ids = candidate_ids("cache_read_write", t);
  EXPECT_TRUE(has_id(ids, R"(cache_read_write@0/s0{variant=read,access="A^{f32,g}_{tx,c}",scope=l,d=1})"));
  EXPECT_TRUE(has_id(ids, R"(cache_read_write@0/s0{variant=read,access="A^{f32,g}_{a,c}",scope=l,d=1})"));
  auto a = apply_id(R"(cache_read_write@0/s0{variant=read,access="A^{f32,g}_{a,c}",scope=l,d=1})", t);
  EXPECT_NE(leir(a).find("A^{f32,g}_{tx,c}*C^{f32,l}_"), std::string::npos) << leir(a);
  for (const char* s : {"cache_read_write", "layout_transformation", "loop_reorder", "loop_tiling",
                        "reduction_factorization", "loop_split"})
    EXPECT_GT(check_all_candidates(s, t), 0u) << s;
}

TEST(ReferenceDefects, B9WriteCacheWhenTheOutputSubscriptLacksTx) {
  // B9: the reference's cache write crashed when the output subscript had no tx. Enumeration and every candidate
  // work here, with the helper nest bound by the binding rule.
  auto t = make_task("B^{1}_{tx=0}L^{4}_{a=0}L^{3}_{c=0}[D_{a}=D_{a}+A_{a,c};];",
                     {{"A", R::Input, {4, 3}}, {"D", R::Output, {4}}});
  auto ids = candidate_ids("cache_read_write", t);
  EXPECT_TRUE(std::any_of(ids.begin(), ids.end(), [](const std::string& s) {
    return s.find("variant=write") != std::string::npos;
  })) << ids.size();
  EXPECT_EQ(check_all_candidates("cache_read_write", t), ids.size());
}
