// LEIR.md §7.2 checks driven by the exact ranges: intermediate shapes (E206, E207), known writes (E209, E210),
// unguarded reads (E208), unanalysable entries (E215) and index division or modulo by zero (E217).
#include <string>

#include "ir/ranges.hpp"
#include "ir/validate_detail.hpp"

namespace steptp::ir::detail {

namespace {
constexpr std::int64_t kMaxIndex = std::int64_t{1} << 31;

const Expr* first_gather(const Expr& e) {
  if (e.kind == ExprKind::Ref) return &e;
  for (const auto& c : e.args)
    if (const Expr* g = first_gather(c)) return g;
  return nullptr;
}

std::string dim_text(std::size_t d, const IndexRange& r) {
  return "dimension " + std::to_string(d) + " takes [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]";
}

void too_large(const Expr& entry, const IndexRange& r, DiagSink& sink) {
  sink.at(entry, Code::E215, "index range not analysable: non-affine entry over " +
                             (r.points == UINT64_MAX ? std::string("more than 2^64") : std::to_string(r.points)) +
                             " points (limit 2^24)");
}
// E215 for an entry too large to enumerate, E217 for one that divides by zero at some point of the box (the
// interpreter's E303; compiled code would index with an undefined value).
void report_unanalysable(const Expr& entry, const IndexRange& r, DiagSink& sink) {
  if (r.status == RangeStatus::TooLarge) too_large(entry, r, sink);
  if (r.status == RangeStatus::DivByZero)
    sink.at(entry, Code::E217, "index division or modulo by zero at " + r.zero_at + " (LEIR.md §8.2)");
}
}  // namespace

void check_ranges(const Task& t, ProgramFacts& f, DiagSink& sink) {
  (void)t;
  for (BufState& b : f.bufs) b.write_hi.assign(b.rank, -1);
  // 1 + max hi of dimension d (saturating: hi may be the i64 maximum, the range analysis saturates).
  auto written_extent = [](std::int64_t hi) { return hi == INT64_MAX ? hi : hi + 1; };
  std::vector<LoopBox> boxes(f.stmts.size());
  for (std::size_t i = 0; i < f.stmts.size(); ++i) boxes[i] = make_loop_box(f.stmts[i].loops);

  // Writes: shapes of intermediates, bounds of known buffers.
  for (const Occurrence& o : f.occs) {
    if (!o.write) continue;
    BufState& b = f.bufs[o.buf];
    const Expr& r = *o.ref;
    if (b.rank_error || r.rank() != b.rank) continue;
    if (b.info.known && b.info.role != Role::Output) continue;  // E201 already
    for (std::size_t d = 0; d < r.args.size(); ++d) {
      const Expr& entry = r.args[d];
      if (const Expr* g = first_gather(entry)) {
        sink.at(*g, Code::E206, "gather in a write subscript (" + r.text + ", dimension " + std::to_string(d) + ")");
        b.write_ranges_known = false;
        continue;
      }
      IndexRange ir = index_range(entry, boxes[o.stmt]);
      report_unanalysable(entry, ir, sink);
      if (!ir.exact()) {
        b.write_ranges_known = false;
        continue;
      }
      if (b.info.known) {
        const std::int64_t ext = b.info.shape[d];
        if (ir.lo < 0 || ir.hi >= ext) {
          sink.at(r, Code::E209,
                  "write outside " + r.text + ": " + dim_text(d, ir) + ", extent " + std::to_string(ext));
          b.write_ranges_known = false;  // E209 says it all; no E210 on top
        }
      } else if (ir.lo < 0 || ir.hi >= kMaxIndex) {
        sink.at(r, Code::E207, "write index of " + r.text + " outside [0, 2^31): " + dim_text(d, ir));
      }
      if (ir.hi > b.write_hi[d]) b.write_hi[d] = ir.hi;
    }
  }
  // Shapes: intermediates are inferred; outputs must be written up to their declared extents.
  for (BufState& b : f.bufs) {
    if (b.rank_error) continue;
    if (!b.info.known) {
      b.info.shape.resize(b.rank);
      for (std::size_t d = 0; d < b.rank; ++d)
        b.info.shape[d] = std::min<std::int64_t>(std::max<std::int64_t>(written_extent(b.write_hi[d]), 0), kMaxIndex);
      continue;
    }
    if (b.info.role != Role::Output || !b.first_write || !b.write_ranges_known) continue;
    for (std::size_t d = 0; d < b.rank; ++d) {
      const std::int64_t written = written_extent(b.write_hi[d]);
      if (written != b.info.shape[d]) {
        sink.at(*b.first_write, Code::E210, "output " + b.info.name + " dimension " + std::to_string(d) +
                                            " is written up to extent " + std::to_string(written) +
                                            ", declared " + std::to_string(b.info.shape[d]));
        break;
      }
    }
  }
  // Unguarded reads must stay inside the buffer (gathers and guarded reads are checked at run time).
  for (const Occurrence& o : f.occs) {
    if (o.write || o.guarded) continue;
    const BufState& b = f.bufs[o.buf];
    const Expr& r = *o.ref;
    if (b.rank_error || r.rank() != b.rank) continue;
    const bool shape_known = b.info.known || (b.first_write && b.write_ranges_known);
    for (std::size_t d = 0; d < r.args.size(); ++d) {
      IndexRange ir = index_range(r.args[d], boxes[o.stmt]);
      report_unanalysable(r.args[d], ir, sink);
      if (!ir.exact() || !shape_known) continue;
      const std::int64_t ext = b.info.shape[d];
      if (ir.lo < 0 || ir.hi >= ext)
        sink.at(r, Code::E208, "unguarded read of " + r.text + " out of bounds: " + dim_text(d, ir) + ", extent " +
                               std::to_string(ext));
    }
  }
}

}  // namespace steptp::ir::detail
