#include "base/hash.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

namespace steptp::core {
namespace {

constexpr std::uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void block(std::uint32_t h[8], const std::uint8_t* p) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (std::uint32_t(p[4 * i]) << 24) | (std::uint32_t(p[4 * i + 1]) << 16) |
           (std::uint32_t(p[4 * i + 2]) << 8) | std::uint32_t(p[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; ++i) {
    std::uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    std::uint32_t ch = (e & f) ^ (~e & g);
    std::uint32_t t1 = hh + S1 + ch + kK[i] + w[i];
    std::uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    std::uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
    std::uint32_t t2 = S0 + mj;
    hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

}  // namespace

std::array<std::uint8_t, 32> sha256(std::string_view data) {
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t n = data.size(), i = 0;
  for (; i + 64 <= n; i += 64) block(h, p + i);
  std::uint8_t tail[128] = {0};
  std::size_t rem = n - i;
  std::memcpy(tail, p + i, rem);
  tail[rem] = 0x80;
  std::size_t tl = rem + 1 + 8 <= 64 ? 64 : 128;
  std::uint64_t bits = std::uint64_t(n) * 8;
  for (int k = 0; k < 8; ++k) tail[tl - 1 - k] = std::uint8_t(bits >> (8 * k));
  block(h, tail);
  if (tl == 128) block(h, tail + 64);
  std::array<std::uint8_t, 32> out{};
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 4; ++j) out[4 * k + j] = std::uint8_t(h[k] >> (24 - 8 * j));
  return out;
}

std::string sha256_hex(std::string_view data) {
  static const char* hx = "0123456789abcdef";
  auto d = sha256(data);
  std::string s(64, '0');
  for (int i = 0; i < 32; ++i) {
    s[2 * i] = hx[d[i] >> 4];
    s[2 * i + 1] = hx[d[i] & 15];
  }
  return s;
}

std::string H(std::initializer_list<std::string_view> parts) {
  std::string joined;
  bool first = true;
  for (auto p : parts) {
    if (!first) joined.push_back('\x1f');
    joined.append(p);
    first = false;
  }
  return sha256_hex(joined);
}

std::uint64_t u64_le_of_hex(std::string_view hx) {
  if (hx.size() < 16) throw std::invalid_argument("u64_le_of_hex: digest too short");
  auto nib = [](char c) -> std::uint64_t { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= ((nib(hx[2 * i]) << 4) | nib(hx[2 * i + 1])) << (8 * i);
  return v;
}

std::uint64_t derive(std::uint64_t seed, std::string_view label, std::initializer_list<std::string_view> parts) {
  std::string s = std::to_string(seed);
  std::string joined = s;
  joined.push_back('\x1f');
  joined.append(label);
  for (auto p : parts) {
    joined.push_back('\x1f');
    joined.append(p);
  }
  return u64_le_of_hex(sha256_hex(joined));
}

std::string hex16(std::uint64_t v) {
  static const char* hx = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[i] = hx[v & 15];
    v >>= 4;
  }
  return s;
}

}  // namespace steptp::core
