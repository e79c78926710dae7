// Hashing and seed derivation for the dataset pipeline (DATASET.md §3 keys, §11 named random streams).
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace steptp::core {

/// SHA-256 (FIPS 180-4) of `data`, as raw bytes and as 64 lowercase hex digits.
std::array<std::uint8_t, 32> sha256(std::string_view data);
std::string sha256_hex(std::string_view data);

/// DATASET.md §3: H joins its arguments with the byte 0x1F and returns the SHA-256 hex digest. Integers are
/// passed in decimal by the caller (use std::to_string).
std::string H(std::initializer_list<std::string_view> parts);

/// DATASET.md §11: derive(seed, label, parts...) = first 8 bytes of H(seed, label, parts...) read little-endian.
/// `seed` is written in decimal inside H.
std::uint64_t derive(std::uint64_t seed, std::string_view label, std::initializer_list<std::string_view> parts = {});

/// 16 lowercase hex digits of a 64-bit value (seeds in records, §4).
std::string hex16(std::uint64_t v);

/// First 8 bytes of a hex digest read little-endian (the §10 shard rule and the §7.2 split draw).
std::uint64_t u64_le_of_hex(std::string_view hex_digest);

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
