#include "runtime/kernel.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "interp/numeric.hpp"
#include "runtime/compile.hpp"
#include "runtime/sandbox.hpp"

namespace steptp::runtime {

namespace fs = std::filesystem;
using ir::DType;

std::vector<KernelBuffer> kernel_buffers(const ir::Task& t) {
  std::vector<KernelBuffer> r;
  for (const auto& k : t.known) r.push_back({k.name, k.dtype, k.shape, k.role == ir::Role::Output});
  return r;
}

namespace {

std::int64_t numel(const std::vector<std::int64_t>& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

template <class T>
void put(std::vector<unsigned char>& out, std::size_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}
template <class T>
T get(const std::vector<unsigned char>& in, std::size_t i) {
  T v;
  std::memcpy(&v, in.data() + i * sizeof(T), sizeof(T));
  return v;
}

/// Integer element from a double (values from make_inputs are already exact integers of the type).
template <class I>
I to_int(double v) {
  std::int64_t out = 0;
  return steptp_num::float_to_int(v, int(sizeof(I) * 8), I(-1) < I(0), &out) ? I(out) : I(0);
}

std::vector<unsigned char> encode(const std::vector<double>& d, DType t) {
  std::vector<unsigned char> out(d.size() * static_cast<std::size_t>(ir::dtype_bytes(t)));
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double v = d[i];
    switch (t) {
      case DType::F16: put(out, i, steptp_num::f16_bits_from_f32(steptp_num::f32_round_to_odd(v))); break;
      case DType::BF16: put(out, i, steptp_num::bf16_bits_from_f32(steptp_num::f32_round_to_odd(v))); break;
      case DType::F32: put(out, i, float(v)); break;
      case DType::F64: put(out, i, v); break;
      case DType::I8: put(out, i, to_int<std::int8_t>(v)); break;
      case DType::I16: put(out, i, to_int<std::int16_t>(v)); break;
      case DType::I32: put(out, i, to_int<std::int32_t>(v)); break;
      case DType::I64: put(out, i, to_int<std::int64_t>(v)); break;
      case DType::U8: put(out, i, to_int<std::uint8_t>(v)); break;
      case DType::U16: put(out, i, to_int<std::uint16_t>(v)); break;
      case DType::U32: put(out, i, to_int<std::uint32_t>(v)); break;
      case DType::U64: put(out, i, to_int<std::uint64_t>(v)); break;
      case DType::Bool: put(out, i, static_cast<unsigned char>(v != 0.0)); break;
      default: throw std::runtime_error("unsupported dtype " + std::string(ir::dtype_name(t)));
    }
  }
  return out;
}

std::vector<double> decode(const std::vector<unsigned char>& in, DType t, std::size_t n) {
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (t) {
      case DType::F16: d[i] = steptp_num::f32_from_f16_bits(get<std::uint16_t>(in, i)); break;
      case DType::BF16: d[i] = steptp_num::f32_from_bf16_bits(get<std::uint16_t>(in, i)); break;
      case DType::F32: d[i] = get<float>(in, i); break;
      case DType::F64: d[i] = get<double>(in, i); break;
      case DType::I8: d[i] = get<std::int8_t>(in, i); break;
      case DType::I16: d[i] = get<std::int16_t>(in, i); break;
      case DType::I32: d[i] = get<std::int32_t>(in, i); break;
      case DType::I64: d[i] = double(get<std::int64_t>(in, i)); break;
      case DType::U8: d[i] = get<std::uint8_t>(in, i); break;
      case DType::U16: d[i] = get<std::uint16_t>(in, i); break;
      case DType::U32: d[i] = get<std::uint32_t>(in, i); break;
      case DType::U64: d[i] = double(get<std::uint64_t>(in, i)); break;
      case DType::Bool: d[i] = get<unsigned char>(in, i) != 0 ? 1.0 : 0.0; break;
      default: break;
    }
  }
  return d;
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

/// A private temporary directory, removed with everything in it on destruction.
struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/steptp-run-XXXXXX";
    if (!mkdtemp(t)) throw std::runtime_error("cannot create a temporary directory");
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};


std::uint64_t flush_bytes() {
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  std::uint64_t b = llc > 0 ? static_cast<std::uint64_t>(llc) * 2 : 32ull << 20;
  return std::clamp<std::uint64_t>(b, 8ull << 20, 1ull << 30);
}

TimeStats time_stats(std::vector<double> t) {
  TimeStats s;
  if (t.empty()) return s;
  std::sort(t.begin(), t.end());
  auto q = [&](double p) {
    const double pos = p * double(t.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, t.size() - 1);
    return t[lo] + (pos - double(lo)) * (t[hi] - t[lo]);
  };
  s.median = q(0.5);
  s.q1 = q(0.25);
  s.q3 = q(0.75);
  s.iqr = s.q3 - s.q1;
  s.min = t.front();
  return s;
}

StagedInputs::StagedInputs(const std::vector<KernelBuffer>& buffers, const interp::TensorMap& inputs)
    : dir_(std::make_shared<TempDir>()) {
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const auto& b = buffers[i];
    if (b.output) {
      paths_.emplace_back();
      continue;
    }
    const std::size_t n = static_cast<std::size_t>(numel(b.shape));
    auto it = inputs.find(b.name);
    if (it == inputs.end() || it->second.data.size() != n)
      throw std::invalid_argument("missing or mis-shaped input " + b.name);
    paths_.push_back(dir_->path + "/in" + std::to_string(i));
    write_bytes(paths_.back(), encode(it->second.data, b.dtype));
  }
}

KernelRunResult run_kernel(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                           const interp::TensorMap& inputs, const KernelRunOptions& opt) {
  std::optional<StagedInputs> staged;
  try {
    staged.emplace(buffers, inputs);
  } catch (const std::invalid_argument& e) {
    KernelRunResult r;
    r.error = e.what();
    return r;
  }
  return run_kernel(so_path, buffers, *staged, opt);
}

KernelRunResult run_kernel(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                           const StagedInputs& staged, const KernelRunOptions& opt) {
  KernelRunResult r;
  std::string runner;
  try {
    runner = runner_path(opt.compile);
  } catch (const std::exception& e) {
    r.error = std::string("runner: ") + e.what();
    return r;
  }
  if (staged.size() != buffers.size()) {
    r.error = "staged inputs do not match the kernel's buffers";
    return r;
  }
  TempDir tmp;
  std::ostringstream spec;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const auto& b = buffers[i];
    const std::size_t bytes =
        static_cast<std::size_t>(numel(b.shape)) * static_cast<std::size_t>(ir::dtype_bytes(b.dtype));
    const std::string path = b.output ? tmp.path + "/b" + std::to_string(i) : staged.path(i);
    spec << "buffer " << bytes << (b.output ? " out " : " in ") << path << "\n";
  }
  for (const auto& k : opt.more_kernels) spec << "kernel " << k << "\n";
  spec << "warmup " << opt.warmup << "\nrepeats " << opt.repeats << "\nnumber " << opt.number
       << "\nmin_batch_s " << opt.min_batch_seconds << "\nmax_number " << opt.max_number << "\nbudget_s "
       << opt.budget_seconds << "\nflush "
       << (opt.flush_cache ? flush_bytes() : 0) << "\ntimes " << tmp.path << "/times\noutputs "
       << (opt.want_outputs ? 1 : 0) << "\n";
  if (!opt.cpus.empty()) {
    spec << "pin";
    for (int c : opt.cpus) spec << " " << c;
    spec << "\n";
  }
  {
    std::ofstream f(tmp.path + "/spec");
    f << spec.str();
  }
  std::map<std::string, std::string> env{{"OMP_NUM_THREADS", std::to_string(opt.threads)}};
  if (!opt.cpus.empty()) {  // OpenMP threads stay on the pinned cores (one thread per place)
    env["OMP_PROC_BIND"] = "close";
    env["OMP_PLACES"] = "cores";
  }
  const auto sr = run_sandboxed({runner, so_path, tmp.path + "/spec"}, env, opt.limits.timeout_seconds,
                                opt.limits.memory_bytes);
  if (!sr.ok) {
    r.error = sr.reason;
    return r;
  }
  {
    const std::size_t nk = 1 + opt.more_kernels.size();
    r.kernel_times.assign(nk, {});
    r.numbers.assign(nk, 0);
    std::ifstream f(tmp.path + "/times");
    std::size_t k = 0, round = 0;
    std::int64_t number = 0;
    double t = 0;
    while (f >> k >> round >> number >> t)
      if (k < nk) {
        r.kernel_times[k].push_back(t);
        r.numbers[k] = number;
      }
    r.times = r.kernel_times[0];
  }
  if (opt.want_outputs) {
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      const auto& b = buffers[i];
      if (!b.output) continue;
      const std::size_t n = static_cast<std::size_t>(numel(b.shape));
      std::ifstream f(tmp.path + "/b" + std::to_string(i), std::ios::binary);
      std::vector<unsigned char> raw(n * static_cast<std::size_t>(ir::dtype_bytes(b.dtype)));
      f.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
      if (!f) {
        r.error = "runner produced no output for " + b.name;
        return r;
      }
      interp::Tensor t;
      t.dtype = b.dtype;
      t.shape = b.shape;
      t.data = decode(raw, b.dtype, n);
      r.outputs[b.name] = std::move(t);
    }
  }
  r.ok = true;
  return r;
}

}  // namespace steptp::runtime
