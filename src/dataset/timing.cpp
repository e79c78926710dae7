#include "dataset/timing.hpp"

#include <sys/utsname.h>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "dataset/facts.hpp"
#include "dataset/hash.hpp"
#include "lower/lower.hpp"
#include "runtime/measure.hpp"

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
  runtime::CompileOptions co;
  std::string s = H({cpu, std::to_string(std::thread::hardware_concurrency()), std::to_string(cfg.threads), co.cxx,
                     co.flags, u.release, kSteptpVersion});
  return s.substr(0, 16);
}

Timer::Timer(const GenConfig& cfg, Cache* cache) : cfg_(cfg), cache_(cache), env_(env_fingerprint(cfg)) {}

ojson Timer::latency(const ir::Task& t, const std::string& pk) {
  std::string mcfg = "timer=" + cfg_.timer + ";repeats=" + std::to_string(cfg_.repeats) +
                     ";warmup=" + std::to_string(cfg_.warmup) + ";threads=" + std::to_string(cfg_.threads);
  std::string key = H({"steptp.meas/1", pk, env_, mcfg});
  if (cache_)
    if (auto v = cache_->get("measurements", key)) {
      ojson j = ojson::parse(*v);
      if (j.contains("error")) throw std::runtime_error(j["error"].get<std::string>());
      return j;
    }
  ojson out;
  if (cfg_.timer == "fixed") {
    ProgramMetrics m = program_metrics(t);
    double ns = 100 + 0.1 * double(m.flops) + 0.02 * double(m.footprint) + 0.2 * double(m.iterations);
    std::int64_t med = std::llround(ns);
    out = {{"median_ns", med}, {"q1_ns", med}, {"q3_ns", med}, {"iqr_ns", 0}, {"repeats", cfg_.repeats}, {"number", 1}};
  } else {
    runtime::MeasureOptions mo;
    mo.repeats = cfg_.repeats;
    mo.warmup = cfg_.warmup;
    mo.threads = cfg_.threads;
    mo.limits.timeout_seconds = cfg_.measure_timeout_s;
    runtime::MeasureResult r;
    try {  // compile outside the measurement lock (the runtime caches objects on disk), so --jobs compiles in parallel
      runtime::compile_c(lower::lower_c(t), mo.compile);
    } catch (const std::exception& e) {
      std::string err = std::string("compile_error: ") + std::string(e.what()).substr(0, 300);
      if (cache_) cache_->put("measurements", key, dump_py(ojson{{"error", err}}));
      throw std::runtime_error(err);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      r = runtime::measure(t, mo);
    }
    if (!r.ok) {
      std::string reason = r.error.find("timeout") != std::string::npos ? "timeout" : "runtime_crash";
      std::string err = reason + ": " + r.error.substr(0, 300);
      if (cache_) cache_->put("measurements", key, dump_py(ojson{{"error", err}}));
      throw std::runtime_error(err);
    }
    double med = r.median * 1e9, iqr = r.iqr * 1e9;
    out = {{"median_ns", med}, {"q1_ns", nullptr}, {"q3_ns", nullptr}, {"iqr_ns", iqr},
           {"repeats", r.repeats}, {"number", nullptr}};
  }
  if (cache_) cache_->put("measurements", key, dump_py(out));
  return out;
}

ojson Timer::compare(const ojson& before, const ojson& after, const ojson& root) const {
  auto med = [](const ojson& l) { return l["median_ns"].get<double>(); };
  auto noisy = [&](const ojson& l) { return med(l) > 0 && l["iqr_ns"].get<double>() / med(l) > 0.10; };
  double sp = med(after) > 0 ? med(before) / med(after) : 0.0;
  double spr = med(after) > 0 ? med(root) / med(after) : 0.0;
  return {{"before", before}, {"after", after}, {"speedup", sp}, {"speedup_vs_root", spr},
          {"noisy", noisy(before) || noisy(after)}, {"threads", cfg_.threads}, {"cache", "warm"}, {"env", env_}};
}

}  // namespace steptp::dataset
