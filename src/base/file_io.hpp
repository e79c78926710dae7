// File I/O for every input and output of steptp: reads bounded by a limit (regular files, FIFOs and devices alike),
// bounded lines, and atomic writes that never replace a non-regular file.
#pragma once
#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace steptp::ir {

/// Default read limit for text inputs (task JSON/JSONL, configs, dataset files): 256 MiB.
inline constexpr std::size_t kMaxReadBytes = std::size_t{256} << 20;
/// Read limit for binary model inputs (ONNX models, tensor and parameter files): 1 GiB (protobuf's own hard limit is
/// 2 GiB).
inline constexpr std::size_t kMaxModelReadBytes = std::size_t{1} << 30;
/// Longest line a line-oriented reader accepts (JSONL records, replay and training files): 64 MiB.
inline constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;

/// Reads a whole file, at most `limit` bytes. Throws LeirError (a std::runtime_error) at the path: E108 when it is
/// missing, a directory or unreadable ("LEIR-E108 at PATH: cannot read file: No such file or directory"), E107 when
/// it holds more than `limit` bytes (checked while reading, so /dev/zero or a FIFO never fills memory).
std::string read_file(const std::string& path, std::size_t limit = kMaxReadBytes);

/// Reads at most `limit` bytes from the start of a file (E108 as read_file); `*truncated` tells whether more followed.
std::string read_file_head(const std::string& path, std::size_t limit, bool* truncated);

/// std::getline with a bound: reads one line (without its '\n') into `line`. Returns false at end of input with
/// nothing read. A line longer than `max_bytes` stops the read and throws LeirError E107 at `where`.
bool getline_bounded(std::istream& in, std::string& line, const std::string& where,
                     std::size_t max_bytes = kMaxLineBytes);

/// Writes `content` to `path` atomically: a new temp file `PATH.tmp.PID` in the same directory (created exclusively,
/// never through a link), then rename. An existing `path` that is not a regular file (a symlink, FIFO, device,
/// directory) is never replaced: LeirError E115 at the path. Other failures throw LeirError E108 at the path with the
/// OS reason.
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace steptp::ir
