// Registry, site references, candidate ids and fresh names (STRATEGIES.md §5, §8).
#include <gtest/gtest.h>

#include "strategies/analysis/names.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"

namespace st = steptp::strategy;
namespace an = steptp::strategy::analysis;

TEST(StrategyRegistry, CanonicalOrderAndLookup) {
  auto r = st::registry();
  ASSERT_GE(r.size(), 9u);
  for (std::size_t i = 1; i < r.size(); ++i) EXPECT_LT(r[i - 1].index, r[i].index);
  const st::StrategyInfo* s = st::find("loop_split");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->index, 11);
  EXPECT_EQ(st::family_name(s->family), "loop");
  EXPECT_EQ(st::find("no_such_strategy"), nullptr);
  EXPECT_EQ(&st::find_or_throw("loop_split"), s);
  try {
    st::find_or_throw("no_such_strategy");
    ADD_FAILURE() << "found";
  } catch (const st::StrategyError& e) {
    EXPECT_EQ(e.code(), "S004");
    EXPECT_STREQ(e.what(), "S004 unknown strategy 'no_such_strategy' (see `steptp strategies list`)");
  }
  const char* loop_names[] = {"loop_reorder", "loop_tiling", "loop_split", "loop_fusion", "loop_unrolling",
                              "loop_parallelization", "loop_vectorization", "loop_binding",
                              "reduction_factorization"};
  for (int i = 0; i < 9; ++i) {
    const auto* e = st::find(loop_names[i]);
    ASSERT_NE(e, nullptr) << loop_names[i];
    EXPECT_EQ(e->index, 9 + i);
  }
}

TEST(StrategyRegistry, SiteRefRoundTrip) {
  st::SiteRef r;
  r.nest = {0};
  r.loop = 2;
  EXPECT_EQ(r.to_string(), "0/l2");
  st::SiteRef s;
  s.nest = {3, 1};
  s.stmt = 1;
  s.expr = {0, 2};
  EXPECT_EQ(s.to_string(), "3.1/s1/e0.2");
  for (const auto& x : {r, s}) {
    auto p = st::parse_site_ref(x.to_string());
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(*p, x);
  }
  EXPECT_FALSE(st::parse_site_ref("0/x1").has_value());
  EXPECT_FALSE(st::parse_site_ref("0/s1/l2").has_value());  // out of order
  EXPECT_FALSE(st::parse_site_ref("a").has_value());
  EXPECT_FALSE(st::parse_site_ref("0..1").has_value());
}

TEST(StrategyRegistry, CandidateIdRoundTrip) {
  st::Candidate c;
  c.strategy = "loop_split";
  c.ref.nest = {0};
  c.ref.loop = 2;
  c.params = {st::Param{"outer", 2}};
  EXPECT_EQ(c.id(), "loop_split@0/l2{outer=2}");
  auto p = st::parse_candidate_id(c.id());
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->strategy, "loop_split");
  EXPECT_EQ(p->ref, c.ref);
  EXPECT_EQ(p->params, c.params);

  st::Candidate d;
  d.strategy = "cache_read_write";
  d.ref.nest = {1};
  d.ref.stmt = 0;
  d.params = {st::Param{"access", "A_{tx,c}"}, st::Param{"tag", "ty"}, st::Param{"word", "true"}};
  EXPECT_EQ(d.id(), "cache_read_write@1/s0{access=\"A_{tx,c}\",tag=ty,word=\"true\"}");
  auto q = st::parse_candidate_id(d.id());
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->params, d.params);
  EXPECT_EQ(q->id(), d.id());
  EXPECT_FALSE(st::parse_candidate_id("noat").has_value());
  EXPECT_FALSE(st::parse_candidate_id("x@0{a=1").has_value());
}

TEST(StrategyNames, SequencesFollowLeirSection5) {
  EXPECT_EQ(an::tensor_name_at(0), "A");
  EXPECT_EQ(an::tensor_name_at(19), "Z");
  EXPECT_EQ(an::tensor_name_at(20), "Aa");
  EXPECT_EQ(an::tensor_name_at(21), "Ac");
  EXPECT_EQ(an::tensor_name_at(40), "Ca");
  EXPECT_EQ(an::loop_key_at(0), "a");
  EXPECT_EQ(an::loop_key_at(18), "w");
  EXPECT_EQ(an::loop_key_at(19), "aa");
  EXPECT_EQ(an::loop_key_at(20), "ac");
  EXPECT_TRUE(an::is_reserved_loop_key("if"));
  EXPECT_TRUE(an::is_reserved_loop_key("log"));
  EXPECT_FALSE(an::is_reserved_loop_key("ad"));
}

TEST(StrategyParams, Divisors) {
  EXPECT_EQ(st::proper_divisors(12), (std::vector<std::int64_t>{2, 3, 4, 6}));
  EXPECT_TRUE(st::proper_divisors(7).empty());
  EXPECT_EQ(st::proper_divisors(4), (std::vector<std::int64_t>{2}));
  auto sp = st::int_range_params("v", 1, 5);
  EXPECT_EQ(sp.size(), 5u);
  EXPECT_EQ(sp.at(2), (st::Params{st::Param{"v", 3}}));
}
