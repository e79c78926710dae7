#include "step/timing.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "step/facts.hpp"
#include "base/hash.hpp"
#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "lower/lower.hpp"
#include "runtime/compile.hpp"
#include "runtime/interleaved.hpp"
#include "runtime/kernel.hpp"

namespace steptp::dataset {

std::string env_fingerprint(const GenConfig& cfg) {
  if (cfg.timer == "fixed") return "fixed";
  std::string cpu;
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line;
      break;
    }
  utsname u{};
  uname(&u);
  const runtime::CompileOptions co = runtime::kernel_compile_options(cfg.fp_contract);
  std::string s = H({cpu, std::to_string(std::thread::hardware_concurrency()), std::to_string(cfg.threads), co.cxx,
                     co.flags, u.release, kSteptpVersion});
  return s.substr(0, 16);
}

Timer::Timer(const GenConfig& cfg, Cache* cache, MeasureGate* shared_gate)
    : cfg_(cfg), cache_(cache), env_(env_fingerprint(cfg)), gate_(shared_gate ? shared_gate : &own_gate_) {
  mcfg_ = "timer=" + cfg_.timer + ";repeats=" + std::to_string(cfg_.repeats) + ";warmup=" + std::to_string(cfg_.warmup) +
          ";threads=" + std::to_string(cfg_.threads) + ";min_repeat_ms=" + fmt::format("{}", cfg_.min_repeat_ms) +
          ";cold=" + (cfg_.cold_cache ? "1" : "0") + ";noise_limit=" + fmt::format("{}", cfg_.noise_limit) +
          ";sessions=" + std::to_string(cfg_.measure_sessions);
}

namespace {

ojson latency_json(const runtime::ProgramTiming& p) {
  return {{"median_ns", p.stats.median * 1e9}, {"q1_ns", p.stats.q1 * 1e9}, {"q3_ns", p.stats.q3 * 1e9},
          {"iqr_ns", p.stats.iqr * 1e9}, {"repeats", p.repeats}, {"number", p.number}};
}

std::int64_t model_ns(const ir::Task& t) {
  ProgramMetrics m = program_metrics(t);
  return std::llround(100 + 0.1 * double(m.flops) + 0.02 * double(m.footprint) + 0.2 * double(m.iterations));
}

/// The `noisy` rule of a pair (bench/RESULTS.md, "Grounded measurement"): with m the median of the n per-round ratios
/// before/after (their quartiles q) and h = 1.57 · IQR / sqrt(n) / m the relative half-width of its approximate 95%
/// confidence interval (the boxplot notch of McGill, Tukey and Larsen 1978), the pair is noisy when h > limit and the
/// interval [m·(1-h), m·(1+h)] contains a verdict threshold, 0.95 or 1.05: the measurement cannot tell faster, neutral and
/// slower apart. Undefined statistics (no rounds, zero median) are noisy.
bool noisy_pair(const runtime::TimeStats& q, double n, double limit) {
  if (!(q.median > 0) || n < 1) return true;
  const double h = 1.57 * q.iqr / std::sqrt(n) / q.median;
  const double lo = q.median * (1 - h), hi = q.median * (1 + h);
  const bool straddles = (lo <= 0.95 && hi >= 0.95) || (lo <= 1.05 && hi >= 1.05);
  return h > limit && straddles;
}

}  // namespace

std::string Timer::cache_key(const TimedProgram& before, const TimedProgram& after, const TimedProgram* root) const {
  return H({"steptp.meas/3", before.prog_key, after.prog_key, root ? root->prog_key : "", env_, mcfg_});
}

ojson Timer::measure(const TimedProgram& before, const TimedProgram& after, const TimedProgram* root) {
  auto out = measure_batch(before, {after}, root);
  if (!out[0].error.empty()) throw std::runtime_error(out[0].error);
  return out[0].measurement;
}

std::vector<Timer::Outcome> Timer::measure_batch(const TimedProgram& before, const std::vector<TimedProgram>& afters,
                                                 const TimedProgram* root) {
  if (root && root->prog_key == before.prog_key) root = nullptr;
  std::vector<Outcome> out(afters.size());
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < afters.size(); ++i) {
    if (cache_)
      if (auto v = cache_->get("measurements", cache_key(before, afters[i], root))) {
        ojson j = ojson::parse(*v);
        if (j.contains("error")) out[i].error = j["error"].get<std::string>();
        else {
          j.erase("samples");
          out[i].measurement = std::move(j);
        }
        continue;
      }
    todo.push_back(i);
  }
  if (todo.empty()) return out;
  if (cfg_.timer == "fixed") {
    for (std::size_t i : todo) {
      try {
        out[i].measurement = measure_fixed(before, afters[i], root);
      } catch (const std::exception& e) {
        out[i].error = std::string("runtime_crash: ") + e.what();
      }
    }
  } else {
    measure_real(before, afters, root, todo, out);
  }
  for (std::size_t i : todo) {
    if (cache_)
      cache_->put("measurements", cache_key(before, afters[i], root),
                  dump_py(out[i].error.empty() ? out[i].measurement : ojson{{"error", out[i].error}}));
    if (out[i].error.empty()) out[i].measurement.erase("samples");
  }
  return out;
}

ojson Timer::measure_fixed(const TimedProgram& before, const TimedProgram& after, const TimedProgram* root) const {
  const std::int64_t b = model_ns(*before.task), a = model_ns(*after.task);
  const std::int64_t r = root ? model_ns(*root->task) : b;
  auto lat = [&](std::int64_t ns) {
    return ojson{{"median_ns", ns}, {"q1_ns", ns}, {"q3_ns", ns}, {"iqr_ns", 0}, {"repeats", cfg_.repeats}, {"number", 1}};
  };
  const double sp = a > 0 ? double(b) / double(a) : 0.0;
  ojson m = {{"before", lat(b)}, {"after", lat(a)}, {"speedup", sp}, {"speedup_q1", sp}, {"speedup_q3", sp},
          {"speedup_vs_root", a > 0 ? double(r) / double(a) : 0.0}, {"noisy", false}, {"redone", false},
          {"sessions", cfg_.measure_sessions}, {"order", "ABBA"}, {"threads", cfg_.threads},
          {"cache", cfg_.cold_cache ? "cold" : "warm"}, {"env", env_}};
  if (cfg_.fp_contract) m["fp_contract"] = true;
  return m;
}

std::string Timer::compile_flags() const { return runtime::kernel_compile_options(cfg_.fp_contract).flags; }

std::shared_ptr<const runtime::StagedInputs> Timer::staged_inputs(const TimedProgram& before) {
  std::lock_guard<std::mutex> lock(staged_mu_);
  for (const auto& [k, v] : staged_)
    if (k == before.prog_key) return v;
  // Inputs: seeded standard-normal draws for the before program (§2.7 step 1), written once per program.
  const auto inputs = equiv::make_inputs(*before.task, derive(cfg_.master_seed, "measure", {before.prog_key}),
                                          equiv::Distribution::Normal);
  auto s = std::make_shared<const runtime::StagedInputs>(runtime::kernel_buffers(*before.task), inputs);
  staged_.emplace_back(before.prog_key, s);
  if (staged_.size() > 4) staged_.pop_front();
  return s;
}

void Timer::measure_real(const TimedProgram& before, const std::vector<TimedProgram>& afters, const TimedProgram* root,
                         std::vector<std::size_t> todo, std::vector<Outcome>& out) {
  // The child runs the afters in prog_key order, whatever order the caller gave: a kernel's time depends a little on
  // its neighbours in the round (what they leave in the caches), so the same batch must run in the same order in
  // `generate` and in `audit --remeasure` (which lists records in archive order).
  std::sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t b) {
    return afters[a].prog_key != afters[b].prog_key ? afters[a].prog_key < afters[b].prog_key : a < b;
  });
  const runtime::CompileOptions co = runtime::kernel_compile_options(cfg_.fp_contract);
  auto compile = [&](const ir::Task& t) { return runtime::compile_c(lower::lower_c(t), co).so_path; };
  // Kernels of the child: [root], before, then the afters that compiled. Compiling happens outside the gate.
  std::vector<std::string> head;
  try {
    if (root) head.push_back(compile(*root->task));
    head.push_back(compile(*before.task));
  } catch (const std::exception& e) {
    for (std::size_t i : todo) out[i].error = std::string("compile_error: before: ") + std::string(e.what()).substr(0, 300);
    return;
  }
  std::vector<std::size_t> ok;
  std::vector<std::string> after_so;
  for (std::size_t i : todo) {
    MeasureGate::yield_current();  // a compile is one step: another thread's measurement may run between two
    try {
      after_so.push_back(compile(*afters[i].task));
      ok.push_back(i);
    } catch (const std::exception& e) {
      out[i].error = std::string("compile_error: ") + std::string(e.what()).substr(0, 300);
    }
  }
  if (ok.empty()) return;
  std::shared_ptr<const runtime::StagedInputs> inputs;
  try {
    inputs = staged_inputs(before);
  } catch (const std::exception& e) {
    for (std::size_t i : ok) out[i].error = std::string("runtime_crash: inputs: ") + e.what();
    return;
  }
  runtime::TimerOptions to;
  to.warmup = cfg_.warmup;
  to.min_repeat_ms = cfg_.min_repeat_ms;
  to.cold_cache = cfg_.cold_cache;
  to.threads = cfg_.threads;
  to.redo_above = std::numeric_limits<double>::infinity();  // redone per pair below
  to.kernel_budget_s = 0.5;  // a candidate 300x slower than its before costs ~1 s, not 15 rounds (bench/RESULTS.md)
  to.limits.timeout_seconds = cfg_.measure_timeout_s;
  const auto bufs = runtime::kernel_buffers(*before.task);
  const std::size_t ib = root ? 1 : 0;
  // Times before/root plus the afters `sel` (indices into ok) with `repeats` rounds in total, split over
  // `sessions` child processes (so that what differs from one process to the next, such as physical page
  // placement, is averaged too), back to back in one exclusive section: the other threads pause once per batch.
  // ok only when every session is.
  const int sessions = std::max(1, std::min(cfg_.measure_sessions, cfg_.repeats));
  auto run = [&](const std::vector<std::size_t>& sel, int repeats) {
    std::vector<std::string> sos = head;
    for (std::size_t k : sel) sos.push_back(after_so[k]);
    return gate_->exclusive([&] {
      std::vector<runtime::InterleavedTiming> ss;
      for (int j = 0; j < sessions; ++j) {
        to.repeats = repeats / sessions + (j < repeats % sessions ? 1 : 0);
        ss.push_back(runtime::time_interleaved(sos, bufs, *inputs, to));
        if (!ss.back().ok) return std::vector<runtime::InterleavedTiming>{ss.back()};
      }
      return ss;
    });
  };
  auto ok_all = [](const std::vector<runtime::InterleavedTiming>& ss) { return !ss.empty() && ss.back().ok; };
  // One kernel's timings over all sessions.
  auto concat = [](const std::vector<runtime::InterleavedTiming>& ss, std::size_t idx) {
    runtime::ProgramTiming p;
    p.number = ss.front().programs[idx].number;
    for (const auto& t : ss)
      p.per_call.insert(p.per_call.end(), t.programs[idx].per_call.begin(), t.programs[idx].per_call.end());
    p.repeats = int(p.per_call.size());
    p.stats = runtime::time_stats(p.per_call);
    return p;
  };
  // Per-round ratios x/y, paired within each session; their statistics and count.
  auto ratios = [](const std::vector<runtime::InterleavedTiming>& ss, std::size_t x, std::size_t y) {
    std::vector<double> r;
    for (const auto& t : ss) {
      const std::vector<double> s = runtime::paired_ratios(t.programs[x], t.programs[y]);
      r.insert(r.end(), s.begin(), s.end());
    }
    const double n = double(r.size());
    return std::make_pair(runtime::time_stats(std::move(r)), n);
  };
  auto record = [&](const std::vector<runtime::InterleavedTiming>& ss, std::size_t pos, std::size_t k, bool redone) {
    const std::size_t ia = head.size() + pos;
    const runtime::ProgramTiming b = concat(ss, ib), a = concat(ss, ia);
    const auto [q, n] = ratios(ss, ib, ia);
    const double vs_root = root ? ratios(ss, 0, ia).first.median : q.median;
    ojson samples = ojson::array();
    if (root) samples.push_back(concat(ss, 0).per_call);
    samples.push_back(b.per_call);
    samples.push_back(a.per_call);
    out[ok[k]].measurement = {{"before", latency_json(b)}, {"after", latency_json(a)}, {"speedup", q.median},
                              {"speedup_q1", q.q1}, {"speedup_q3", q.q3}, {"speedup_vs_root", vs_root},
                              {"noisy", noisy_pair(q, n, cfg_.noise_limit)}, {"redone", redone},
                              {"sessions", ss.size()}, {"order", "ABBA"}, {"threads", cfg_.threads},
                              {"cache", cfg_.cold_cache ? "cold" : "warm"}, {"env", env_}, {"samples", samples}};
    if (cfg_.fp_contract) out[ok[k]].measurement["fp_contract"] = true;
  };
  auto fail = [](const std::string& err) {
    return (err.find("timeout") != std::string::npos ? "timeout: " : "runtime_crash: ") + err.substr(0, 300);
  };
  std::vector<std::size_t> all(ok.size());
  for (std::size_t k = 0; k < ok.size(); ++k) all[k] = k;
  const auto t = run(all, cfg_.repeats);
  if (!ok_all(t)) {
    if (ok.size() == 1) {
      out[ok[0]].error = fail(t.back().error);
      return;
    }
    for (std::size_t k = 0; k < ok.size(); ++k) {  // attribute the failure: each pair alone
      const auto one = run({k}, cfg_.repeats);
      if (!ok_all(one)) out[ok[k]].error = fail(one.back().error);
      else record(one, 0, k, false);
    }
  } else {
    for (std::size_t k = 0; k < ok.size(); ++k) record(t, k, k, false);
  }
  // One redo with 2 x repeats for the noisy pairs (DATASET.md §2.7 step 5, with the rule of noisy_pair).
  std::vector<std::size_t> redo;
  for (std::size_t k = 0; k < ok.size(); ++k)
    if (out[ok[k]].error.empty() && out[ok[k]].measurement["noisy"].get<bool>()) redo.push_back(k);
  if (redo.empty()) return;
  const auto r = run(redo, 2 * cfg_.repeats);
  if (!ok_all(r)) return;  // keep the first, noisy result
  for (std::size_t pos = 0; pos < redo.size(); ++pos) record(r, pos, redo[pos], true);
}

}  // namespace steptp::dataset
