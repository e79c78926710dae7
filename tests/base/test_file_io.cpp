// Bounded reads, bounded lines, atomic writes that never replace a non-regular file (base/file_io.hpp), and JSON
// number overflow in tasks (issue #48 items 2, 3, 4).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "base/diag.hpp"
#include "base/file_io.hpp"
#include "ir/task.hpp"

namespace steptp::ir {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path p = fs::temp_directory_path() / ("steptp-file-io-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(p); }
  ~TempDir() { fs::remove_all(p); }
  std::string operator/(const std::string& n) const { return (p / n).string(); }
};

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const LeirError& e) {
    return e.code() + " at " + e.diag().path + ": " + e.diag().message;
  }
  return "no error";
}

TEST(FileIo, ReadsStopAtTheLimitOnDevicesAndRegularFiles) {
  EXPECT_EQ(code_of([] { read_file("/dev/zero", 1 << 20); }),
            "E107 at /dev/zero: file exceeds the read limit of 1048576 bytes (1 MiB)");
  TempDir d;
  std::ofstream(d / "f.txt") << std::string(100, 'x');
  EXPECT_EQ(read_file(d / "f.txt", 100), std::string(100, 'x'));
  EXPECT_EQ(code_of([&] { read_file(d / "f.txt", 99); }).substr(0, 4), "E107");
  EXPECT_EQ(code_of([&] { read_file(d / "missing"); }), "E108 at " + (d / "missing") +
                                                            ": cannot read file: No such file or directory");
}

TEST(FileIo, GetlineBoundedReadsLinesAndRefusesALongOne) {
  std::istringstream in("a\n\nbc\nlast");
  std::string l;
  std::vector<std::string> got;
  while (getline_bounded(in, l, "t")) got.push_back(l);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "", "bc", "last"}));
  std::istringstream big(std::string(5000, 'z'));
  EXPECT_EQ(code_of([&] { getline_bounded(big, l, "big.jsonl", 4096); }),
            "E107 at big.jsonl: line exceeds the read limit of 4096 bytes (0 MiB)");
  std::ifstream zero("/dev/zero");
  EXPECT_EQ(code_of([&] { getline_bounded(zero, l, "/dev/zero", 1 << 20); }).substr(0, 4), "E107");
}

TEST(FileIo, AtomicWriteNeverReplacesALinkFifoOrDevice) {
  TempDir d;
  std::ofstream(d / "target.jsonl") << "keep\n";
  fs::create_symlink(d / "target.jsonl", d / "link.jsonl");
  EXPECT_EQ(code_of([&] { write_file_atomic(d / "link.jsonl", "new\n"); }),
            "E115 at " + (d / "link.jsonl") +
                ": not replacing a symbolic link: an output path must be a regular file or not exist");
  EXPECT_TRUE(fs::is_symlink(d / "link.jsonl"));
  EXPECT_EQ(read_file(d / "target.jsonl"), "keep\n");
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(code_of([&] { write_file_atomic(d / "fifo", "x"); }),
            "E115 at " + (d / "fifo") + ": not replacing a FIFO: an output path must be a regular file or not exist");
  EXPECT_TRUE(fs::is_fifo(d / "fifo"));
  fs::create_directory(d / "dir");
  EXPECT_EQ(code_of([&] { write_file_atomic(d / "dir", "x"); }).substr(0, 4), "E115");
  // a character device (as root, a copy of /dev/full's node; otherwise /dev/full itself, which we cannot replace)
  const std::string dev = ::geteuid() == 0 && ::mknod((d / "full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0
                              ? d / "full" : std::string("/dev/full");
  EXPECT_EQ(code_of([&] { write_file_atomic(dev, "x"); }).substr(0, 4), "E115");
  EXPECT_TRUE(fs::is_character_file(dev));
  // a regular file is replaced; no temp file is left
  write_file_atomic(d / "target.jsonl", "new\n");
  EXPECT_EQ(read_file(d / "target.jsonl"), "new\n");
  std::size_t n = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(d.p)) ++n;
  EXPECT_EQ(n, dev == d / "full" ? 5u : 4u);  // target, link, fifo, dir (and full): no temp file
}

TEST(FileIo, JsonNumberOverflowIsE101AtItsLine) {
  const std::string bad = R"({"workload": "w", "suite": "s", "known": [{"name": "A", "role": "input", "dtype": "f32", )"
                          R"("shape": [1e999]}, {"name": "D", "role": "output", "dtype": "f32", "shape": [8]}], )"
                          R"("leir": "L^{8}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{a}*2;];"})";
  const std::string msg = code_of([&] { parse_task(bad); });
  EXPECT_EQ(msg.substr(0, 9), "E101 at $") << msg;
  EXPECT_NE(msg.find("number overflow"), std::string::npos) << msg;
  TempDir d;
  std::string good = bad;
  good.replace(good.find("1e999"), 5, "8");
  std::ofstream(d / "t.jsonl") << bad << "\n" << good << "\n";
  const auto ts = read_tasks_jsonl(d / "t.jsonl");
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_FALSE(ts[0].ok);
  EXPECT_EQ(ts[0].error.code, "E101");
  EXPECT_EQ(ts[0].task.workload, "");  // the line's JSON does not parse, so no name
  EXPECT_TRUE(ts[1].ok);
}

}  // namespace
}  // namespace steptp::ir
