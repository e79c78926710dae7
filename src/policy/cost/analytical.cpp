#include "policy/cost/analytical.hpp"

#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>

#include "policy/cost/program_view.hpp"

namespace steptp::policy::cost {
namespace {

constexpr double kLine = 64.0;  // cache line bytes
/// Share of the other terms a chain-bound nest adds to its chain (analytical.hpp).
constexpr double kChainOverlap = 0.25;

std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

/// "48K", "2048K", "32M" -> bytes; 0 when unreadable.
std::int64_t parse_size(const std::string& s) {
  if (s.empty()) return 0;
  std::size_t pos = 0;
  std::int64_t v = 0;
  try {
    v = std::stoll(s, &pos);
  } catch (const std::exception&) {
    return 0;
  }
  if (pos < s.size() && (s[pos] == 'K' || s[pos] == 'k')) v *= 1024;
  if (pos < s.size() && (s[pos] == 'M' || s[pos] == 'm')) v *= 1024 * 1024;
  return v;
}

/// Data (or unified) cache of `level` from sysfs; 0 when absent.
std::int64_t sysfs_cache(int level) {
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string lv = first_line(dir + "level");
    if (lv.empty()) continue;
    const std::string type = first_line(dir + "type");
    if (lv == std::to_string(level) && type != "Instruction") return parse_size(first_line(dir + "size"));
  }
  return 0;
}

double detect_ghz() {
  const std::string khz = first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  try {
    if (!khz.empty() && std::stod(khz) > 0) return std::stod(khz) / 1e6;
  } catch (const std::exception&) {
  }
  std::ifstream f("/proc/cpuinfo");
  for (std::string l; std::getline(f, l);)
    if (l.rfind("cpu MHz", 0) == 0) {
      auto c = l.find(':');
      try {
        double mhz = c == std::string::npos ? 0 : std::stod(l.substr(c + 1));
        if (mhz > 0) return mhz / 1e3;
      } catch (const std::exception&) {
      }
    }
  return 3.0;
}

// ---- the working-set rule (analytical.hpp) ----

/// How each subscript entry of an access moves with each loop of its statement: coef[d][i] = |coefficient| of
/// loop i in entry d, or for an entry that is not affine 1 when it mentions the loop and 0 otherwise.
struct AccessMotion {
  std::vector<std::vector<double>> coef;
  std::vector<bool> affine;
  AccessMotion(const StmtView& s, const AccessView& a) {
    for (std::size_t d = 0; d < a.dims.size(); ++d) {
      affine.push_back(a.dims[d].has_value());
      coef.emplace_back();
      for (const ir::Loop* l : s.loops)
        coef.back().push_back(a.dims[d] ? static_cast<double>(std::llabs(a.dims[d]->at(l->var)))
                                        : ir::mentions_var(a.ref->args[d], l->var) ? 1.0 : 0.0);
    }
  }
};

/// F_a at chain level k (loops k..d-1 of the statement vary; k == d: none). Bytes.
double footprint(const StmtView& s, const AccessView& a, const AccessMotion& mo, std::size_t k) {
  const std::size_t rank = a.dims.size();
  if (rank == 0) return kLine;
  std::vector<double> span(rank), distinct(rank), shape(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    shape[d] = d < a.shape.size() ? static_cast<double>(a.shape[d]) : 1.0;
    double sp = 1, prod = 1;
    if (mo.affine[d]) {
      for (std::size_t i = k; i < s.loops.size(); ++i) {
        const double c = mo.coef[d][i];
        if (c == 0) continue;
        sp += c * static_cast<double>(s.loops[i]->extent - 1);
        prod *= static_cast<double>(s.loops[i]->extent);
      }
    } else {
      bool moves = false;
      for (std::size_t i = k; i < s.loops.size(); ++i) moves = moves || mo.coef[d][i] != 0;
      sp = prod = moves ? shape[d] : 1.0;
    }
    span[d] = std::min(sp, shape[d]);
    distinct[d] = std::min({prod, sp, shape[d]});
  }
  // the contiguous run: the last dimension, merged with outer ones while everything inside is covered whole and
  // the outer one's indices are a range (a strided outer entry, d*64+tx over 8 values of d, touches 8 separate
  // runs, not one of 449 rows)
  std::size_t d = rank - 1;
  double run_span = span[d], run_distinct = distinct[d], inner = shape[d];
  while (d > 0 && distinct[d] >= shape[d] && (d == rank - 1 || run_distinct >= inner) && distinct[d - 1] >= span[d - 1]) {
    --d;
    run_span = (span[d] - 1) * inner + run_span;
    run_distinct *= distinct[d];
    inner *= shape[d];
  }
  double rest = 1;
  for (std::size_t i = 0; i < d; ++i) rest *= distinct[i];
  const double lines = std::min(run_distinct, std::ceil(run_span * a.elem_bytes / kLine));
  return rest * std::max(1.0, lines) * kLine;
}

/// The working-set rule's inputs for one top-level nest, computed once for every cache level: access keys and
/// loops as small integers, each statement's footprints per (chain level, access), and W(L) per loop.
struct NestFootprints {
  struct Stmt {
    std::vector<std::size_t> loops;             // loop ids, outermost first
    std::vector<double> extents;                // their extents
    std::vector<std::size_t> keys;              // access key id per access
    std::vector<std::vector<double>> fp;        // fp[k][access]: footprint at chain level k (k <= depth)
  };
  std::vector<Stmt> stmts;
  std::vector<double> ws;                       // W(L) per loop id
  std::size_t key_count = 0;
  std::vector<std::string> key_buffer;          // the buffer of each access key
  std::map<std::string, double> buffer_bytes;   // bytes of each buffer the nest touches

  explicit NestFootprints(const std::vector<const StmtView*>& views) {
    std::map<const ir::Loop*, std::size_t> loop_id;
    std::map<std::string, std::size_t> key_id;
    for (const StmtView* s : views) {
      Stmt st;
      for (const ir::Loop* l : s->loops) {
        st.loops.push_back(loop_id.emplace(l, loop_id.size()).first->second);
        st.extents.push_back(static_cast<double>(l->extent));
      }
      std::vector<AccessMotion> motion;
      for (const auto& a : s->accesses) {
        const auto [it, added] = key_id.emplace(a.key, key_id.size());
        if (added) key_buffer.push_back(a.buffer);
        st.keys.push_back(it->second);
        motion.emplace_back(*s, a);
        double bytes = a.elem_bytes;
        for (std::int64_t d : a.shape) bytes *= static_cast<double>(d);
        buffer_bytes[a.buffer] = bytes;
      }
      for (std::size_t k = 0; k <= s->loops.size(); ++k) {
        st.fp.emplace_back();
        for (std::size_t i = 0; i < s->accesses.size(); ++i)
          st.fp.back().push_back(footprint(*s, s->accesses[i], motion[i], k));
      }
      stmts.push_back(std::move(st));
    }
    key_count = key_id.size();
    // W(L) per loop: sum over distinct access keys under L of the largest footprint at L
    std::vector<std::vector<double>> under(loop_id.size(), std::vector<double>(key_count, 0.0));
    for (const Stmt& st : stmts)
      for (std::size_t k = 0; k < st.loops.size(); ++k)
        for (std::size_t i = 0; i < st.keys.size(); ++i) {
          double& f = under[st.loops[k]][st.keys[i]];
          f = std::max(f, st.fp[k][i]);
        }
    for (const auto& u : under) {
      double w = 0;
      for (double x : u) w += x;
      ws.push_back(w);
    }
  }
};

/// The buffers a cache holds between nests (analytical.hpp): most recently touched last. A buffer is resident when
/// it and every buffer touched after it fit the capacity together.
struct CacheHistory {
  std::vector<std::pair<std::string, double>> recent;
  bool resident(const std::string& buffer, double capacity) const {
    double bytes = 0;
    for (auto it = recent.rbegin(); it != recent.rend(); ++it) {
      bytes += it->second;
      if (bytes > capacity) return false;
      if (it->first == buffer) return true;
    }
    return false;
  }
  void touch(const std::map<std::string, double>& buffers) {
    for (const auto& [name, bytes] : buffers) {
      std::erase_if(recent, [&](const auto& r) { return r.first == name; });
      recent.emplace_back(name, bytes);
    }
  }
};

/// Bytes moved into a cache of `capacity` bytes by the statements of one top-level nest; an access of a statement
/// whose loops all fit loads nothing when an earlier nest left its buffer in the cache (`history`).
double nest_traffic(const NestFootprints& nf, double capacity, const CacheHistory& history) {
  // traffic per (access key, loop L that does not fit; none: the whole nest fits), counted once
  std::map<std::pair<std::size_t, std::size_t>, double> traffic;
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  for (const NestFootprints::Stmt& st : nf.stmts) {
    const std::size_t depth = st.loops.size();
    std::size_t miss = depth;  // depth: no loop overflows
    for (std::size_t k = depth; k-- > 0;)
      if (nf.ws[st.loops[k]] > capacity) {
        miss = k;
        break;
      }
    double outside = 1;  // runs of the loop that overflows; the whole nest runs once when none does
    if (miss < depth)
      for (std::size_t i = 0; i < miss; ++i) outside *= st.extents[i];
    const std::size_t at = miss == depth ? kNone : st.loops[miss];
    for (std::size_t i = 0; i < st.keys.size(); ++i) {
      if (at == kNone && history.resident(nf.key_buffer[st.keys[i]], capacity)) continue;
      double& t = traffic[{st.keys[i], at}];
      t = std::max(t, st.fp[miss == depth ? 0 : miss][i] * outside);  // level 0 when nothing overflows
    }
  }
  double total = 0;
  for (const auto& kv : traffic) total += kv.second;
  return total;
}

/// Vector registers of the ISA the model assumes: 32 with AVX-512 (16 lanes), else 16.
double vector_registers(const MachineModel& m) { return m.vector_lanes_f32 >= 16 ? 32 : 16; }

/// Index in s.loops of the innermost loop that access `a` does not mention; s.loops.size() when it mentions all.
std::size_t innermost_unmentioned(const StmtView& s, const AccessView& a) {
  for (std::size_t k = s.loops.size(); k-- > 0;)
    if (!ir::mentions_var(*a.ref, s.loops[k]->var)) return k;
  return s.loops.size();
}

/// Is access `a` of `s` a register block (analytical.hpp, mem_ops)?
bool register_block(const StmtView& s, const AccessView& a, const MachineModel& m) {
  if (a.scope != ir::Scope::Local || a.gather || s.loops.size() < 2) return false;
  const std::size_t r = innermost_unmentioned(s, a);
  if (r + 1 >= s.loops.size()) return false;  // none, or the innermost loop (then the access is invariant)
  double elems = 1;
  for (std::size_t k = r + 1; k < s.loops.size(); ++k) {
    if (k + 1 < s.loops.size() && s.loops[k]->kind != ir::LoopKind::U) return false;
    elems *= static_cast<double>(s.loops[k]->extent);
  }
  return elems * a.elem_bytes <= vector_registers(m) / 2.0 * m.vector_lanes_f32 * 4.0;
}

/// The unrolled band of `s` (analytical.hpp, mem_ops): the U loops directly outside its innermost loop, as
/// indices [first, innermost) into s.loops; empty (first == innermost) when there is none or it does not fit in
/// the vector register file, one register per (band iteration, vector of the innermost loop).
std::pair<std::size_t, std::size_t> unrolled_band(const StmtView& s, const MachineModel& m) {
  const std::size_t n = s.loops.size();
  if (n < 2) return {n, n};
  std::size_t first = n - 1;
  double iters = 1;
  while (first > 0 && s.loops[first - 1]->kind == ir::LoopKind::U) {
    --first;
    iters *= static_cast<double>(s.loops[first]->extent);
  }
  const double vec = std::max(1, vector_width(s, m.vector_lanes_f32));
  const double vectors = iters * std::ceil(static_cast<double>(s.loops.back()->extent) / vec);
  if (vectors > vector_registers(m)) return {n - 1, n - 1};
  return {first, n - 1};
}

/// mem_ops(S) of analytical.hpp: loads and stores per instance.
double memory_ops(const StmtView& s, const MachineModel& m) {
  const auto [band_first, band_end] = unrolled_band(s, m);
  double ops = 0;
  for (const auto& a : s.accesses) {
    if (!s.loops.empty()) {
      const auto st = a.stride(s.loops.back()->var);
      if (st && *st == 0) continue;
    }
    if (register_block(s, a, m)) continue;
    double reuse = 1;  // band iterations that share the access's registers
    for (std::size_t k = band_first; k < band_end; ++k)
      if (!ir::mentions_var(*a.ref, s.loops[k]->var)) reuse *= static_cast<double>(s.loops[k]->extent);
    ops += (a.write && a.read ? 2 : 1) / reuse;
  }
  return ops;
}

/// Cycles per instance of the accumulation chain of `s` (analytical.hpp, latency_s and chain_s), or 0 when its
/// write is not an accumulator carried across a loop of the statement. `block` says which term it belongs to: true
/// for a register block (latency_s), false for the rest (chain_s).
double chain_cycles_per_instance(const StmtView& s, const MachineModel& m, bool& block) {
  block = false;
  if (s.loops.empty() || s.accesses.empty()) return 0;
  const AccessView& w = s.accesses.front();
  if (!w.write || !w.read || w.gather) return 0;
  const std::size_t red = innermost_unmentioned(s, w);  // the reduction loop
  if (red >= s.loops.size()) return 0;
  double chains = 1;
  for (std::size_t k = red + 1; k < s.loops.size(); ++k) chains *= static_cast<double>(s.loops[k]->extent);
  if (red + 1 == s.loops.size()) chains *= outer_vector_width(s, m.vector_lanes_f32);  // one chain per lane
  const double add = ir::is_float(s.dtype) ? m.add_latency_cycles : 1.0;
  block = red + 1 < s.loops.size() && register_block(s, w, m);
  // a block, or a scalar kept in a register across the innermost loop, waits for the add; other accumulators also
  // for the store-to-load forwarding of their previous value
  const bool in_register = block || red + 1 == s.loops.size();
  return (in_register ? add : add + m.store_forward_cycles) / chains;
}

int stmt_parallelism(const StmtView& s, int threads) {
  if (s.parallel_loop < 0) return 1;
  return static_cast<int>(std::min<std::int64_t>(threads, s.loops[s.parallel_loop]->extent));
}

}  // namespace

MachineModel MachineModel::detect(int threads) {
  MachineModel m;
  m.threads = std::max(1, threads);
  const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE),
             l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const std::int64_t s1 = l1 > 0 ? l1 : sysfs_cache(1), s2 = l2 > 0 ? l2 : sysfs_cache(2),
                     s3 = l3 > 0 ? l3 : sysfs_cache(3);
  if (s1 > 0) m.l1_bytes = s1;
  if (s2 > 0) m.l2_bytes = s2;
  if (s3 > 0) m.llc_bytes = s3;
  if (m.llc_bytes < m.l2_bytes) m.llc_bytes = m.l2_bytes;  // no L3: the L2 is the last level
  m.ghz = detect_ghz();
#if defined(__x86_64__) || defined(__i386__)
  m.vector_lanes_f32 = __builtin_cpu_supports("avx512f") ? 16 : __builtin_cpu_supports("avx2") ? 8 : 4;
  // AMD Zen (family 17h-1Ah) has two FP multiply/FMA pipes beside two FP add pipes: a multiply and an add issue in
  // the same cycle (uncontracted kernels, -ffp-contract=off, keep them two instructions; contracted ones, search's
  // default, issue two FMAs a cycle: the same 4 flops). Floating add
  // latency: 3 cycles on Zen 1-4, 2 on Zen 5 (family 1Ah). Other cores keep the defaults (two FMA pipes, 4 cycles).
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x68747541u /* "Auth" of AuthenticAMD */ &&
      __get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    const unsigned base = (eax >> 8) & 0xf, family = base == 0xf ? base + ((eax >> 20) & 0xff) : base;
    if (family >= 0x17) {
      m.flops_per_cycle_scalar = 4.0;
      m.add_latency_cycles = family >= 0x1a ? 2.0 : 3.0;
    }
  }
#else
  m.vector_lanes_f32 = 4;
#endif
  return m;
}

core::ojson MachineModel::to_json() const {
  return core::ojson{{"flops_per_cycle_scalar", flops_per_cycle_scalar},
                     {"ghz", ghz},
                     {"vector_lanes_f32", vector_lanes_f32},
                     {"l1_bytes", l1_bytes},
                     {"l2_bytes", l2_bytes},
                     {"llc_bytes", llc_bytes},
                     {"dram_bytes_per_s", dram_bytes_per_s},
                     {"llc_bytes_per_s", llc_bytes_per_s},
                     {"l2_bytes_per_s", l2_bytes_per_s},
                     {"threads", threads},
                     {"mem_ops_per_cycle", mem_ops_per_cycle},
                     {"add_latency_cycles", add_latency_cycles},
                     {"store_forward_cycles", store_forward_cycles}};
}

MachineModel MachineModel::from_json(const core::ojson& j) {
  auto num = [&](const char* k) {
    if (!j.is_object() || !j.contains(k) || !j[k].is_number() || j[k].get<double>() <= 0)
      throw std::runtime_error(std::string("machine model: member '") + k + "' missing or not a positive number");
    return j[k].get<double>();
  };
  MachineModel m;
  m.flops_per_cycle_scalar = num("flops_per_cycle_scalar");
  m.ghz = num("ghz");
  m.vector_lanes_f32 = static_cast<int>(num("vector_lanes_f32"));
  m.l1_bytes = static_cast<std::int64_t>(num("l1_bytes"));
  m.l2_bytes = static_cast<std::int64_t>(num("l2_bytes"));
  m.llc_bytes = static_cast<std::int64_t>(num("llc_bytes"));
  m.dram_bytes_per_s = num("dram_bytes_per_s");
  m.llc_bytes_per_s = num("llc_bytes_per_s");
  m.l2_bytes_per_s = num("l2_bytes_per_s");
  m.threads = static_cast<int>(num("threads"));
  if (j.contains("mem_ops_per_cycle")) m.mem_ops_per_cycle = num("mem_ops_per_cycle");
  if (j.contains("add_latency_cycles")) m.add_latency_cycles = num("add_latency_cycles");
  if (j.contains("store_forward_cycles")) m.store_forward_cycles = num("store_forward_cycles");
  return m;
}

Estimate analytical_estimate(const ProgramView& v, const MachineModel& m) {
  Estimate e;
  const double rate = m.ghz * 1e9 * m.flops_per_cycle_scalar;
  CacheHistory l1, l2, llc;
  for (std::size_t n = 0; n < v.nests; ++n) {
    std::vector<const StmtView*> stmts;
    for (const auto& s : v.stmts)
      if (s.nest == n) stmts.push_back(&s);
    NestEstimate ne;
    const StmtView* heaviest = nullptr;
    for (const StmtView* s : stmts) {
      const double vec = vector_width(*s, m.vector_lanes_f32);
      const double lanes_par = vec * stmt_parallelism(*s, m.threads);
      ne.compute_s += static_cast<double>(s->instances) * std::max(1.0, s->work) / (rate * lanes_par);
      ne.issue_s += static_cast<double>(s->instances) * memory_ops(*s, m) /
                    (m.ghz * 1e9 * m.mem_ops_per_cycle * lanes_par);
      bool block = false;
      const double chain = static_cast<double>(s->instances) * chain_cycles_per_instance(*s, m, block) /
                           (m.ghz * 1e9 * stmt_parallelism(*s, m.threads));
      (block ? ne.latency_s : ne.chain_s) += chain;
      if (!heaviest || s->instances > heaviest->instances) heaviest = s;
    }
    ne.parallelism = heaviest ? stmt_parallelism(*heaviest, m.threads) : 1;
    const NestFootprints nf(stmts);
    ne.traffic_l1 = nest_traffic(nf, static_cast<double>(m.l1_bytes), l1);
    ne.traffic_l2 = nest_traffic(nf, static_cast<double>(m.l2_bytes), l2);
    ne.traffic_llc = nest_traffic(nf, static_cast<double>(m.llc_bytes), llc);
    for (CacheHistory* h : {&l1, &l2, &llc}) h->touch(nf.buffer_bytes);
    const double p = ne.parallelism;
    ne.memory_s = ne.traffic_l1 / (m.l2_bytes_per_s * p) + ne.traffic_l2 / (m.llc_bytes_per_s * p) +
                  ne.traffic_llc / (m.dram_bytes_per_s * std::min(p, 4.0));
    ne.seconds = std::max({ne.compute_s, ne.memory_s, ne.issue_s, ne.latency_s});
    if (ne.chain_s > ne.seconds) ne.seconds = ne.chain_s + kChainOverlap * ne.seconds;
    e.compute_s += ne.compute_s;
    e.memory_s += ne.memory_s;
    e.issue_s += ne.issue_s;
    e.latency_s += ne.latency_s;
    e.chain_s += ne.chain_s;
    e.seconds += ne.seconds;
    e.traffic_l1 += ne.traffic_l1;
    e.traffic_l2 += ne.traffic_l2;
    e.traffic_llc += ne.traffic_llc;
    e.nests.push_back(ne);
  }
  return e;
}

Estimate analytical_estimate(const ir::Task& t, const MachineModel& m) {
  const ProgramView v(t);
  return analytical_estimate(v, m);
}

}  // namespace steptp::policy::cost
