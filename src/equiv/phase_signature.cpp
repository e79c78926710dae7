// Phase "signature" of the equivalence check (LEIR.md §11 step 1, with step 3 for programs that do not even
// compile): the two known lists must be identical, names, roles, dtypes, shapes and order (E501, naming the first
// entry that differs and how); an original the interpreter rejects makes the check inconclusive (E502), a candidate
// it rejects is not equivalent (E503). Then the given values of fixed buffers are checked against the original
// (std::invalid_argument, not a verdict) and K's value set is taken from both programs' literals.
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "equiv/context.hpp"

namespace steptp::equiv::detail {
namespace {

std::string describe_signature_difference(const ir::Task& a, const ir::Task& b) {
  if (a.known.size() != b.known.size())
    return "known lists differ in length (" + std::to_string(a.known.size()) + " vs " +
           std::to_string(b.known.size()) + ")";
  for (std::size_t k = 0; k < a.known.size(); ++k) {
    const auto &x = a.known[k], &y = b.known[k];
    if (x == y) continue;
    // Show the values that differ (names alone say nothing when only the shape or dtype changed).
    const std::string head = "known[" + std::to_string(k) + "] (" + x.name + ") differs in ";
    if (x.name != y.name) return "known[" + std::to_string(k) + "] differs in name (" + x.name + " vs " + y.name + ")";
    if (x.role != y.role) return head + "role (" + std::string(ir::role_name(x.role)) + " vs " + std::string(ir::role_name(y.role)) + ")";
    if (x.dtype != y.dtype)
      return head + "dtype (" + std::string(ir::dtype_name(x.dtype)) + " vs " + std::string(ir::dtype_name(y.dtype)) + ")";
    return head + fmt::format("shape ([{}] vs [{}])", fmt::join(x.shape, ","), fmt::join(y.shape, ","));
  }
  return "known lists differ";
}

}  // namespace

bool phase_signature(Context& c) {
  if (c.original.known != c.candidate.known) {
    c.early = c.fail(Code::E501, "known signatures differ: " + describe_signature_difference(c.original, c.candidate));
    return false;
  }
  try {
    c.A = std::make_unique<Interpreter>(c.original);
  } catch (const std::exception& e) {
    c.early = c.fail(Code::E502, "original is invalid (inconclusive): " + error_text(e));
    return false;
  }
  try {
    c.B = std::make_unique<Interpreter>(c.candidate);
  } catch (const std::exception& e) {
    c.early = c.fail(Code::E503, "candidate is invalid: " + error_text(e));
    return false;
  }
  if (c.opt.fixed) check_fixed_inputs(c.original, *c.opt.fixed);
  c.literals = comparison_literals(c.original.program, c.candidate.program);
  return true;
}

}  // namespace steptp::equiv::detail
