// Test helpers for strategy tests: tasks from compact LEIR (references without superscript mean ^{f32,g}, as in
// the catalogue's examples), applying a candidate by id, and listing candidate ids.
#pragma once
#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::testing {

/// Adds ^{f32,g} to every buffer name that has no superscript (catalogue convention).
inline std::string expand_refs(const std::string& s) {
  static const std::regex re(R"(([A-Z][a-z]*)(?![a-z\^]))");
  return std::regex_replace(s, re, "$1^{f32,g}");
}

struct KnownSpec {
  std::string name;
  ir::Role role;
  std::vector<std::int64_t> shape;
  ir::DType dtype = ir::DType::F32;
  ir::ValueRange range = ir::ValueRange::Any;  // declared value range (sign analysis, equivalence draws)
};

/// Builds and validates a task (throws LeirError if invalid).
inline ir::Task make_task(const std::string& compact_leir, const std::vector<KnownSpec>& known) {
  ir::Task t;
  t.workload = "test";
  t.suite = "unit";
  for (const auto& k : known) t.known.push_back(ir::KnownBuffer{k.name, k.role, k.dtype, k.shape, k.range});
  t.program = ir::parse_program(expand_refs(compact_leir));
  ir::validate_or_throw(t);
  return t;
}

inline std::vector<std::string> candidate_ids(const std::string& strategy, const ir::Task& t) {
  std::vector<std::string> out;
  for (const auto& c : enumerate_candidates(*find(strategy), t)) out.push_back(c.id());
  return out;
}

/// Applies the candidate with this printed id (must be enumerated).
inline Applied apply_id(const std::string& id, const ir::Task& t) {
  auto c = parse_candidate_id(id);
  if (!c) throw std::runtime_error("bad candidate id " + id);
  return find(c->strategy)->apply(t, *c);
}

inline std::string leir(const Applied& a) { return ir::print_program(a.task.program); }

/// The catalogue's Gemm nest: D[8,4] = A[8,6] x E[6,4] (STRATEGIES.md's loop and memory examples).
inline constexpr const char* kCatalogueGemm = "B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*E_{c,a};];";

/// kCatalogueGemm as a task.
inline ir::Task catalogue_gemm() {
  return make_task(kCatalogueGemm, {{"A", ir::Role::Input, {8, 6}}, {"E", ir::Role::Input, {6, 4}}, {"D", ir::Role::Output, {8, 4}}});
}

/// Whether candidate id `s` is among `ids`.
inline bool has_id(const std::vector<std::string>& ids, const std::string& s) {
  return std::find(ids.begin(), ids.end(), s) != ids.end();
}

}  // namespace steptp::strategy::testing
