// Shared plumbing of every strategy's apply() (STRATEGIES.md §5 "apply"): (1) re-check the site, (2) allocate
// fresh names (analysis/names.hpp), (3) build the new AST, (4) run the validator, (5) return task + facts.
// Also parameter-space builders and parameter accessors.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/task.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/analysis/names.hpp"
#include "strategies/facts.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy {

/// The registry entry of `name` (throws std::logic_error if it is not registered).
const StrategyInfo& info_of(std::string_view name);

/// Step (1): the candidate's site must be one that `info.enumerate(t)` returns now (else StrategyError S001,
/// "stale site"), and its params one of that site's tuples (else S002). Returns the matching site.
Site recheck(const StrategyInfo& info, const ir::Task& t, const Candidate& c);

/// The sites of one nest (path), in the entry's order. Strategies whose sites are nests or loops implement this
/// once and derive both enumerate (enumerate_by_nest) and the site re-check (recheck_nest) from it. `only`, when
/// non-null, is the candidate being re-checked: the function may skip the legality analysis of every other loop or
/// parameter tuple (their absence from the result is then meaningless), which keeps apply() cheap.
using NestSites = std::vector<Site> (*)(const ir::Task& t, const analysis::NestPath& path, const Candidate* only);
/// Does `only` (when set) name this loop / these parameter values? Helpers for NestSites implementations.
bool probe_loop(const Candidate* only, std::uint32_t loop);
bool probe_params(const Candidate* only, const Params& ps);
/// Concatenation of nest_sites over analysis::all_nest_paths (program order).
std::vector<Site> enumerate_by_nest(const ir::Task& t, NestSites nest_sites);
/// recheck() restricted to the candidate's nest (S001 when the nest path no longer exists or the site is not one
/// of nest_sites(t, path); S002 when the params are not a tuple of that site).
Site recheck_nest(const ir::Task& t, const Candidate& c, NestSites nest_sites);

/// Steps (4)-(5): validates `after` (StrategyError S003 if it fails: a strategy bug), fills the common facts
/// (class, names, nests changed with before/after prints, buffers read/written/created/removed) and returns it.
Applied finish(const ir::Task& before, ir::Task after, Facts facts, Exactness cls,
               const analysis::NameAllocator* names = nullptr);

[[noreturn]] void throw_stale(const std::string& msg);       // S001
[[noreturn]] void throw_bad_params(const std::string& msg);  // S002

// ---- parameter spaces ----
ParamSpace no_params();
/// A materialised list of tuples (already in the entry's order).
ParamSpace list_params(std::vector<Params> tuples);
/// One integer parameter `name` over lo..hi (inclusive), ascending, indexed without materialising.
ParamSpace int_range_params(const std::string& name, std::int64_t lo, std::int64_t hi);

/// Concatenation of spaces: the tuples of parts[0] (each prefixed with its Params), then those of parts[1], ...
/// Indexed without materialising the parts.
ParamSpace concat_params(std::vector<std::pair<Params, ParamSpace>> parts);

// ---- parameter access (StrategyError S002 when missing or mistyped) ----
std::int64_t param_int(const Candidate& c, const std::string& name);
std::string param_str(const Candidate& c, const std::string& name);

/// Ascending divisors f of n with 1 < f < n.
std::vector<std::int64_t> proper_divisors(std::int64_t n);

}  // namespace steptp::strategy
