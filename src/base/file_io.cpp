// Bounded reads and atomic writes (file_io.hpp).
#include "base/file_io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/diag.hpp"

namespace steptp::ir {
namespace {

[[noreturn]] void too_large(const std::string& where, const char* what, std::size_t limit) {
  throw LeirError(Code::E107, fmt::format("{} exceeds the read limit of {} bytes ({} MiB)", what, limit, limit >> 20),
                  0, where);
}

}  // namespace

std::string read_file_head(const std::string& path, std::size_t limit, bool* truncated) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw LeirError(Code::E108, "cannot read file: is a directory", 0, path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LeirError(Code::E108, fmt::format("cannot read file: {}", std::strerror(errno)), 0, path);
  std::string out;
  char buf[1 << 16];
  *truncated = false;
  while (in && !*truncated) {
    in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, limit + 1 - out.size())));
    out.append(buf, static_cast<std::size_t>(in.gcount()));
    *truncated = out.size() > limit;
  }
  if (in.bad()) throw LeirError(Code::E108, "read error", 0, path);
  if (*truncated) out.resize(limit);
  return out;
}

std::string read_file(const std::string& path, std::size_t limit) {
  bool truncated = false;
  std::string out = read_file_head(path, limit, &truncated);
  if (truncated) too_large(path, "file", limit);
  return out;
}

bool getline_bounded(std::istream& in, std::string& line, const std::string& where, std::size_t max_bytes) {
  line.clear();
  std::streambuf* sb = in.rdbuf();
  bool any = false;
  for (;;) {
    const int c = sb->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      if (!any) in.setstate(std::ios::eofbit | std::ios::failbit);
      return any;
    }
    any = true;
    if (c == '\n') return true;
    if (line.size() >= max_bytes) too_large(where, "line", max_bytes);
    line.push_back(static_cast<char>(c));
  }
}

void write_file_atomic(const std::string& path, std::string_view content) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw LeirError(Code::E115,
                    fmt::format("not replacing a {}: an output path must be a regular file or not exist",
                                S_ISLNK(st.st_mode)    ? "symbolic link"
                                : S_ISFIFO(st.st_mode) ? "FIFO"
                                : S_ISDIR(st.st_mode)  ? "directory"
                                : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device"
                                                                             : "non-regular file"),
                    0, path);
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  auto fail = [&](const char* what, int err) {
    throw LeirError(Code::E116, fmt::format("{}: {}", what, std::strerror(err)), 0, path);
  };
  if (::lstat(tmp.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(tmp.c_str());  // left by a killed run
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) fail("cannot write file", errno);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("error writing file", err);
    }
    done += static_cast<std::size_t>(n);
  }
  (void)::fsync(fd);  // best effort: the rename below is what makes the write atomic
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("error writing file", err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot write file", err);
  }
}

}  // namespace steptp::ir
