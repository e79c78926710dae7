// Node-wide measurement slots (`steptp generate --measure-jobs N`, DATASET.md §2.7 and §10): the processes of one
// node (MPI ranks, array tasks that share a node, independent runs of one user) time at most N kernels at once, and
// each of those N runs on its own cores. Slot k is an exclusive flock(2) on LOCK_DIR/slot-k.lock (the kernel drops
// it when the holder exits, even by SIGKILL, so a killed rank never blocks the others); while it is held, the timing
// child is pinned to slot k's block of `threads` CPUs, counted down from the node's last online CPU:
// [n - (k+1)·threads, n - k·threads). Off (0 slots) by default: then the process serialises only its own
// measurements (step/measure_gate.hpp) and pins them to runtime::measure_cpus.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace steptp::runtime {

/// $STEPTP_LOCK_DIR when set, else /tmp/steptp-measure-<uid> (node-local on usual clusters).
std::string default_measure_lock_dir();

/// Configures this process's slots: `slots` >= 1 measurements at a time per node, each on its own `threads` CPUs;
/// 0 turns coordination off. `lock_dir` "" = default_measure_lock_dir(), created (mode 0700) if missing. Throws
/// std::invalid_argument when slots < 0, threads < 1 or slots · threads exceeds the node's online CPUs (the blocks
/// would overlap), std::runtime_error when the lock directory cannot be created.
void set_node_measure_slots(int slots, int threads, const std::string& lock_dir = "");

/// The configured number of slots (0 = off).
int node_measure_slots();

/// One held slot; released (the lock file closed) when the lease ends. An empty lease holds nothing.
class NodeSlotLease {
 public:
  NodeSlotLease() = default;
  NodeSlotLease(int fd, int slot, std::vector<int> cpus) : fd_(fd), slot_(slot), cpus_(std::move(cpus)) {}
  ~NodeSlotLease();
  NodeSlotLease(NodeSlotLease&& o) noexcept;
  NodeSlotLease& operator=(NodeSlotLease&& o) noexcept;
  NodeSlotLease(const NodeSlotLease&) = delete;
  NodeSlotLease& operator=(const NodeSlotLease&) = delete;

  bool held() const { return fd_ >= 0; }
  int slot() const { return slot_; }                      ///< 0 <= slot < node_measure_slots(); -1 when empty
  const std::vector<int>& cpus() const { return cpus_; }  ///< the slot's CPUs (ascending); empty when empty

 private:
  int fd_ = -1, slot_ = -1;
  std::vector<int> cpus_;
};

/// Waits for a free slot (trying each every 2 ms, starting at pid mod slots) and returns its lease; an empty
/// lease at once when coordination is off. Throws std::runtime_error when a lock file cannot be opened.
NodeSlotLease acquire_node_measure_slot();

/// Like acquire_node_measure_slot, but returns an empty lease at once when every slot is taken.
NodeSlotLease try_acquire_node_measure_slot();

}  // namespace steptp::runtime
