// Node-wide measurement slots (src/runtime/node_slots.hpp, `generate --measure-jobs`): N flock slots give N
// concurrent leases on disjoint CPU blocks counted down from the last CPU, a further one waits, a released or
// SIGKILLed holder frees its slot, and slots x threads beyond the node's CPUs is refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "runtime/node_slots.hpp"

using namespace steptp::runtime;
namespace fs = std::filesystem;

namespace {
struct SlotsOff {  // the slots are process-wide: leave them off for the other tests of this binary
  ~SlotsOff() { set_node_measure_slots(0, 1); }
};
}  // namespace

TEST(NodeSlots, LeasesAreExclusiveDisjointAndFreedByRelease) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 2) GTEST_SKIP() << "needs 2 CPUs";
  const std::string dir = (fs::temp_directory_path() / ("steptp-slots-" + std::to_string(getpid()))).string();
  SlotsOff off;
  EXPECT_FALSE(try_acquire_node_measure_slot().held()) << "off by default";
  set_node_measure_slots(2, 1, dir);
  EXPECT_EQ(node_measure_slots(), 2);
  NodeSlotLease a = try_acquire_node_measure_slot(), b = try_acquire_node_measure_slot();
  ASSERT_TRUE(a.held() && b.held());
  EXPECT_NE(a.slot(), b.slot());
  for (const auto* l : {&a, &b}) EXPECT_EQ(l->cpus(), std::vector<int>{int(n) - 1 - l->slot()});
  EXPECT_FALSE(try_acquire_node_measure_slot().held()) << "both slots are taken";
  const int freed = a.slot();
  a = NodeSlotLease();
  NodeSlotLease c = acquire_node_measure_slot();
  EXPECT_EQ(c.slot(), freed);
  EXPECT_THROW(set_node_measure_slots(int(n), 2, dir), std::invalid_argument);
  EXPECT_THROW(set_node_measure_slots(-1, 1, dir), std::invalid_argument);
  fs::remove_all(dir);
}

TEST(NodeSlots, AKilledHolderFreesItsSlot) {
  const std::string dir = (fs::temp_directory_path() / ("steptp-slots-kill-" + std::to_string(getpid()))).string();
  SlotsOff off;
  set_node_measure_slots(1, 1, dir);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  if (child == 0) {  // another process of the node holds the only slot until it is killed
    NodeSlotLease l = acquire_node_measure_slot();
    char ok = l.held() ? 'y' : 'n';
    if (write(fds[1], &ok, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char ok = 0;
  ASSERT_EQ(read(fds[0], &ok, 1), 1);
  EXPECT_EQ(ok, 'y');
  EXPECT_FALSE(try_acquire_node_measure_slot().held()) << "the other process holds the slot";
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_TRUE(try_acquire_node_measure_slot().held()) << "the kernel released the killed holder's lock";
  close(fds[0]);
  close(fds[1]);
  fs::remove_all(dir);
}
