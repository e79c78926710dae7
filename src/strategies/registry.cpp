// Strategy registry (STRATEGIES.md §5): the canonical table, site references and candidate ids.
#include "strategies/registry.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "strategies/algebraic/algebraic.hpp"
#include "strategies/config.hpp"
#include "strategies/graph/graph.hpp"
#include "strategies/loop/loop.hpp"
#include "strategies/memory/memory.hpp"
#include "strategies/special/special.hpp"

namespace steptp::strategy {

namespace {
thread_local const StrategyConfig* g_config = nullptr;
}  // namespace

const StrategyConfig& default_config() {
  static const StrategyConfig c{};
  return g_config ? *g_config : c;
}

ScopedConfig::ScopedConfig(const StrategyConfig& c) : cfg_(c), prev_(g_config) { g_config = &cfg_; }
ScopedConfig::~ScopedConfig() { g_config = prev_; }

std::string_view family_name(Family f) {
  switch (f) {
    case Family::Graph: return "graph";
    case Family::Loop: return "loop";
    case Family::Memory: return "memory";
    case Family::Algebraic: return "algebraic";
    case Family::Special: return "special";
  }
  return "?";
}

char exactness_letter(Exactness e) {
  switch (e) {
    case Exactness::Exact: return 'E';
    case Exactness::Reassoc: return 'R';
    case Exactness::Domain: return 'D';
    case Exactness::PartialCorrected: return 'P';
  }
  return '?';
}

std::string_view exactness_classes(int index) {
  // Canonical order 0..42, transcribed from each entry's "Class." line (STRATEGIES.md §11).
  static constexpr std::string_view k[43] = {
      "E",   "E",   "E/R", "E/R", "E", "E/R", "E/R", "E",   "E",    // graph 0-8
      "E/R", "E/R", "E",   "E",   "E", "E",   "E",   "E",   "E/R",  // loop 9-17
      "E",   "E",   "E",   "E",   "E",                              // memory 18-22
      // 27 apart and 28 together: D, not the catalogue's R (README, "spec corrections"): rearranged divisors carry
      // d != 0 at their poles (inf against NaN there is a mismatch under LEIR.md §11).
      "R",   "R",   "D",   "D",   "D", "D",   "R/D", "R/D", "D",   "D", "R", "R",  // algebraic 23-34
      "P",   "E",   "R",   "D",   "R", "R",   "R",   "R"};          // 35-42
  return index >= 0 && index < 43 ? k[index] : std::string_view("?");
}

// ---------------------------------------------------------------------------------------------------------------
// The table. One line per implemented strategy, in canonical index order (§3). Each family declares its
// enumerate/apply pairs in one header (strategies/<family>/<family>.hpp).
// ---------------------------------------------------------------------------------------------------------------
namespace {
const std::vector<StrategyInfo>& table() {
  static const std::vector<StrategyInfo> t = [] {
    std::vector<StrategyInfo> v = {
        {"operator_fusion", 0, Family::Graph,
         "Merge two consecutive loop nests with the same loop structure into one nest that runs the first body and "
         "then the second.",
         graph::enumerate_operator_fusion, graph::apply_operator_fusion},
        {"operator_fission", 1, Family::Graph,
         "Split the body of one nest at a cut point into two nests with the same header, keeping the item order.",
         graph::enumerate_operator_fission, graph::apply_operator_fission},
        {"compute_inline", 2, Family::Graph,
         "Replace every read of an intermediate by the expression that produces it, with the read's entries "
         "substituted for the producer's loop keys, and delete the producer.",
         graph::enumerate_compute_inline, graph::apply_compute_inline},
        {"expression_splitting", 3, Family::Graph,
         "Materialise one sub-expression of a statement in a fresh intermediate, computed by a new nest just before "
         "the statement's nest, and read the intermediate in its place.",
         graph::enumerate_expression_splitting, graph::apply_expression_splitting},
        {"tensor_concat_to_fuse_operators", 4, Family::Graph,
         "Run two instances of the same operator on different tensors as one operator over concatenated inputs, "
         "then split the result back into the two outputs.",
         graph::enumerate_tensor_concat_to_fuse_operators, graph::apply_tensor_concat_to_fuse_operators},
        {"tensor_split_to_decouple_operators", 5, Family::Graph,
         "Split one operator into two independent operators on slices of its inputs, copy each slice into its own "
         "tensor, and combine the two partial results.",
         graph::enumerate_tensor_split_to_decouple_operators, graph::apply_tensor_split_to_decouple_operators},
        {"common_subexpression_elimination", 6, Family::Graph,
         "Compute a repeated sub-expression once, into a fresh intermediate placed before its first use, and read "
         "that intermediate at every occurrence.",
         graph::enumerate_common_subexpression_elimination, graph::apply_common_subexpression_elimination},
        {"dead_code_elimination", 7, Family::Graph,
         "Delete a statement whose results are never used, and delete its nest too if the nest becomes empty.",
         graph::enumerate_dead_code_elimination, graph::apply_dead_code_elimination},
        {"expression_reorder", 8, Family::Graph, "Swap two consecutive independent loop nests.",
         graph::enumerate_expression_reorder, graph::apply_expression_reorder},
        {"loop_reorder", 9, Family::Loop, "Swap two loops of one nest header, together with their kinds and extents.",
         loop::enumerate_reorder, loop::apply_reorder},
        {"loop_tiling", 10, Family::Loop,
         "Tile two adjacent loops: split each into a tile loop and a point loop, and order them tile-x, tile-y, "
         "point-x, point-y.",
         loop::enumerate_tiling, loop::apply_tiling},
        {"loop_split", 11, Family::Loop,
         "Split one loop into an outer and an inner loop whose extents multiply to the original extent.",
         loop::enumerate_split, loop::apply_split},
        {"loop_fusion", 12, Family::Loop,
         "Merge two directly nested loops, whose keys are used only in the combination outer*inner_extent+inner, "
         "into one loop over the product extent.",
         loop::enumerate_fusion, loop::apply_fusion},
        {"loop_unrolling", 13, Family::Loop, "Mark one serial loop for unrolling.", loop::enumerate_unrolling,
         loop::apply_unrolling},
        {"loop_parallelization", 14, Family::Loop,
         "Mark one serial loop that carries no dependence as parallel.", loop::enumerate_parallelization,
         loop::apply_parallelization},
        {"loop_vectorization", 15, Family::Loop,
         "Mark one short serial loop that carries no dependence as vectorised.", loop::enumerate_vectorization,
         loop::apply_vectorization},
        {"loop_binding", 16, Family::Loop,
         "Bind one serial loop that carries no dependence to a GPU thread or block axis, and rename its key "
         "everywhere it is used.",
         loop::enumerate_binding, loop::apply_binding},
        {"reduction_factorization", 17, Family::Loop,
         "Split one reduction axis into two partial reductions over disjoint ranges, each into its own buffer, and "
         "combine the two partials in a final nest (rfactor).",
         loop::enumerate_rfactor, loop::apply_rfactor},
        {"cache_read_write", 18, Family::Memory,
         "Stage one input through a fresh shared or local buffer that is filled inside the nest before use (cache "
         "read), or compute one output into such a buffer and copy it back afterwards (cache write).",
         memory::enumerate_cache_read_write, memory::apply_cache_read_write},
        {"layout_transformation", 19, Family::Memory,
         "Give one operand a new memory layout by copying it into a fresh buffer indexed in the new order or shape, "
         "and read the copy instead.",
         memory::enumerate_layout_transformation, memory::apply_layout_transformation},
        {"set_storage_scope", 20, Family::Memory,
         "Change the storage scope (global, shared or local) of one intermediate at every occurrence.",
         memory::enumerate_set_storage_scope, memory::apply_set_storage_scope},
        {"set_storage_layout", 21, Family::Memory,
         "Change the layout of one intermediate by applying the same index map to the subscript of every "
         "occurrence, without copying.",
         memory::enumerate_set_storage_layout, memory::apply_set_storage_layout},
        {"precompute_indices", 22, Family::Memory,
         "Precompute one compound index expression into an integer lookup table, and index through the table "
         "instead.",
         memory::enumerate_precompute_indices, memory::apply_precompute_indices},
        // ---- algebraic, GiNaC-based (23-34) ----
        {"factorization", 23, Family::Algebraic,
         "Factor a polynomial sub-expression into a product, using square-free or full factorisation.",
         algebraic::enumerate_factorization, algebraic::apply_factorization},
        {"expand_factorization", 24, Family::Algebraic,
         "Multiply out a product of sums, or a small integer power of a sum, into a sum of monomials.",
         algebraic::enumerate_expand_factorization, algebraic::apply_expand_factorization},
        {"cancellation", 25, Family::Algebraic,
         "Cancel a common polynomial factor between the numerator and the denominator of a quotient.",
         algebraic::enumerate_cancellation, algebraic::apply_cancellation},
        {"expand_cancellation", 26, Family::Algebraic,
         "Multiply the numerator and the denominator of a quotient by the same non-zero factor, and expand both.",
         algebraic::enumerate_expand_cancellation, algebraic::apply_expand_cancellation},
        {"apart", 27, Family::Algebraic,
         "Decompose a rational expression into partial fractions with respect to one variable.",
         algebraic::enumerate_apart, algebraic::apply_apart},
        {"together", 28, Family::Algebraic,
         "Combine a sum of fractions into one fraction over the least common denominator, without cancelling.",
         algebraic::enumerate_together, algebraic::apply_together},
        {"powsimp", 29, Family::Algebraic,
         "Combine powers and exponentials that share a base into a single power or exponential.",
         algebraic::enumerate_powsimp, algebraic::apply_powsimp},
        {"expand_powsimp", 30, Family::Algebraic,
         "Split a power or exponential whose exponent is a sum, or whose base is a product, into a product of "
         "simpler powers.",
         algebraic::enumerate_expand_powsimp, algebraic::apply_expand_powsimp},
        {"expand_log", 31, Family::Algebraic,
         "Split the logarithm of a product or power into a sum of logarithms: `log(a*b)` → `log(a)+log(b)`, "
         "`log(a**k)` → `k*log(a)`.",
         algebraic::enumerate_expand_log, algebraic::apply_expand_log},
        {"logsimp", 32, Family::Algebraic,
         "Combine a sum of logarithms, including integer multiples, into the logarithm of one product: "
         "`log(a)+log(b)` → `log(a*b)`.",
         algebraic::enumerate_logsimp, algebraic::apply_logsimp},
        {"collect", 33, Family::Algebraic, "Group the terms of a sum by powers of one chosen atom.",
         algebraic::enumerate_collect, algebraic::apply_collect},
        {"expand_collect", 34, Family::Algebraic,
         "Distribute one factor over a sum, undoing a collection: `c*(t1+t2)` → `c*t1+c*t2`.",
         algebraic::enumerate_expand_collect, algebraic::apply_expand_collect},
        {"partially_equivalent_then_correct", 35, Family::Special,
         "Run two identical zero-padded convolutions as one convolution over the two inputs concatenated along a "
         "spatial axis, then recompute exactly the output positions near the seam, where the fused result is "
         "wrong.",
         special::enumerate_petc, special::apply_petc},
        {"normal_loop_max_to_prefix_max", 36, Family::Special,
         "Turn a max-reduction into a running (prefix) maximum along its reduction axis, followed by a read of the "
         "last prefix element.",
         special::enumerate_prefix_max, special::apply_prefix_max},
        {"exponential_split", 37, Family::Algebraic,
         "Split exp(X-R) around a pivot N, into either exp(X-N)*exp(N-R) or exp(X-N)/exp(R-N).",
         algebraic::enumerate_exponential_split, algebraic::apply_exponential_split},
        {"multiplicative_split", 38, Family::Algebraic,
         "Replace one operand X by (X/Y)*Y for a pivot Y, to prepare a later multiplicative recombination.",
         algebraic::enumerate_multiplicative_split, algebraic::apply_multiplicative_split},
        {"additive_split", 39, Family::Algebraic,
         "Replace one operand X by (X+Y)-Y for a pivot Y, to prepare a later additive recombination.",
         algebraic::enumerate_additive_split, algebraic::apply_additive_split},
        {"normal_loop_summation_on_exp_to_prefix_summation_on_exp", 40, Family::Special,
         "Fuse a max-reduction and the sum of exponentials that follows it into one pass that keeps a running "
         "maximum and a running rescaled sum (the online normaliser).",
         special::enumerate_prefix_sum_exp, special::apply_prefix_sum_exp},
        {"online_softmax", 41, Family::Special,
         "Compute a softmax with the online normaliser, reading the final running maximum and sum directly in the "
         "normalisation step instead of materialising the separate max and sum.",
         special::enumerate_online_softmax, special::apply_online_softmax},
        {"flashattention_wo_tiling", 42, Family::Special,
         "Fuse an online softmax with the matrix product that consumes it: a running, rescaled output accumulator "
         "is updated along the softmax axis, and the probability matrix is never materialised.",
         special::enumerate_flash_attention, special::apply_flash_attention},
    };
    std::sort(v.begin(), v.end(), [](const StrategyInfo& a, const StrategyInfo& b) { return a.index < b.index; });
    return v;
  }();
  return t;
}
}  // namespace

std::span<const StrategyInfo> registry() { return table(); }

const StrategyInfo* find(std::string_view name) {
  for (const auto& s : table())
    if (s.name == name) return &s;
  return nullptr;
}

std::string unknown_strategy_message(std::string_view name) {
  return fmt::format("{} unknown strategy '{}' (see `steptp strategies list`)", code_text(Code::S004), name);
}

const StrategyInfo& find_or_throw(std::string_view name) {
  if (const StrategyInfo* s = find(name)) return *s;
  throw StrategyError(Code::S004, unknown_strategy_message(name));
}

std::vector<Candidate> enumerate_candidates(const StrategyInfo& s, const ir::Task& t) {
  std::vector<Candidate> out;
  for (const Site& site : s.enumerate(t))
    for (std::uint64_t k = 0; k < site.params.size(); ++k)
      out.push_back(Candidate{std::string(s.name), site.ref, site.params.at(k)});
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// SiteRef text
// ---------------------------------------------------------------------------------------------------------------
namespace {
std::string join(const std::vector<std::uint32_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += '.';
    s += std::to_string(v[i]);
  }
  return s;
}
bool parse_u32(std::string_view s, std::uint32_t& out) {
  if (s.empty() || s.size() > 10) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}
bool parse_path(std::string_view s, std::vector<std::uint32_t>& out) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::uint32_t v = 0;
    if (!parse_u32(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start), v))
      return false;
    out.push_back(v);
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}
}  // namespace

std::string SiteRef::to_string() const {
  std::string s = nest.empty() ? "-" : join(nest);
  if (loop) s += "/l" + std::to_string(*loop);
  if (stmt) s += "/s" + std::to_string(*stmt);
  if (!expr.empty()) s += "/e" + join(expr);
  return s;
}

std::optional<SiteRef> parse_site_ref(std::string_view s) {
  SiteRef r;
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = s.find('/', start);
    parts.push_back(s.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts[0] != "-" && !parse_path(parts[0], r.nest)) return std::nullopt;
  int stage = 0;  // 1 after l, 2 after s, 3 after e
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (p.size() < 2) return std::nullopt;
    std::uint32_t v = 0;
    if (p[0] == 'l' && stage < 1) {
      if (!parse_u32(p.substr(1), v)) return std::nullopt;
      r.loop = v, stage = 1;
    } else if (p[0] == 's' && stage < 2) {
      if (!parse_u32(p.substr(1), v)) return std::nullopt;
      r.stmt = v, stage = 2;
    } else if (p[0] == 'e' && stage < 3) {
      if (!parse_path(p.substr(1), r.expr)) return std::nullopt;
      stage = 3;
    } else {
      return std::nullopt;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// Candidate ids: name@site{k=v,...}. Integer values print bare; a string prints bare when it is a plain word
// ([A-Za-z_][A-Za-z0-9_]*), otherwise as a JSON string literal. Other JSON values print as compact JSON.
// ---------------------------------------------------------------------------------------------------------------
namespace {
bool plain_word(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}
std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (plain_word(s) && s != "true" && s != "false" && s != "null") return s;
  }
  return v.dump();
}
}  // namespace

std::string Candidate::id() const {
  std::string s = strategy + "@" + ref.to_string();
  if (!params.empty()) {
    s += '{';
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (i) s += ',';
      s += params[i].name + "=" + value_text(params[i].value);
    }
    s += '}';
  }
  return s;
}

std::optional<Candidate> parse_candidate_id(std::string_view id) {
  std::size_t at = id.find('@');
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  Candidate c;
  c.strategy = std::string(id.substr(0, at));
  std::string_view rest = id.substr(at + 1);
  std::size_t brace = rest.find('{');
  auto ref = parse_site_ref(rest.substr(0, brace));
  if (!ref) return std::nullopt;
  c.ref = *ref;
  if (brace == std::string_view::npos) return c;
  if (rest.back() != '}') return std::nullopt;
  std::string_view body = rest.substr(brace + 1, rest.size() - brace - 2);
  std::size_t i = 0;
  while (i < body.size()) {
    std::size_t eq = body.find('=', i);
    if (eq == std::string_view::npos || eq == i) return std::nullopt;
    Param p;
    p.name = std::string(body.substr(i, eq - i));
    std::size_t j = eq + 1;
    // The value runs to the next top-level ',' (outside strings/brackets).
    int depth = 0;
    bool in_str = false;
    std::size_t k = j;
    for (; k < body.size(); ++k) {
      char ch = body[k];
      if (in_str) {
        if (ch == '\\') ++k;
        else if (ch == '"') in_str = false;
      } else if (ch == '"') {
        in_str = true;
      } else if (ch == '[' || ch == '{') {
        ++depth;
      } else if (ch == ']' || ch == '}') {
        --depth;
      } else if (ch == ',' && depth == 0) {
        break;
      }
    }
    std::string text(body.substr(j, k - j));
    if (text.empty()) return std::nullopt;
    if (plain_word(text) && text != "true" && text != "false" && text != "null") {
      p.value = text;
    } else {
      auto v = nlohmann::json::parse(text, nullptr, false);
      if (v.is_discarded()) return std::nullopt;
      p.value = std::move(v);
    }
    c.params.push_back(std::move(p));
    i = k + 1;
    if (k == body.size()) break;
  }
  return c;
}

}  // namespace steptp::strategy
