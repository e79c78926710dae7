#include "runtime/runner_source.hpp"

namespace steptp::runtime {

const std::string& runner_source() {
  static const std::string src = R"RUNNER(// steptp sandbox runner (src/runtime/runner_source.hpp documents the protocol)
#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

struct Buf { size_t bytes = 0; bool out = false; std::string path; void* p = nullptr; };

static void* alloc_or_die(size_t bytes) {
  void* p = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  if (!p) { fprintf(stderr, "runner: out of memory\n"); _Exit(99); }
  return p;
}

int main(int argc, char** argv) try {
  if (argc != 3) { fprintf(stderr, "usage: runner KERNEL.so SPEC\n"); return 2; }
  std::ifstream spec(argv[2]);
  if (!spec) { fprintf(stderr, "runner: cannot read spec\n"); return 2; }
  std::vector<Buf> bufs;
  long warmup = 0, repeats = 1;
  size_t flush = 0;
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
    } else if (k == "warmup") is >> warmup;
    else if (k == "repeats") is >> repeats;
    else if (k == "flush") is >> flush;
    else if (k == "times") std::getline(is >> std::ws, times_path);
  }
  for (auto& b : bufs) {
    b.p = alloc_or_die(b.bytes);
    memset(b.p, 0, b.bytes);
    if (!b.out) {
      FILE* f = fopen(b.path.c_str(), "rb");
      if (!f || fread(b.p, 1, b.bytes, f) != b.bytes) { fprintf(stderr, "runner: cannot read %s\n", b.path.c_str()); return 2; }
      fclose(f);
    }
  }
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "runner: dlopen: %s\n", dlerror()); return 3; }
  auto fn = reinterpret_cast<void (*)(void* const*)>(dlsym(h, "leir_run_packed"));
  if (!fn) { fprintf(stderr, "runner: dlsym leir_run_packed: %s\n", dlerror()); return 3; }
  std::vector<void*> ptrs;
  for (auto& b : bufs) ptrs.push_back(b.p);
  unsigned char* scratch = flush ? static_cast<unsigned char*>(alloc_or_die(flush)) : nullptr;
  std::vector<double> times;
  for (long i = 0; i < warmup + repeats; ++i) {
    if (scratch) {
      for (size_t j = 0; j < flush; j += 64) scratch[j] = static_cast<unsigned char>(i + j);
    }
    auto t0 = std::chrono::steady_clock::now();
    fn(ptrs.data());
    auto t1 = std::chrono::steady_clock::now();
    if (i >= warmup) times.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  for (auto& b : bufs) {
    if (!b.out) continue;
    FILE* f = fopen(b.path.c_str(), "wb");
    if (!f || fwrite(b.p, 1, b.bytes, f) != b.bytes) { fprintf(stderr, "runner: cannot write %s\n", b.path.c_str()); return 2; }
    fclose(f);
  }
  if (!times_path.empty()) {
    FILE* f = fopen(times_path.c_str(), "w");
    if (!f) return 2;
    for (double t : times) fprintf(f, "%.9e\n", t);
    fclose(f);
  }
  if (scratch) {
    unsigned s = 0;
    for (size_t j = 0; j < flush; j += 4096) s += scratch[j];
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
