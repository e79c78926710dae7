// The verdict of the equivalence check (LEIR.md §11 step 6, report): a degenerate candidate output (E505), else
// mismatches (E504: how many, the first with where it was drawn, and the largest errors), else equivalent, naming
// the draws run and what the further phases added and left unjudged.
#include <string>

#include "equiv/context.hpp"

namespace steptp::equiv::detail {

Result verdict(Context& c) {
  const Options& opt = c.opt;
  Result& r = c.r;
  if (c.overflow_unjudged)
    c.note(std::to_string(c.overflow_unjudged) +
           " element(s) infinite or NaN in one program only on draws near exp's f64 overflow point, not judged");
  if (c.typed_flips)
    c.note(std::to_string(c.typed_flips) +
           " integer or bool element(s) flipped by the declared types' rounding only (equal in f64), not judged");
  if (c.range_flips)
    c.note(std::to_string(c.range_flips) +
           " integer or bool element(s) differing on draws near exp's f64 overflow point, judged with the float "
           "inputs clamped to 2^9");
  if (!c.degenerate.empty()) return c.fail(Code::E505, c.degenerate);
  if (r.has_mismatch) {
    const auto& m = r.first_mismatch;
    const std::string where = draw_label(m) + (m.typed && !opt.typed ? ", typed" : "");
    return c.fail(Code::E504, std::to_string(c.mismatches) + " mismatching element(s); first " + c.first_name +
                              " (flat " + std::to_string(m.index) + ") on " + where + ": candidate " + fmt_num(m.a) +
                              " vs original " + fmt_num(m.b) + "; max abs err " + fmt_num(r.max_abs_err) +
                              ", max rel err " + fmt_num(r.max_rel_err));
  }
  r.equivalent = true;
  r.code.clear();
  std::string dists;
  for (Distribution d : opt.dists) dists += std::string(dists.empty() ? "" : ",") + distribution_name(d);
  std::string added = c.added.empty() ? std::string() : " (" + c.added + ")";
  r.message = "equivalent on " + std::to_string(opt.seeds.size() + r.extra_seeds) + " seed(s) x {" + dists + "}" +
              added + "; max abs err " + fmt_num(r.max_abs_err) + ", max rel err " + fmt_num(r.max_rel_err);
  return r;
}

}  // namespace steptp::equiv::detail
