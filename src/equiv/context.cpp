// The state of one run of the equivalence check (equiv/context.hpp) and the helpers its phases share.
#include "equiv/context.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "base/diag.hpp"

namespace steptp::equiv::detail {

Context::Context(const ir::Task& original_, const ir::Task& candidate_, const Options& opt_)
    : original(original_), candidate(candidate_), opt(opt_) {
  ro.typed = opt.typed;
  ro.max_steps = opt.max_steps;
  if (opt.progress && opt.progress_every) {
    ro.progress = [this](std::uint64_t s) { opt.progress(done_before + s); };
    ro.progress_every = opt.progress_every;
  }
  next = opt.seeds.empty() ? 0 : *std::max_element(opt.seeds.begin(), opt.seeds.end()) + 1;
  // The further draws (adaptive and cheap) add distribution S to the given ones: its per-buffer sign patterns
  // (all <= 0, mostly >= 0, zero-heavy, one value) undo the masking that leaves those draws' outputs insensitive.
  further = opt.dists;
  if (opt.skewed_further_draws && std::find(further.begin(), further.end(), Distribution::Skewed) == further.end())
    further.push_back(Distribution::Skewed);
  with_s = further.size() > opt.dists.size() ? " with S" : "";
}

Result Context::fail(Code code, std::string msg) {
  r.equivalent = false;
  r.code = code_str(code);
  r.message = std::move(msg);
  return r;
}

void Context::note(const std::string& what) { added += std::string(added.empty() ? "" : "; ") + what; }

std::string error_text(const std::exception& e) {
  if (auto* le = dynamic_cast<const ir::LeirError*>(&e)) return le->diag().headline();
  return e.what();
}

std::string fmt_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace steptp::equiv::detail
