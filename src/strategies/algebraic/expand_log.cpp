// expand_log (STRATEGIES.md §11 entry 31): split the logarithm of a product or power into a sum of logarithms,
// `log(∏ f_i^k_i)` -> `Σ k_i*log(f_i)`. Hand-written (§9.3): GiNaC's expand_transcendental splits logs of possymbol
// products only. The site is a log node whose argument is, in GiNaC, a product or an integer power, with no factor
// exp(w) (STRATEGIES.md entry 31 "Refused sites"); a factor with a non-integer exponent (sqrt(x)) stays whole; a
// positive numeric coefficient c becomes log(c), a negative one rejects the site. Each new log(f_i) needs f_i>0 (rule 5, B14): proven by sign analysis or, under the Guard
// policy, guarded. Class D. The driver also adds the §9.4 condition of the original log argument, which the
// factor conditions imply (pruned).
#include "ir/printer.hpp"
#include "strategies/registry.hpp"
#include "strategies/algebraic/logpow.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;
using GiNaC::numeric;
using namespace logpow;

/// x as f^k with an integer k (k = 1 for anything else).
LogFactor as_power(const ex& x) {
  if (GiNaC::is_a<GiNaC::power>(x) && GiNaC::is_a<numeric>(x.op(1)) &&
      GiNaC::ex_to<numeric>(x.op(1)).is_integer())
    return {x.op(0), GiNaC::ex_to<numeric>(x.op(1))};
  return {x, 1};
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt&, const TargetNode& n, const ir::Task& t) {
  const ir::Expr& e = *n.e;
  if (e.kind != ir::ExprKind::Call || e.fn != ir::Func::Log) return {};
  const ex arg = b.to_ex(e.args[0]);
  numeric c = 1;
  std::vector<LogFactor> fs;
  if (GiNaC::is_a<GiNaC::mul>(arg)) {
    for (std::size_t i = 0; i < arg.nops(); ++i) {
      if (GiNaC::is_a<numeric>(arg.op(i))) c *= GiNaC::ex_to<numeric>(arg.op(i));
      else fs.push_back(as_power(arg.op(i)));
    }
  } else if (GiNaC::is_a<GiNaC::power>(arg)) {
    fs.push_back(as_power(arg));
    if (fs[0].k == 1) return {};  // sqrt(x) and other non-integer powers: not a product or an integer power
  } else {
    return {};
  }
  if (!c.is_positive() || !c.is_rational() || fs.empty()) return {};
  // A factor exp(w) is refused: log(exp(w)) becomes w, exact where the original's product underflows (below
  // exp(-708) on the check's skewed draws), and the check takes the original's value as the reference.
  for (const auto& f : fs)
    if (GiNaC::is_exactly_a<GiNaC::function>(f.f) && GiNaC::ex_to<GiNaC::function>(f.f).get_name() == "exp")
      return {};
  // The order of the new terms and of the conditions: first occurrence of each factor.
  std::stable_sort(fs.begin(), fs.end(), [&](const LogFactor& x, const LogFactor& y) {
    return std::make_pair(b.key_of(x.f), b.print(x.f)) < std::make_pair(b.key_of(y.f), b.print(y.f));
  });
  ex sum = c == 1 ? ex(0) : GiNaC::log(ex(c));  // ex: the numeric overload would evaluate log(2)
  for (const auto& f : fs) sum = sum + f.k * GiNaC::log(f.f);
  Rewrite r;
  r.after = b.to_ast(sum);
  r.cls = Exactness::Domain;
  nlohmann::json factors = nlohmann::json::array();
  r.conditions = positive_factors(b, fs, *analysis::task_signs(t), &factors);
  r.facts = {{"log_argument", ir::print_expr(strip(e.args[0]))}, {"factors", factors}};
  if (c != 1) r.facts["coefficient"] = b.print(c);
  return {{Params{}, std::move(r)}};
}

}  // namespace

std::vector<Site> enumerate_expand_log(const ir::Task& t) { return enumerate_rule("expand_log", t, rule); }
Applied apply_expand_log(const ir::Task& t, const Candidate& c) { return apply_rule("expand_log", t, c, rule); }

STEPTP_REGISTER_STRATEGY(expand_log, 31, Algebraic,
                         "Split the logarithm of a product or power into a sum of logarithms: "
                         "`log(a*b)` → `log(a)+log(b)`, `log(a**k)` → `k*log(a)`.",
                         enumerate_expand_log, apply_expand_log);

}  // namespace steptp::strategy::algebraic
