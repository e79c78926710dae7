// Properties of the algebraic family (issue #13 acceptance): GiNaC failures become "no candidate" (counted, never
// thrown); candidates are byte-identical in a fresh process where the strategy runs first and in a process where
// every other strategy ran before (GiNaC symbol serial numbers differ); inverse pairs round-trip on sites from the
// corpus and the workloads (STRATEGIES.md §9.1 term order).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include <unistd.h>

#include "frontend/workloads.hpp"
#include "algebraic_test_util.hpp"
#include "equiv/equivalence.hpp"
#include "ir/printer.hpp"
#include "strategies/algebraic/bridge.hpp"
#include "strategies/algebraic/site.hpp"

namespace fe = steptp::frontend;
namespace alg = steptp::strategy::algebraic;

namespace {

/// Tasks with sites for every algebraic strategy (the catalogue's examples and a few more).
std::vector<steptp::ir::Task> algebraic_examples() {
  std::vector<std::string> bodies = {
      "C_{tx}=A_{tx}*D_{tx}+A_{tx}*E_{tx}",
      "C_{tx}=A_{tx}*A_{tx}*A_{tx}-A_{tx}*D_{tx}*D_{tx}",
      "C_{tx}=(A_{tx}+D_{tx})*(A_{tx}+E_{tx})+(D_{tx}-E_{tx})**3",
      "C_{tx}=(A_{tx}*A_{tx}-D_{tx}*D_{tx})/(A_{tx}-D_{tx})+(exp(A_{tx})-1)/(exp(A_{tx})+1)",
      "C_{tx}=1/((A_{tx}+1)*(A_{tx}+2))+E_{tx}*D_{tx}/(A_{tx}+1)",
      "C_{tx}=1/A_{tx}+1/D_{tx}+E_{tx}/(A_{tx}*D_{tx})",
      "C_{tx}=A_{tx}*D_{tx}+A_{tx}*E_{tx}+D_{tx}+A_{tx}*(D_{tx}+E_{tx})*2",
      "C_{tx}=exp(A_{tx})*exp(D_{tx})+exp(A_{tx}+E_{tx})+A_{tx}**2*A_{tx}**3+sqrt(A_{tx}*D_{tx})",
      "C_{tx}=log(A_{tx}*D_{tx})+log(A_{tx})+2*log(D_{tx})-log(E_{tx}*E_{tx})",
      "C_{tx}=exp(A_{tx}-D_{tx})*E_{tx}+max(A_{tx},0)*D_{tx}+max(A_{tx},0)*E_{tx}",
  };
  std::vector<steptp::ir::Task> out;
  for (const auto& b : bodies) {
    out.push_back(vec_task("B^{8}_{tx=0}[" + b + ";];", VR::Positive, VR::Positive));
    out.push_back(vec_task("B^{8}_{tx=0}[" + b + ";];"));
  }
  return out;
}

std::string run_cli(const std::string& args) {
  std::string cmd = std::string(STEPTP_BINARY) + " " + args + " 2>/dev/null";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

/// "candidate<TAB>program" lines of every candidate of `s` on `t`, applied in this process.
std::string in_process(const st::StrategyInfo& s, const steptp::ir::Task& t) {
  std::string out;
  for (const auto& c : enumerate_candidates(s, t))
    out += c.id() + "\t" + steptp::ir::print_program(s.apply(t, c).task.program) + "\n";
  return out;
}

/// The same from the JSONL of `steptp apply` (a fresh process in which `s` is the only strategy that runs).
std::string from_cli(const std::string& jsonl) {
  std::string out;
  std::istringstream in(jsonl);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("candidate")) continue;
    out += j["candidate"].get<std::string>() + "\t" +
           steptp::ir::print_program(steptp::ir::parse_task(j["task"].dump()).program) + "\n";
  }
  return out;
}

}  // namespace

TEST(AlgebraicFailures, GinacPoleBecomesNoCandidateAndIsCounted) {
  // log(A-A) is log(0): GiNaC throws a pole error while converting the sum; factorization offers nothing there and
  // counts the failure; nothing escapes enumerate or the CLI.
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=log(A_{tx}-A_{tx})+A_{tx}*D_{tx}+A_{tx}*E_{tx};];");
  std::int64_t before = 0;
  for (const auto& [k, v] : alg::ginac_failures())
    if (k.rfind("factorization:", 0) == 0) before += v;
  std::vector<std::string> ids;
  EXPECT_NO_THROW(ids = candidate_ids("factorization", t));
  EXPECT_TRUE(ids.empty());
  std::int64_t after = 0;
  for (const auto& [k, v] : alg::ginac_failures())
    if (k.rfind("factorization:", 0) == 0) after += v;
  EXPECT_GT(after, before);
  for (const auto& s : st::registry()) {
    if (s.family == st::Family::Algebraic) {
      EXPECT_NO_THROW(enumerate_candidates(s, t)) << s.name;
    }
  }
}

// `(A-(2.0+1.0))*G` with G a u32 is float arithmetic; expand_collect's `A*G-3*G` computed `3*G` in u32, which
// wraps for G = 2^32-1 (differential fuzzer, seed 100707; fuzz/regressions/candidate_expand_collect_u32_*). A
// node that reads a wrapping integer value is no site of the algebraic family; an i64 one still is.
TEST(AlgebraicFailures, NoSiteReadsAWrappingIntegerValue) {
  const std::string prog = "B^{8}_{tx=0}[C_{tx}=(A_{tx}-(2.0+1.0))*G^{T,g}_{tx};];";
  auto task = [&](const char* dt, steptp::ir::DType t) {
    return st::testing::make_task(std::regex_replace(prog, std::regex("\\{T,"), std::string("{") + dt + ","),
                                  {{"A", steptp::ir::Role::Input, {8}},
                                   {"G", steptp::ir::Role::Input, {8}, t},
                                   {"C", steptp::ir::Role::Output, {8}}});
  };
  const auto u32 = task("u32", steptp::ir::DType::U32), i64 = task("i64", steptp::ir::DType::I64);
  EXPECT_TRUE(candidate_ids("expand_collect", u32).empty());
  int checked = 0;
  for (const auto& s : st::registry()) {
    if (s.family != st::Family::Algebraic) continue;
    for (const auto& c : enumerate_candidates(s, u32)) {  // what remains (additive_split's pivots) is equivalent
      ++checked;
      const auto r = steptp::equiv::check_equivalence(u32, s.apply(u32, c).task);
      EXPECT_TRUE(r.equivalent) << c.id() << ": " << r.message;
    }
  }
  EXPECT_GT(checked, 0);
  const auto ids = candidate_ids("expand_collect", i64);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids[0] + " " + leir(apply_id(ids[0], i64)),
            "expand_collect@0/s0/e1 B^{8}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*G^{i64,g}_{tx}-3*G^{i64,g}_{tx};];");
}

TEST(AlgebraicDeterminismSlow, FreshProcessAndAfterAllOthersGiveTheSameBytes) {
  const auto tasks = algebraic_examples();
  // Fresh processes: each strategy runs first (and alone) in its own `steptp apply`.
  std::map<std::pair<std::string, std::size_t>, std::string> fresh;
  std::size_t candidates = 0;
  for (const auto& s : st::registry()) {
    if (s.family != st::Family::Algebraic) continue;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const std::string path = ::testing::TempDir() + "alg_det_" + std::to_string(getpid()) + "_" +
                               std::to_string(i) + ".json";
      std::ofstream(path) << steptp::ir::task_to_json(tasks[i]);
      fresh[{std::string(s.name), i}] = from_cli(run_cli("apply --strategy " + std::string(s.name) + " " + path));
    }
  }
  // This process: every strategy of the registry runs on every task first (GiNaC creates many symbols, so serial
  // numbers differ from the fresh processes), then the algebraic family in reverse order.
  for (const auto& s : st::registry())
    for (const auto& t : tasks) (void)in_process(s, t);
  const auto reg = st::registry();
  for (auto it = reg.rbegin(); it != reg.rend(); ++it) {
    if (it->family != st::Family::Algebraic) continue;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const std::string here = in_process(*it, tasks[i]);
      const std::string& there = fresh[std::make_pair(std::string(it->name), i)];
      EXPECT_EQ(here, there) << it->name << " on task " << i;
      candidates += static_cast<std::size_t>(std::count(here.begin(), here.end(), '\n'));
    }
  }
  EXPECT_GE(candidates, 20u);
  std::cout << "  " << candidates << " algebraic candidates compared byte for byte\n";
}

namespace {

/// Tasks to look for forward sites in: the corpus re-emitted at small shapes, every workload at its small shape,
/// and each of those after one expand_factorization or expand_collect step (products of sums are rare in the
/// emitted programs; expanded ones are where factorization and collect apply).
std::vector<steptp::ir::Task> site_sources() {
  std::vector<steptp::ir::Task> base;
  for (auto& te : steptp::ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl")) {
    const auto* w = te.ok ? fe::find_workload(te.task.workload) : nullptr;
    if (!w) continue;
    try {
      base.push_back(fe::emit(*w, fe::small_params(*w), steptp::ir::DType::F32));
    } catch (const std::exception&) {
    }
  }
  for (const auto& w : fe::workloads()) {
    try {
      base.push_back(fe::emit(w, fe::small_params(w), steptp::ir::DType::F32));
    } catch (const std::exception&) {
    }
  }
  std::vector<steptp::ir::Task> out = base;
  for (const auto& t : base)
    for (const char* e : {"expand_factorization", "expand_collect"})
      for (const auto& c : enumerate_candidates(*st::find(e), t)) out.push_back(st::find(e)->apply(t, c).task);
  return out;
}

/// The statement at the candidate's site, printed through one Bridge built on the ORIGINAL statement, so both
/// sides get the same atoms and the same §9.1 first-occurrence order.
std::string canonical(const steptp::ir::Stmt& original, const steptp::ir::Stmt& s) {
  alg::Bridge b(original);
  return b.print(b.to_ex(s.rhs));
}

const steptp::ir::Stmt& stmt_at(const steptp::ir::Task& t, const st::SiteRef& r) {
  const steptp::ir::Nest* n = &t.program.nests.at(r.nest[0]);
  for (std::size_t k = 1; k < r.nest.size(); ++k) n = &n->body.at(r.nest[k]).nest();
  return n->body.at(*r.stmt).stmt();
}

/// Whether the statement at `r` of `t` has a site of expand_collect or expand_factorization (a product with a sum
/// factor: not a sum of monomials).
bool has_expansion_site(const steptp::ir::Task& t, const st::SiteRef& r) {
  for (const char* e : {"expand_collect", "expand_factorization"})
    if (st::find(e))
      for (const auto& c : enumerate_candidates(*st::find(e), t))
        if (c.ref.nest == r.nest && c.ref.stmt == r.stmt) return true;
  return false;
}

}  // namespace

TEST(AlgebraicInverseSlow, InversePairsRoundTripOnCorpusAndWorkloadSites) {
  // forward -> inverses (factorization's one-sum-factor results are expand_collect's sites, §11 entry 24).
  const std::vector<std::pair<std::string, std::vector<std::string>>> pairs = {
      {"factorization", {"expand_factorization", "expand_collect"}},
      {"together", {"apart"}},
      {"powsimp", {"expand_powsimp"}},
      {"logsimp", {"expand_log"}},
      {"collect", {"expand_collect"}}};
  std::map<std::string, std::pair<int, int>> per;  // forward -> (round-trips, sites)
  int unexpanded = 0;                                // collect sites on statements not in expanded form
  std::set<std::string> seen;
  int held = 0;
  for (const auto& t : site_sources()) {
    for (const auto& [fwd, invs] : pairs) {
      if (!st::find(fwd)) continue;
      for (const auto& c : enumerate_candidates(*st::find(fwd), t)) {
        const auto a = st::find(fwd)->apply(t, c);
        const auto& orig = stmt_at(t, c.ref);
        const std::string key = fwd + "|" + steptp::ir::print_stmt(orig) + "|" + c.id();
        if (!seen.insert(key).second) continue;  // the same statement reached twice (expansions of one task)
        const std::string want = canonical(orig, orig);
        bool ok = false;
        for (const auto& inv : invs) {
          if (!st::find(inv)) continue;
          for (const auto& ci : enumerate_candidates(*st::find(inv), a.task)) {
            if (ci.ref.nest != c.ref.nest || ci.ref.stmt != c.ref.stmt) continue;
            const auto back = st::find(inv)->apply(a.task, ci);
            if (canonical(orig, stmt_at(back.task, ci.ref)) == want) ok = true;
          }
        }
        // Expanding back gives a sum of monomials, so collect round-trips exactly only where the original sum was
        // one: a site whose statement still holds a product with a sum factor (a site of expand_collect or
        // expand_factorization, as in a lerp's `a+w*(e-a)`) is counted apart.
        if (fwd == "collect" && !ok && has_expansion_site(t, c.ref)) {
          ++unexpanded;
          continue;
        }
        ++per[fwd].second;
        if (ok) {
          ++per[fwd].first;
          ++held;
        } else {
          std::cout << "  no round trip: " << c.id() << " on " << steptp::ir::print_stmt(orig) << "\n";
        }
      }
    }
  }
  for (const auto& [fwd, v] : per) std::cout << "  " << fwd << ": " << v.first << " of " << v.second << " sites\n";
  std::cout << "  collect on statements not in expanded form (no exact round trip expected): " << unexpanded << "\n";
  EXPECT_GE(held, 40);  // 44: expand_factorization refuses the sums expected to cancel (entry 24)
  // factorization and collect always have an inverse candidate (expand_factorization / expand_collect multiply
  // every product of the result back out).
  EXPECT_EQ(per["factorization"].first, per["factorization"].second);
  EXPECT_EQ(per["collect"].first, per["collect"].second);
}
