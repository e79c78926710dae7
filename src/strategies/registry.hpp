// Strategy registry (STRATEGIES.md §5). Strategies are pure AST-to-AST rewrites of a Task.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "ir/task.hpp"

namespace steptp::strategy {

enum class Family { Graph, Loop, Memory, Algebraic, Special };
enum class Exactness { Exact, Reassoc, Domain, PartialCorrected };  // E, R, D, P (§6)
std::string_view family_name(Family f);      // "graph", "loop", ...
char exactness_letter(Exactness e);          // 'E' 'R' 'D' 'P'

/// Stable position of a site within one task. Printed form (to_string / parse_site_ref):
///   nest path joined by '.' ("0", "3.1" = item 1 of top-level nest 3), then optionally "/l<k>" (loop k of that
///   nest's header, outermost 0), "/s<k>" (body item k, a statement), "/e<i.j...>" (expression child path).
///   Examples: "0", "0/l2", "0/s1", "0/s1/e0.2". An empty nest path prints as "-" (program-level sites).
/// `loop` is a steptp addition to the STRATEGIES.md §5 struct: loop strategies address one loop of a header.
struct SiteRef {
  std::vector<std::uint32_t> nest;      // top-level index, then indices of nested items
  std::optional<std::uint32_t> loop;    // loop position within that nest's header, if any
  std::optional<std::uint32_t> stmt;    // statement index within that nest's body, if any
  std::vector<std::uint32_t> expr;      // child path inside the statement's AST, if any
  bool operator==(const SiteRef&) const = default;
  std::string to_string() const;        // e.g. "0/s1/e0.2" (parseable by parse_site_ref)
};
std::optional<SiteRef> parse_site_ref(std::string_view s);

/// A parameter tuple: ordered (name, value) pairs; values are integers or strings.
struct Param {
  std::string name;
  nlohmann::json value;
  bool operator==(const Param&) const = default;
};
using Params = std::vector<Param>;

/// A finite, ordered parameter space, indexable without materialising it. `at(k)` returns the k-th tuple in
/// lexicographic order; `size()` its cardinality. Implemented as a callback so entries can index large spaces.
struct ParamSpace {
  std::uint64_t count = 1;
  std::function<Params(std::uint64_t)> gen;   // empty gen with count 1 means "no parameters"
  std::uint64_t size() const { return count; }
  Params at(std::uint64_t k) const { return gen ? gen(k) : Params{}; }
};

struct Site {
  SiteRef ref;
  ParamSpace params;
};

struct Candidate {
  std::string strategy;
  SiteRef ref;
  Params params;
  /// Printed id: "loop_split@0/l2{outer=2}" style: name@site{k=v,...}. parse_candidate_id inverts it.
  std::string id() const;
};
std::optional<Candidate> parse_candidate_id(std::string_view id);

/// Result of apply: the new task, the facts record (STRATEGIES.md §10 common keys plus the entry's own keys),
/// and the exactness class of this application.
struct Applied {
  ir::Task task;
  nlohmann::json facts;
  Exactness cls = Exactness::Exact;
};

/// Thrown by apply when the candidate does not fit the task (stale or wrong site/params): code S001
/// (stale site), S002 (bad parameters), S003 (result failed validation — a strategy bug); by find_or_throw
/// with S004 (no strategy of that name is registered).
/// A steptp::Error whose what() is the message alone (callers print the code before it).
class StrategyError : public Error {
 public:
  StrategyError(Code c, const std::string& msg) : Error(c, msg), code_(code_str(c)) {}
  /// A code given as text (tests; a text that is no code is an uncoded input error).
  StrategyError(std::string code, const std::string& msg) : Error(code_or(code), msg), code_(std::move(code)) {}
  /// The code's text, S001 (id() is the enumerator).
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

struct StrategyInfo {
  std::string_view name;          // canonical Step-TP name
  int index = 0;                  // canonical index 0..42
  Family family = Family::Graph;
  std::string_view description;   // one sentence (first sentence of the catalogue's "Rewrite")
  std::vector<Site> (*enumerate)(const ir::Task&) = nullptr;
  Applied (*apply)(const ir::Task&, const Candidate&) = nullptr;
};

/// The exactness classes a strategy's candidates can have, from its catalogue entry's "Class." line
/// (STRATEGIES.md §11): "E", "R", "D", "P", or two letters joined by '/' ("E/R": exact unless the rewrite
/// reassociates or changes the dtype of a stored intermediate; "R/D": R unless a sign-conditioned rule fires).
/// Known for all 43 canonical indices; "?" outside 0..42.
std::string_view exactness_classes(int index);

/// Adds a strategy to the registry at static-initialisation time; use STEPTP_REGISTER_STRATEGY.
struct StrategyRegistrar {
  explicit StrategyRegistrar(const StrategyInfo& info);
};

/// Registers the strategy of the file it ends: one line at the bottom of each strategy file, inside its namespace.
/// NAME is the canonical Step-TP name (an identifier), INDEX its canonical index 0..42 (STRATEGIES.md §5),
/// FAMILY a Family enumerator, DESCRIPTION one sentence, ENUMERATE and APPLY the strategy's two functions.
/// The library is linked whole-archive (CMakeLists.txt) so that no registration is dropped by the linker.
#define STEPTP_REGISTER_STRATEGY(NAME, INDEX, FAMILY, DESCRIPTION, ENUMERATE, APPLY)                             \
  namespace {                                                                                                    \
  const ::steptp::strategy::StrategyRegistrar steptp_register_##NAME{::steptp::strategy::StrategyInfo{           \
      #NAME, INDEX, ::steptp::strategy::Family::FAMILY, DESCRIPTION, ENUMERATE, APPLY}};                         \
  }

/// Registered strategies, in canonical index order.
std::span<const StrategyInfo> registry();
/// The registered strategy named `name`, or nullptr.
const StrategyInfo* find(std::string_view name);
/// The registered strategy named `name`; throws StrategyError S004 whose message starts with the code
/// (S004 unknown strategy 'x' (see `steptp strategies list`)) when there is none.
const StrategyInfo& find_or_throw(std::string_view name);
/// The one-line S004 message find_or_throw throws, for callers that report it as their own error type.
std::string unknown_strategy_message(std::string_view name);

/// All candidates of one strategy (sites × parameter tuples), in the deterministic enumeration order.
std::vector<Candidate> enumerate_candidates(const StrategyInfo& s, const ir::Task& t);

}  // namespace steptp::strategy
