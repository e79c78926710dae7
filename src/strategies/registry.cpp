// Strategy registry (STRATEGIES.md §5): the canonical table, site references and candidate ids.
#include "strategies/registry.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "strategies/config.hpp"

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

// The registry: each strategy file registers itself with STEPTP_REGISTER_STRATEGY at static-initialisation time
// (as TVM registers its schedule primitives); the list is sorted into canonical index order on first use, after
// every registration has run.
namespace {
std::vector<StrategyInfo>& pending() {
  static std::vector<StrategyInfo> v;
  return v;
}

const std::vector<StrategyInfo>& table() {
  static const std::vector<StrategyInfo> t = [] {
    std::vector<StrategyInfo> v = pending();
    std::sort(v.begin(), v.end(), [](const StrategyInfo& a, const StrategyInfo& b) { return a.index < b.index; });
    for (std::size_t i = 1; i < v.size(); ++i)
      if (v[i].index == v[i - 1].index || v[i].name == v[i - 1].name)
        throw std::logic_error(fmt::format("strategy index {} registered twice ({}, {})", v[i].index, v[i - 1].name,
                                           v[i].name));
    return v;
  }();
  return t;
}
}  // namespace

StrategyRegistrar::StrategyRegistrar(const StrategyInfo& info) { pending().push_back(info); }

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
