#include "frontend/params_sidecar.hpp"

#include <cctype>
#include <cstring>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/onnx/onnx_tensor.hpp"
#include "ir/task.hpp"

namespace steptp::frontend {
namespace {

constexpr char kMagic[8] = {'S', 'T', 'E', 'P', 'T', 'P', 'P', 'B'};
constexpr std::uint32_t kVersion = 1;

void put_u32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}
void put_u64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

struct Reader {
  const std::string& b;
  std::size_t pos = 0;
  const std::string& label;
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(fmt::format("params sidecar {}: {} (at byte {})", label, why, pos));
  }
  void need(std::uint64_t n, const char* what) const {
    if (n > b.size() - pos) fail(fmt::format("truncated {}", what));
  }
  std::uint64_t uint(int bytes, const char* what) {
    need(static_cast<std::uint64_t>(bytes), what);
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[pos + i])) << (8 * i);
    pos += static_cast<std::size_t>(bytes);
    return v;
  }
  std::string str(std::uint64_t n, const char* what) {
    need(n, what);
    std::string s = b.substr(pos, static_cast<std::size_t>(n));
    pos += static_cast<std::size_t>(n);
    return s;
  }
};

}  // namespace

std::string encode_params_sidecar(const interp::TensorMap& params) {
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, kVersion);
  put_u32(out, static_cast<std::uint32_t>(params.size()));
  for (const auto& [name, t] : params) {
    if (!ir::is_supported(t.dtype))
      throw std::runtime_error(fmt::format("params sidecar: tensor '{}' has unsupported dtype", name));
    std::int64_t n = 1;
    for (auto d : t.shape) n *= d;
    if (static_cast<std::int64_t>(t.data.size()) != n)
      throw std::runtime_error(fmt::format("params sidecar: tensor '{}' holds {} values for {} elements", name,
                                           t.data.size(), n));
    put_u32(out, static_cast<std::uint32_t>(name.size()));
    out += name;
    auto dn = ir::dtype_name(t.dtype);
    put_u32(out, static_cast<std::uint32_t>(dn.size()));
    out += dn;
    put_u32(out, static_cast<std::uint32_t>(t.shape.size()));
    for (auto d : t.shape) put_u64(out, static_cast<std::uint64_t>(d));
    put_u64(out, static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(ir::dtype_bytes(t.dtype)));
    for (double v : t.data) append_le(out, convert_to_dtype(v, t.dtype), t.dtype);
  }
  return out;
}

interp::TensorMap decode_params_sidecar(const std::string& bytes, const std::string& label) {
  Reader r{bytes, 0, label};
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    r.fail("bad magic (not a steptp params sidecar)");
  r.pos = sizeof kMagic;
  auto version = r.uint(4, "header");
  if (version != kVersion) r.fail(fmt::format("unsupported version {}", version));
  auto count = r.uint(4, "header");
  interp::TensorMap out;
  for (std::uint64_t k = 0; k < count; ++k) {
    auto name_len = r.uint(4, "name length");
    if (name_len == 0 || name_len > 256) r.fail(fmt::format("bad name length {}", name_len));
    std::string name = r.str(name_len, "name");
    for (char c : name)
      if (!std::isalpha(static_cast<unsigned char>(c))) r.fail(fmt::format("bad tensor name '{}'", name));
    if (out.count(name)) r.fail(fmt::format("duplicate tensor '{}'", name));
    auto dlen = r.uint(4, "dtype length");
    if (dlen == 0 || dlen > 16) r.fail(fmt::format("bad dtype length {}", dlen));
    std::string dname = r.str(dlen, "dtype");
    auto dt = ir::parse_dtype(dname);
    if (!dt || !ir::is_supported(*dt)) r.fail(fmt::format("tensor '{}': unknown dtype '{}'", name, dname));
    auto rank = r.uint(4, "rank");
    if (rank > 64) r.fail(fmt::format("tensor '{}': bad rank {}", name, rank));
    interp::Tensor t;
    t.dtype = *dt;
    std::uint64_t n = 1;
    for (std::uint64_t i = 0; i < rank; ++i) {
      auto d = r.uint(8, "dims");
      if (d < 1 || d >= (std::uint64_t{1} << 31)) r.fail(fmt::format("tensor '{}': bad dimension {}", name, d));
      n *= d;
      if (n >= (std::uint64_t{1} << 31)) r.fail(fmt::format("tensor '{}': too many elements", name));
      t.shape.push_back(static_cast<std::int64_t>(d));
    }
    auto nbytes = r.uint(8, "data size");
    const auto esz = static_cast<std::uint64_t>(ir::dtype_bytes(*dt));
    if (nbytes != n * esz)
      r.fail(fmt::format("tensor '{}': data size {} does not match {} elements of {}", name, nbytes, n, dname));
    r.need(nbytes, "tensor data");
    t.data.resize(static_cast<std::size_t>(n));
    auto p = reinterpret_cast<const unsigned char*>(bytes.data() + r.pos);
    for (std::size_t i = 0; i < t.data.size(); ++i) t.data[i] = decode_le(p + i * esz, *dt);
    r.pos += static_cast<std::size_t>(nbytes);
    out.emplace(std::move(name), std::move(t));
  }
  if (r.pos != bytes.size()) r.fail(fmt::format("{} trailing bytes", bytes.size() - r.pos));
  return out;
}

void write_params_sidecar(const std::string& path, const interp::TensorMap& params) {
  ir::write_file_atomic(path, encode_params_sidecar(params));
}

interp::TensorMap read_params_sidecar(const std::string& path) {
  return decode_params_sidecar(ir::read_file(path, ir::kMaxModelReadBytes), path);
}

std::string params_sidecar_path(const std::string& task_path) {
  auto ends = [&](std::string_view suf) {
    return task_path.size() >= suf.size() && task_path.compare(task_path.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (ends(".jsonl")) return task_path.substr(0, task_path.size() - 6) + ".params.bin";
  if (ends(".json")) return task_path.substr(0, task_path.size() - 5) + ".params.bin";
  return task_path + ".params.bin";
}

}  // namespace steptp::frontend
