// Built-in KernelBench-style workload suite (DATASET.md §2.1 S1 workloads, §2.2 S2 shape instances, §2.3 S3
// tasks). Each workload is a named emitter with integer shape parameters; at its default parameters and f32,
// every workload that also appears in leir-reference/corpus.jsonl emits exactly the corpus task (text and known
// list), except for the deviations listed in tests/frontend/test_workloads_corpus.cpp (reference defects,
// LEIR.md §13/§14).
//
// Conventions (the Step-TP reference translator's): buffer names come from the fresh-name sequence in the order
// inputs, intermediates, outputs, constants, params, temporaries (LEIR.md §5.1); the first iterated dimension is
// bound to `tx`; see frontend/workloads/ops.hpp for the per-operator forms.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.hpp"
#include "ir/task.hpp"

namespace steptp::frontend {

using Params = std::map<std::string, std::int64_t>;

/// One integer shape parameter: default value, inclusive range [lo, hi], and `small`, a value for which one
/// interpretation of the task runs well under 0.2 s (≲ 10^6 statement executions with the other params small).
struct ParamSpec {
  std::string name;
  std::int64_t def = 1, lo = 1, hi = 1;
  std::int64_t small = 1;
};

struct Workload {
  std::string name;
  std::string suite;   // level1 | level2 | custom
  std::string family;  // matmul elementwise reduction norm softmax conv pool scan loss attention fused
  std::vector<ParamSpec> params;
  std::vector<ir::DType> dtypes;  // dtypes[0] is f32
  /// Constraint between params (e.g. channels divisible by groups): "" if ok, else the reason. Never null.
  std::function<std::string(const Params&)> constraint;
  /// LEIR text for (params, dtype); fills `known_out` with the signature. Throws std::invalid_argument for
  /// parameters that give no valid program (e.g. a kernel larger than its input).
  std::function<std::string(const Params&, ir::DType, std::vector<ir::KnownBuffer>& known_out)> emit_text;
};

/// All built-in workloads (≥ 200), in a fixed order: level1, level2, custom, each grouped by family file.
const std::vector<Workload>& workloads();
/// nullptr if unknown.
const Workload* find_workload(std::string_view name);
/// The workload named `name`; throws ir::LeirError E109 located at the name when there is none
/// ("LEIR-E109 at Foo: unknown workload (see `steptp workloads list`)").
const Workload& find_workload_or_throw(std::string_view name);

/// Fills missing params with defaults, then checks names, ranges and the constraint. Throws
/// std::invalid_argument naming the first problem (unknown param, out of range, constraint violated).
Params resolve_params(const Workload& w, const Params& given);

/// Emits and parses the task (ir::parse_program) and fills workload, suite and known. `params` may be partial
/// (defaults fill the rest). Throws std::invalid_argument (bad params or dtype not offered) or LeirError.
ir::Task emit(const Workload& w, const Params& params, ir::DType dtype);

Params default_params(const Workload& w);
Params small_params(const Workload& w);

/// `n` distinct-or-not parameter sets drawn reproducibly from (seed, workload name): each param uniformly in
/// [lo, hi] (log2-uniform when hi/lo ≥ 16), redrawn (at most 100 tries per set) until the constraint holds and
/// the emitter accepts them. Sets that find no valid draw are skipped, so fewer than n may come back.
std::vector<Params> sample_params(const Workload& w, int n, std::uint64_t seed);

}  // namespace steptp::frontend
