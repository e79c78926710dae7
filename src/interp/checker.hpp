// Internal to the interpreter: checked mode (LEIR.md §8.5). Detects
//  * E306: two iterations of a non-reducing P/V/B loop accessing one element, at least one access a write;
//  * E307: a read of an `s`/`l` buffer that sees a value written in another iteration of the first B header of its
//    top-level nest (`s`), or of any B loop enclosing the read (`l`).
#pragma once
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "interp/compile.hpp"
#include "interp/stmt_nodes.hpp"

namespace steptp::interp::detail {

struct Checker {
  /// Accesses of one element during one instance of a tracked loop.
  struct Access {
    std::int64_t writer = -1;  // iteration that wrote it
    std::int64_t reader = -1;  // one iteration that read it
    bool multi = false;        // read by two or more different iterations
  };
  struct Frame {
    int slot = 0;
    std::unordered_map<std::uint64_t, Access> map;
  };
  using Stamps = std::array<std::uint64_t, 6>;  // per hardware axis: iteration stamp of the write (0: none)

  explicit Checker(const Compiled& p);

  const Compiled& prog;
  std::vector<Frame> frames;
  std::vector<std::vector<Stamps>> stamps;  // per buffer (s/l only), per element
  Stamps axis_stamp{};                      // current iteration stamp of each axis
  std::uint64_t counter = 0;

  void access(Ctx& c, int buf, std::int64_t off, bool write);
  void scoped_read(Ctx& c, const RefInfo& r, std::int64_t off);
  void write_stamp(const StmtNode& s, std::int64_t off);
};

/// Checked-mode write hook, called by StmtNode::exec_generic for the initialiser and the store.
void checked_write(Ctx& c, const StmtNode& s, std::int64_t off);

}  // namespace steptp::interp::detail
