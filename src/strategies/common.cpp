#include "strategies/common.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/config.hpp"

namespace steptp::strategy {

const StrategyInfo& info_of(std::string_view name) {
  const StrategyInfo* s = find(name);
  if (!s) throw std::logic_error("strategy not registered: " + std::string(name));
  return *s;
}

void throw_stale(const std::string& msg) { throw StrategyError(Code::S001, "stale site: " + msg); }
void throw_bad_params(const std::string& msg) { throw StrategyError(Code::S002, "bad parameters: " + msg); }

namespace {
Site match_site(const std::vector<Site>& sites, const Candidate& c) {
  for (const Site& s : sites) {
    if (!(s.ref == c.ref)) continue;
    for (std::uint64_t k = 0; k < s.params.size(); ++k)
      if (s.params.at(k) == c.params) return s;
    throw_bad_params(c.id() + " is not a parameter tuple of site " + c.ref.to_string());
  }
  throw_stale(c.id() + " is not a site of this task");
}
}  // namespace

namespace {

/// The configuration in effect (enumeration depends on it: footprint limits, launch limits, the domain policy).
std::string config_key() {
  const StrategyConfig& c = default_config();
  return std::to_string(c.max_new_elements) + ',' + std::to_string(c.max_unroll) + ',' +
         std::to_string(c.vector_width) + ',' + std::to_string(c.max_thread_xy) + ',' +
         std::to_string(c.max_thread_z) + ',' + std::to_string(c.max_threads) + ',' + std::to_string(c.max_block_x) +
         ',' + std::to_string(c.max_block_yz) + ',' + std::to_string(static_cast<int>(c.domain_policy));
}

/// info.enumerate(t), memoised per thread for the most recent task (and configuration) of each strategy. Callers
/// that apply many candidates of one program (the cost policy, strategy_consistent scans, generate's candidate
/// loop) would otherwise enumerate the whole program again for every candidate's re-check. Sites own their
/// parameter generators (captured by value), so a cached site never refers to the task it came from.
const std::vector<Site>& cached_enumerate(const StrategyInfo& info, const ir::Task& t) {
  thread_local std::map<std::string_view, std::pair<std::string, std::vector<Site>>> cache;
  std::string key = config_key() + '\n' + ir::task_to_json(t);
  auto& entry = cache[info.name];
  if (entry.first != key) {
    entry.second = info.enumerate(t);
    entry.first = std::move(key);
  }
  return entry.second;
}

}  // namespace

Site recheck(const StrategyInfo& info, const ir::Task& t, const Candidate& c) {
  if (c.strategy != info.name) throw_bad_params("candidate is for " + c.strategy + ", not " + std::string(info.name));
  return match_site(cached_enumerate(info, t), c);
}

std::vector<Site> enumerate_by_nest(const ir::Task& t, NestSites nest_sites) {
  std::vector<Site> out;
  for (const auto& path : analysis::all_nest_paths(t.program)) {
    auto v = nest_sites(t, path, nullptr);
    for (auto& s : v) out.push_back(std::move(s));
  }
  return out;
}

Site recheck_nest(const ir::Task& t, const Candidate& c, NestSites nest_sites) {
  if (!analysis::nest_at(t.program, c.ref.nest)) throw_stale(c.id() + ": no nest at " + c.ref.to_string());
  return match_site(nest_sites(t, c.ref.nest, &c), c);
}

bool probe_loop(const Candidate* only, std::uint32_t loop) {
  if (!only) return true;
  if (only->ref.loop) return *only->ref.loop == loop;
  for (const auto& p : only->params)
    if (p.name == "loop") return p.value == loop;
  return true;
}

bool probe_params(const Candidate* only, const Params& ps) { return !only || only->params == ps; }

namespace {
nlohmann::json buffer_json(const ir::BufferInfo& b) {
  return {{"name", b.name}, {"dtype", std::string(ir::dtype_name(b.dtype))},
          {"scope", std::string(ir::scope_name(b.scope))}, {"shape", b.shape}};
}
}  // namespace

Applied finish(const ir::Task& before, ir::Task after, Facts facts, Exactness cls,
               const analysis::NameAllocator* names) {
  ir::Analysis an;
  try {
    an = ir::validate_or_throw(after);
  } catch (const ir::LeirError& e) {
    throw StrategyError(Code::S003, std::string(facts.json().value("candidate", "")) +
                                    " produced an invalid program: " + e.diag().headline());
  }
  auto& j = facts.json();
  j["class"] = std::string(1, exactness_letter(cls));
  j["names"] = names ? names->allocated() : std::vector<std::string>{};

  // Changed top-level nests: strip the common prefix and suffix.
  const auto& bn = before.program.nests;
  const auto& an_ = after.program.nests;
  std::size_t pre = 0;
  while (pre < bn.size() && pre < an_.size() && bn[pre] == an_[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < bn.size() - pre && suf < an_.size() - pre && bn[bn.size() - 1 - suf] == an_[an_.size() - 1 - suf])
    ++suf;
  nlohmann::json nests = {{"removed", nlohmann::json::array()}, {"added", nlohmann::json::array()},
                          {"before", nlohmann::json::array()}, {"after", nlohmann::json::array()}};
  std::set<std::string> read, written;
  auto note = [&](const ir::Nest& n) {
    auto b = analysis::nest_buffers(n);
    read.insert(b.read.begin(), b.read.end());
    written.insert(b.written.begin(), b.written.end());
  };
  for (std::size_t i = pre; i + suf < bn.size(); ++i) {
    nests["removed"].push_back(i);
    nests["before"].push_back(ir::print_nest(bn[i]));
    note(bn[i]);
  }
  for (std::size_t i = pre; i + suf < an_.size(); ++i) {
    nests["added"].push_back(i);
    nests["after"].push_back(ir::print_nest(an_[i]));
    note(an_[i]);
  }
  j["nests"] = nests;

  auto before_names = analysis::used_tensor_names(before);
  auto after_names = analysis::used_tensor_names(after);
  nlohmann::json created = nlohmann::json::array(), removed = nlohmann::json::array();
  for (const auto& b : an.buffers)
    if (!before_names.count(b.name)) created.push_back(buffer_json(b));
  for (const auto& n : before_names)
    if (!after_names.count(n)) removed.push_back(n);
  j["buffers"] = {{"read", read}, {"written", written}, {"created", created}, {"removed", removed}};
  return Applied{std::move(after), std::move(j), cls};
}

ParamSpace no_params() { return ParamSpace{}; }

ParamSpace list_params(std::vector<Params> tuples) {
  ParamSpace s;
  s.count = tuples.size();
  auto shared = std::make_shared<std::vector<Params>>(std::move(tuples));
  s.gen = [shared](std::uint64_t k) { return shared->at(k); };
  return s;
}

ParamSpace int_range_params(const std::string& name, std::int64_t lo, std::int64_t hi) {
  ParamSpace s;
  s.count = hi >= lo ? static_cast<std::uint64_t>(hi - lo + 1) : 0;
  s.gen = [name, lo](std::uint64_t k) { return Params{Param{name, static_cast<std::int64_t>(lo + k)}}; };
  return s;
}

ParamSpace concat_params(std::vector<std::pair<Params, ParamSpace>> parts) {
  ParamSpace s;
  s.count = 0;
  for (const auto& [pre, sp] : parts) s.count += sp.size();
  auto shared = std::make_shared<std::vector<std::pair<Params, ParamSpace>>>(std::move(parts));
  s.gen = [shared](std::uint64_t k) {
    for (const auto& [pre, sp] : *shared) {
      if (k < sp.size()) {
        Params out = pre;
        for (auto& p : sp.at(k)) out.push_back(std::move(p));
        return out;
      }
      k -= sp.size();
    }
    throw std::out_of_range("concat_params: index out of range");
  };
  return s;
}

namespace {
const Param* find_param(const Candidate& c, const std::string& name) {
  for (const auto& p : c.params)
    if (p.name == name) return &p;
  return nullptr;
}
}  // namespace

std::int64_t param_int(const Candidate& c, const std::string& name) {
  const Param* p = find_param(c, name);
  if (!p || !p->value.is_number_integer()) throw_bad_params("integer parameter '" + name + "' missing");
  return p->value.get<std::int64_t>();
}

std::string param_str(const Candidate& c, const std::string& name) {
  const Param* p = find_param(c, name);
  if (!p || !p->value.is_string()) throw_bad_params("string parameter '" + name + "' missing");
  return p->value.get<std::string>();
}

std::vector<std::int64_t> proper_divisors(std::int64_t n) {
  std::vector<std::int64_t> lo, hi;
  for (std::int64_t f = 2; f * f <= n; ++f)
    if (n % f == 0) {
      lo.push_back(f);
      if (f != n / f) hi.push_back(n / f);
    }
  std::reverse(hi.begin(), hi.end());
  lo.insert(lo.end(), hi.begin(), hi.end());
  return lo;
}

}  // namespace steptp::strategy
