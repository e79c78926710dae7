// Checked mode of the interpreter (LEIR.md §8.5): E306 and E307.
#include "interp/checker.hpp"

#include <string>

namespace steptp::interp::detail {
namespace {
std::uint64_t key(int buf, std::int64_t off) {
  return (static_cast<std::uint64_t>(buf) << 48) ^ static_cast<std::uint64_t>(off);
}
std::string loop_name(const Ctx& c, int slot) {
  if (c.cur)
    for (const auto& [n, s] : c.cur->loop_vars)
      if (s == slot) return n;
  return "?";
}
const char* kAxis[6] = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z"};
}  // namespace

Checker::Checker(const Compiled& p) : prog(p) {
  stamps.resize(p.bufs.size());
  for (std::size_t b = 0; b < p.bufs.size(); ++b)
    if (p.bufs[b].scope != ir::Scope::Global) stamps[b].assign(static_cast<std::size_t>(p.bufs[b].numel), Stamps{});
}

void Checker::access(Ctx& c, int buf, std::int64_t off, bool write) {
  if (prog.bufs[buf].read_only) return;  // never written: reads cannot conflict
  for (auto& fr : frames) {
    const std::int64_t it = c.vars[fr.slot];
    Access& a = fr.map[key(buf, off)];
    bool conflict = false;
    std::int64_t other = -1;  // the other iteration, -1 when not known (several readers)
    const bool other_wrote = a.writer >= 0 && a.writer != it;
    if (other_wrote) {
      conflict = true;
      other = a.writer;
    } else if (write && a.reader >= 0 && a.reader != it) {
      conflict = true;
      other = a.reader;
    } else if (write && a.multi) {
      conflict = true;
    }
    if (conflict) {
      const std::string v = loop_name(c, fr.slot);
      raise(c, Code::E306,
            "element " + element_name(c, buf, off) + " is " + (write ? "written" : "read") + " in iteration " + v +
                "=" + std::to_string(it) + " and " + (other_wrote ? "written" : "read") +
                (other >= 0 ? " in iteration " + v + "=" + std::to_string(other) : " in another iteration") +
                " of the non-reducing parallel loop " + v);
    }
    if (write) {
      a.writer = it;
    } else if (a.reader < 0) {
      a.reader = it;
    } else if (a.reader != it) {
      a.multi = true;
    }
  }
}

void Checker::scoped_read(Ctx& c, const RefInfo& r, std::int64_t off) {
  const ScopedRead& s = prog.scoped[static_cast<std::size_t>(r.scope_check)];
  const Stamps& w = stamps[static_cast<std::size_t>(r.buf)][static_cast<std::size_t>(off)];
  auto bad = [&](int ax, const char* what) {
    raise(c, Code::E307,
          "read of " + std::string(what) + " buffer element " + element_name(c, r.buf, off) +
              " sees a value written in another iteration of the B loop bound to " + kAxis[ax]);
  };
  if (!s.local) {
    if (s.first_axis >= 0 && w[s.first_axis] != axis_stamp[s.first_axis]) bad(s.first_axis, "shared");
    return;
  }
  for (int ax : s.axes)
    if (w[ax] != axis_stamp[ax]) bad(ax, "local");
}

void Checker::write_stamp(const StmtNode& s, std::int64_t off) {
  auto& v = stamps[static_cast<std::size_t>(s.buf)];
  if (v.empty()) return;
  Stamps st{};
  for (int ax : s.b_axes) st[ax] = axis_stamp[ax];
  v[static_cast<std::size_t>(off)] = st;
}

void checked_read(Ctx& c, const RefInfo& r, std::int64_t off) {
  c.chk->access(c, r.buf, off, false);
  if (r.scope_check >= 0) c.chk->scoped_read(c, r, off);
}

void checked_write(Ctx& c, const StmtNode& s, std::int64_t off) {
  c.chk->access(c, s.buf, off, true);
  c.chk->write_stamp(s, off);
}

void NestNode::run_checked(Ctx& c, std::size_t lv) const {
  if (lv == loops.size()) {
    for (const auto& it : body) it->exec(c);
    return;
  }
  const LoopDesc& L = loops[lv];
  Checker& k = *c.chk;
  const std::size_t depth = k.frames.size();
  if (L.track_conflicts) k.frames.push_back(Checker::Frame{L.slot, {}});
  std::int64_t& v = c.vars[L.slot];
  for (v = 0; v < L.extent; ++v) {
    if (L.b_axis >= 0) k.axis_stamp[L.b_axis] = ++k.counter;
    run_checked(c, lv + 1);
  }
  k.frames.resize(depth);
}

}  // namespace steptp::interp::detail
