#include "runtime/runner_source.hpp"

namespace steptp::runtime {

const std::string& runner_source() {
  static const std::string src = R"RUNNER(// steptp sandbox runner (src/runtime/runner_source.hpp documents the protocol)
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

struct Buf { size_t bytes = 0; bool out = false; std::string path; void* p = nullptr; };
using Fn = void (*)(void* const*);

static void* alloc_or_die(size_t bytes) {
  void* p = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  if (!p) { fprintf(stderr, "runner: out of memory\n"); _Exit(99); }
  return p;
}

static unsigned char* g_scratch = nullptr;
static size_t g_flush = 0;
static unsigned g_flush_round = 0;
static void flush_cache() {
  if (!g_scratch) return;
  ++g_flush_round;
  for (size_t j = 0; j < g_flush; j += 64) g_scratch[j] = static_cast<unsigned char>(g_flush_round + j);
}

// One batch: `number` back-to-back calls, timed as a whole (seconds).
static double batch(Fn fn, void* const* ptrs, long number) {
  flush_cache();
  auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < number; ++n) fn(ptrs);
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

int main(int argc, char** argv) try {
  if (argc != 3) { fprintf(stderr, "usage: runner KERNEL.so SPEC\n"); return 2; }
  // Same addresses in every run (like `setarch -R`): buffer and code placement otherwise changes from one child to
  // the next, and with it cache-set and 4K-aliasing effects that make a re-measurement disagree.
  const int pers = personality(0xffffffff);
  if (pers != -1 && !(pers & ADDR_NO_RANDOMIZE) && personality(pers | ADDR_NO_RANDOMIZE) != -1)
    execv("/proc/self/exe", argv);  // on failure, carry on with randomised addresses
  // Kernels allocate their intermediate buffers on every call (leir_alloc, free at the end). By default glibc
  // serves a large block with a fresh mmap and trims the heap top on free, so every call would pay a page fault
  // per intermediate page: an operating-system cost that varies with the allocator's history (bimodal timings
  // across child processes) and that a framework's caching allocator (PyTorch's) does not pay. Serve every block
  // from the heap and keep freed memory for the next call.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  std::ifstream spec(argv[2]);
  if (!spec) { fprintf(stderr, "runner: cannot read spec\n"); return 2; }
  std::vector<Buf> bufs;
  std::vector<std::string> kernels{argv[1]};
  long warmup = 0, repeats = 1, number = 1, max_number = 1L << 20;
  double min_batch = 0, budget = 0;
  int write_outputs = 1;
  std::vector<int> pin;
  std::string times_path, line;
  while (std::getline(spec, line)) {
    std::istringstream is(line);
    std::string k;
    is >> k;
    if (k == "buffer") {
      Buf b; std::string dir;
      is >> b.bytes >> dir;
      std::getline(is >> std::ws, b.path);
      b.out = dir == "out";
      bufs.push_back(b);
    } else if (k == "kernel") { std::string p; std::getline(is >> std::ws, p); kernels.push_back(p); }
    else if (k == "warmup") is >> warmup;
    else if (k == "repeats") is >> repeats;
    else if (k == "number") is >> number;
    else if (k == "min_batch_s") is >> min_batch;
    else if (k == "budget_s") is >> budget;
    else if (k == "max_number") is >> max_number;
    else if (k == "flush") is >> g_flush;
    else if (k == "pin") { int c; while (is >> c) pin.push_back(c); }
    else if (k == "times") std::getline(is >> std::ws, times_path);
    else if (k == "outputs") is >> write_outputs;
  }
  if (!pin.empty()) {  // best effort: a CPU outside the allowed set leaves the affinity as it was
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : pin) if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) fprintf(stderr, "runner: sched_setaffinity failed\n");
  }
  // All buffers in one anonymous arena, 2 MiB aligned and advised for transparent huge pages: physical placement
  // inside a huge page is contiguous, so which cache sets a buffer maps to is the same in every child (with 4 KiB
  // pages it changes from one process to the next, and so does a kernel's time by a few percent). Buffers follow
  // each other at 64-byte boundaries with a 64-byte gap. Inputs are read in (their files are raw storage bytes).
  const size_t huge = size_t(2) << 20;
  size_t total = 0;
  std::vector<size_t> offset;
  for (auto& b : bufs) {
    offset.push_back(total);
    total += (b.bytes + 63) / 64 * 64 + 64;
  }
  total = (total + huge - 1) / huge * huge;
  unsigned char* arena = nullptr;
  if (total > 0) {
    void* m = mmap(nullptr, total + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) { fprintf(stderr, "runner: out of memory\n"); return 99; }
    arena = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(m) + huge - 1) / huge * huge);
#ifdef MADV_HUGEPAGE
    madvise(arena, total, MADV_HUGEPAGE);  // best effort: without THP the arena is ordinary pages
#endif
  }
  for (size_t i = 0; i < bufs.size(); ++i) {
    Buf& b = bufs[i];
    b.p = arena + offset[i];
    if (!b.out && b.bytes > 0) {
      int fd = open(b.path.c_str(), O_RDONLY);
      struct stat st;
      size_t got = 0;
      if (fd >= 0 && fstat(fd, &st) == 0 && size_t(st.st_size) == b.bytes)
        while (got < b.bytes) {
          const ssize_t n = read(fd, static_cast<unsigned char*>(b.p) + got, b.bytes - got);
          if (n <= 0) break;
          got += size_t(n);
        }
      if (fd >= 0) close(fd);
      if (got != b.bytes) { fprintf(stderr, "runner: cannot read %s\n", b.path.c_str()); return 2; }
      continue;
    }
    memset(b.p, 0, b.bytes);
  }
  std::vector<Fn> fns;
  for (const auto& kp : kernels) {
    void* h = dlopen(kp.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "runner: dlopen: %s\n", dlerror()); return 3; }
    auto fn = reinterpret_cast<Fn>(dlsym(h, "leir_run_packed"));
    if (!fn) { fprintf(stderr, "runner: dlsym leir_run_packed: %s\n", dlerror()); return 3; }
    fns.push_back(fn);
  }
  std::vector<void*> ptrs;
  for (auto& b : bufs) ptrs.push_back(b.p);
  g_scratch = g_flush ? static_cast<unsigned char*>(alloc_or_die(g_flush)) : nullptr;
  const size_t K = fns.size();
  // Warmup; the first call of each kernel is timed to size its budget.
  std::vector<double> first(K, 0.0);
  for (size_t k = 0; k < K; ++k)
    for (long i = 0; i < (warmup > 0 ? warmup : 1); ++i) {
      const double t = batch(fns[k], ptrs.data(), 1);
      if (i == 0) first[k] = t;
      if (budget > 0 && first[k] * double(i + 1) > budget / 4) break;  // a slow kernel is warm after fewer calls
    }
  // Calibration (DATASET.md §2.7): the smallest power of two whose batch lasts >= min_batch_s, at most max_number.
  std::vector<long> numbers(K, number < 1 ? 1 : number);
  if (min_batch > 0 && !g_scratch)
    for (size_t k = 0; k < K; ++k) {
      long n = 1;
      if (first[k] < min_batch)
        while (n < max_number && batch(fns[k], ptrs.data(), n) < min_batch) n *= 2;
      numbers[k] = n;
    }
  // Settling: one untimed round in each order (A..Z, then Z..A) before the timed rounds. Each kernel's warm-up ran
  // alone, so the heap holds only its own intermediates; the first time another kernel's allocations sit between
  // them, the next call grows the heap and faults in fresh pages (LayerNorm's 2 MiB intermediate after a fused
  // child: 6.6 ms instead of 0.8 ms on round 0, then 0.8 ms; bench/RESULTS.md "Settling round"). With three
  // sessions of two rounds, that one slow round was the median. A kernel too slow for its warm-up budget is left out.
  if (K > 1)
    for (int r = 0; r < 2; ++r)
      for (size_t j = 0; j < K; ++j) {
        const size_t k = r == 0 ? j : K - 1 - j;
        if (budget > 0 && first[k] * double(warmup > 0 ? warmup : 1) > budget / 4) continue;
        batch(fns[k], ptrs.data(), 1);
      }
  // Per-kernel budget: a kernel whose repeats would exceed budget_s seconds gets fewer rounds (at least 1).
  std::vector<long> rounds(K, repeats);
  if (budget > 0)
    for (size_t k = 0; k < K; ++k) {
      const double per_batch = first[k] * double(numbers[k]);
      if (per_batch > 0 && per_batch * double(repeats) > budget) {
        long r = long(budget / per_batch);
        rounds[k] = r < 1 ? 1 : r;
      }
    }
  // Rounds interleaved ABBA: even rounds run the kernels in order, odd rounds in reverse order.
  std::vector<std::vector<double>> per_call(K);
  for (long r = 0; r < repeats; ++r)
    for (size_t j = 0; j < K; ++j) {
      const size_t k = (r % 2 == 0) ? j : K - 1 - j;
      if (r >= rounds[k]) continue;
      per_call[k].push_back(batch(fns[k], ptrs.data(), numbers[k]) / double(numbers[k]));
    }
  for (auto& b : bufs) {
    if (!b.out || !write_outputs) continue;
    FILE* f = fopen(b.path.c_str(), "wb");
    if (!f || fwrite(b.p, 1, b.bytes, f) != b.bytes) { fprintf(stderr, "runner: cannot write %s\n", b.path.c_str()); return 2; }
    fclose(f);
  }
  if (!times_path.empty()) {
    FILE* f = fopen(times_path.c_str(), "w");
    if (!f) return 2;
    for (size_t k = 0; k < K; ++k)
      for (size_t r = 0; r < per_call[k].size(); ++r) fprintf(f, "%zu %zu %ld %.9e\n", k, r, numbers[k], per_call[k][r]);
    fclose(f);
  }
  if (g_scratch) {
    unsigned s = 0;
    for (size_t j = 0; j < g_flush; j += 4096) s += g_scratch[j];
    if (s == 0xdeadbeef) fprintf(stderr, "#");  // keep the flush writes observable
  }
  return 0;
} catch (const std::bad_alloc&) {
  fprintf(stderr, "runner: out of memory\n");
  return 99;
}
)RUNNER";
  return src;
}

}  // namespace steptp::runtime
