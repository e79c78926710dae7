#include "runtime/node_slots.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace steptp::runtime {

namespace {

struct SlotConfig {
  std::mutex mu;
  int slots = 0, threads = 1;
  std::string dir;
};

SlotConfig& config() {
  static SlotConfig c;
  return c;
}

/// One pass over the slots; an empty lease when all are taken.
NodeSlotLease try_once(int slots, int threads, const std::string& dir) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (int j = 0; j < slots; ++j) {
    const int k = int((long(getpid()) + j) % slots);
    const std::string path = dir + "/slot-" + std::to_string(k) + ".lock";
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error("cannot open measurement slot " + path + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::vector<int> cpus;
      for (long c = n - long(k + 1) * threads; c < n - long(k) * threads; ++c) cpus.push_back(int(c));
      return NodeSlotLease(fd, k, std::move(cpus));
    }
    ::close(fd);
  }
  return {};
}

}  // namespace

std::string default_measure_lock_dir() {
  if (const char* d = std::getenv("STEPTP_LOCK_DIR"); d && *d) return d;
  return "/tmp/steptp-measure-" + std::to_string(getuid());
}

void set_node_measure_slots(int slots, int threads, const std::string& lock_dir) {
  if (slots < 0) throw std::invalid_argument("--measure-jobs must be >= 0");
  if (threads < 1) throw std::invalid_argument("--threads must be >= 1");
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (long(slots) * threads > n)
    throw std::invalid_argument("--measure-jobs " + std::to_string(slots) + " x --threads " + std::to_string(threads) +
                                " needs " + std::to_string(long(slots) * threads) + " CPUs for disjoint measurements; "
                                "this node has " + std::to_string(n));
  std::string dir = lock_dir.empty() ? default_measure_lock_dir() : lock_dir;
  if (slots > 0 && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create the measurement lock directory " + dir + ": " + std::strerror(errno));
  auto& c = config();
  std::lock_guard<std::mutex> lock(c.mu);
  c.slots = slots;
  c.threads = threads;
  c.dir = std::move(dir);
}

int node_measure_slots() {
  auto& c = config();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.slots;
}

NodeSlotLease::~NodeSlotLease() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

NodeSlotLease::NodeSlotLease(NodeSlotLease&& o) noexcept : fd_(o.fd_), slot_(o.slot_), cpus_(std::move(o.cpus_)) {
  o.fd_ = -1;
  o.slot_ = -1;
}

NodeSlotLease& NodeSlotLease::operator=(NodeSlotLease&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    slot_ = o.slot_;
    cpus_ = std::move(o.cpus_);
    o.fd_ = -1;
    o.slot_ = -1;
  }
  return *this;
}

NodeSlotLease try_acquire_node_measure_slot() {
  int slots = 0, threads = 1;
  std::string dir;
  {
    auto& c = config();
    std::lock_guard<std::mutex> lock(c.mu);
    slots = c.slots;
    threads = c.threads;
    dir = c.dir;
  }
  if (slots == 0) return {};
  return try_once(slots, threads, dir);
}

NodeSlotLease acquire_node_measure_slot() {
  if (node_measure_slots() == 0) return {};
  for (;;) {
    NodeSlotLease l = try_acquire_node_measure_slot();
    if (l.held()) return l;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace steptp::runtime
