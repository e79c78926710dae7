// Sandboxed execution of generated code: crashes, hangs, OOM and compile errors of a kernel are reported as failed
// measurements with their reason, and this test process keeps running. Also the compile cache and statistics.
#include <gtest/gtest.h>
#include <chrono>
#include <cmath>
#include <unistd.h>
#include <sys/wait.h>
#include <thread>
#include <csignal>
#include <algorithm>
#include <fstream>

#include <filesystem>

#include "equiv/inputs.hpp"
#include "ir/parser.hpp"
#include "lower/lower.hpp"
#include "runtime/compile.hpp"
#include "runtime/kernel.hpp"
#include "runtime/lower_check.hpp"
#include "runtime/sandbox.hpp"
#include "../lower/lower_test_util.hpp"
#include "runtime_test_util.hpp"

namespace steptp {
namespace {

runtime::MeasureOptions opts(double timeout = 10, std::uint64_t mem = 1ull << 30) {
  runtime::MeasureOptions o;
  o.repeats = 3;
  o.warmup = 1;
  o.limits.timeout_seconds = timeout;
  o.limits.memory_bytes = mem;
  o.compile.cache_dir = testing::test_cache_dir();
  return o;
}


runtime::MeasureResult measure_code(const std::string& body, const runtime::MeasureOptions& o) {
  const std::string code = "#include <stdlib.h>\n#include <string.h>\n#include <new>\nextern \"C\" void leir_run_packed(void* const* b) {\n" +
                           body + "\n}\n";
  runtime::Compiled c;
  try {
    c = runtime::compile_c(code, o.compile);
  } catch (const std::exception& e) {
    runtime::MeasureResult r;
    r.error = e.what();
    return r;
  }
  return runtime::measure_so(c.so_path, testing::vec4_buffers(), testing::vec4_inputs(), o);
}

TEST(RuntimeSandbox, WorkingKernelIsTimedAndReturnsOutputs) {
  const auto r = measure_code("const float* a = (const float*)b[0]; float* c = (float*)b[1];\n"
                              "for (int i = 0; i < 4; ++i) c[i] = a[i] * 2;",
                              opts());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.repeats, r.redone ? 6 : 3);
  EXPECT_GE(r.number, 1);
  EXPECT_GE(r.median, r.min);
  EXPECT_GE(r.min, 0.0);
}

TEST(RuntimeSandbox, SegfaultIsReportedWithSignalName) {
  const auto r = measure_code("volatile int* p = nullptr; *p = 1;", opts());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("signal 11 (SIGSEGV)"), std::string::npos) << r.error;
}

TEST(RuntimeSandbox, InfiniteLoopTimesOut) {
  const auto r = measure_code("volatile unsigned long x = 0; for (;;) ++x;", opts(1.5));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("timeout after 1.5 s"), std::string::npos) << r.error;
}

TEST(RuntimeSandbox, MemoryHogIsStoppedByTheLimit) {
  // grows until allocation fails under RLIMIT_AS (256 MiB): std::bad_alloc reaches the runner -> exit 99
  const auto r = measure_code("for (;;) { char* p = new char[1 << 24]; memset(p, 1, 1 << 24); }", opts(30, 256ull << 20));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("out of memory"), std::string::npos) << r.error;
  // a hog that ignores allocation failure crashes instead: still reported, still survived
  const auto r2 = measure_code("for (;;) { char* p = (char*)malloc(1 << 24); memset(p, 1, 1 << 24); }",
                               opts(30, 256ull << 20));
  EXPECT_FALSE(r2.ok);
  EXPECT_NE(r2.error.find("SIGSEGV"), std::string::npos) << r2.error;
}

// Processes whose command line contains `needle` (scanning /proc).
int processes_with(const std::string& needle) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), {});
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.find(needle) != std::string::npos && cmd.find("steptp_tests") == std::string::npos) ++n;
  }
  return n;
}

TEST(RuntimeSandbox, ChildDiesWithItsParent) {
  // The sandboxed child runs in its own process group; when steptp is killed (Ctrl-C, `timeout`) it must not live
  // on (an orphaned kernel pinned to the measurement CPU distorts every later timing).
  const std::string secs = "1000." + std::to_string(::getpid());  // a unique `sleep` argument to find it by
  const pid_t mid = fork();
  ASSERT_GE(mid, 0);
  if (mid == 0) {
    runtime::run_sandboxed({"/bin/sleep", secs}, {}, 600, 0);
    _exit(0);
  }
  for (int i = 0; i < 200 && processes_with("sleep " + secs) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(processes_with("sleep " + secs), 1);
  kill(mid, SIGKILL);
  waitpid(mid, nullptr, 0);
  for (int i = 0; i < 200 && processes_with("sleep " + secs) > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(processes_with("sleep " + secs), 0);
}

TEST(RuntimeSandbox, AbortAndExitStatusAreReported) {
  EXPECT_NE(measure_code("abort();", opts()).error.find("SIGABRT"), std::string::npos);
  EXPECT_EQ(measure_code("exit(7);", opts()).error, "exit status 7");
}

TEST(RuntimeSandbox, CompileErrorIsReported) {
  const auto r = measure_code("this is not C++;", opts());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.rfind("compile error: ", 0), 0u) << r.error;
}

TEST(RuntimeCompile, CacheHitReturnsSamePathWithoutCompiling) {
  const std::string code = "extern \"C\" int steptp_cache_probe() { return 42; }\n";
  runtime::CompileOptions o;
  o.cache_dir = testing::test_cache_dir() + "/probe-" + std::to_string(getpid());
  const auto a = runtime::compile_c(code, o);
  EXPECT_FALSE(a.cache_hit);
  EXPECT_GT(a.compile_seconds, 0.0);
  const auto b = runtime::compile_c(code, o);
  EXPECT_TRUE(b.cache_hit);
  EXPECT_EQ(b.compile_seconds, 0.0);
  EXPECT_EQ(a.so_path, b.so_path);
  o.flags += " -DX=1";  // flags are part of the key
  EXPECT_NE(runtime::compile_c(code, o).so_path, a.so_path);
  std::filesystem::remove_all(o.cache_dir);
}

// A compiler that hangs (here a script that sleeps) is stopped at the compile time limit and reported as a compile
// error naming the limit; nothing is left in the cache.
TEST(RuntimeCompile, AHangingCompilerIsStoppedAtTheTimeLimit) {
  const std::string dir = testing::test_cache_dir() + "/slowcc-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string cc = dir + "/slowcc.sh";
  {
    std::ofstream f(cc);
    f << "#!/bin/sh\nsleep 30\n";
  }
  std::filesystem::permissions(cc, std::filesystem::perms::owner_all);
  setenv("STEPTP_COMPILE_TIMEOUT", "1", 1);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    runtime::compile_cached("int x;", cc, "-O2", ".cpp", ".so", dir);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ran longer than 1 s"), std::string::npos) << e.what();
  }
  unsetenv("STEPTP_COMPILE_TIMEOUT");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
  for (const auto& e : std::filesystem::directory_iterator(dir)) EXPECT_NE(e.path().extension(), ".so") << e.path();
  EXPECT_EQ(runtime::compile_timeout_seconds(), runtime::kCompileTimeoutSeconds);
  std::filesystem::remove_all(dir);
}

// Threads of one process compiling the same program at once (eval grading several answers with equal programs):
// one compiles, the others wait and find it in the cache; none fails on the shared source or temporary path. The
// compiler here is a script that takes a second to copy its source to its output.
TEST(RuntimeCompile, ThreadsCompilingTheSameProgramShareOneCompile) {
  const std::string dir = testing::test_cache_dir() + "/samecc-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string cc = dir + "/copycc.sh";
  {
    std::ofstream f(cc);
    f << "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then out=$2; shift; fi; src=$1; shift; done\n"
         "sleep 1\ncp \"$src\" \"$out\"\n";
  }
  std::filesystem::permissions(cc, std::filesystem::perms::owner_all);
  std::vector<runtime::Compiled> got(4);
  std::vector<std::string> errors(got.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        got[i] = runtime::compile_cached("int same;", cc, "-O2", ".cpp", ".so", dir);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  int compiled = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(errors[i], "") << i;
    EXPECT_EQ(got[i].so_path, got[0].so_path);
    compiled += !got[i].cache_hit;
  }
  EXPECT_EQ(compiled, 1);
  std::ifstream so(got[0].so_path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(so), {}), "int same;");
  std::filesystem::remove_all(dir);
}

// Under GCC and Clang the C lowering's prelude parses no <cmath> (in C++, <math.h> is <cmath>, two thirds of a
// kernel's compile time): `-H` lists every header a kernel includes. The kernel still computes what the interpreter
// does (exp, floor division, f16 rounding and a float-to-integer conversion go through the builtins).
TEST(RuntimeCompile, KernelPreludeParsesNoCmath) {
  ir::Task t;
  t.workload = "prelude";
  t.known = {{"A", ir::Role::Input, ir::DType::F32, {8}}, {"C", ir::Role::Output, ir::DType::F32, {8}},
             {"H", ir::Role::Output, ir::DType::F16, {8}}, {"I", ir::Role::Output, ir::DType::I32, {8}}};
  t.program = ir::parse_program(
      "B^{8}_{tx=0}[C^{f32,g}_{tx}=exp(A^{f32,g}_{tx})+A^{f32,g}_{tx}//0.5;H^{f16,g}_{tx}=A^{f32,g}_{tx}*3.1;"
      "I^{i32,g}_{tx}=A^{f32,g}_{tx}*100;];");
  runtime::CompileOptions o;
  const std::string cxx = runtime::cxx_command(o);
  const std::string dir = testing::test_cache_dir() + "/prelude-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string src = dir + "/k.cpp";
  ir::write_file_atomic(src, lower::lower_c(t));
  std::string out;
  FILE* f = popen((cxx + " " + o.flags + " -H -fsyntax-only " + src + " 2>&1").c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) out += buf;
  EXPECT_EQ(pclose(f), 0) << out;
  EXPECT_NE(out.find("stdint.h"), std::string::npos) << out.substr(0, 400);  // -H lists headers
  EXPECT_EQ(out.find("cmath"), std::string::npos) << out.substr(0, 2000);
  EXPECT_EQ(out.find("/math.h"), std::string::npos) << out.substr(0, 2000);
  std::filesystem::remove_all(dir);
  const auto v = runtime::check_lowering(t, runtime::LowerTarget::C);
  EXPECT_TRUE(v.ok) << v.message;
  EXPECT_EQ(v.runs, 6);  // 3 seeds x {N, U}
}

// exp below ln(2^-150) (f32) / ln(2^-1075) (f64) is answered by the glue's select (c_emit.cpp): +0 exactly, as
// libm gives; just above it the vector call's subnormal; -inf gives 0 and NaN stays NaN.
TEST(RuntimeCompile, ExpAtTheUnderflowEdgeMatchesLibm) {
  for (const ir::DType dt : {ir::DType::F32, ir::DType::F64}) {
    const std::string d = dt == ir::DType::F32 ? "f32" : "f64";
    ir::Task t;
    t.workload = "exp_edge";
    t.known = {{"A", ir::Role::Input, dt, {32}}, {"C", ir::Role::Output, dt, {32}}};
    t.program = ir::parse_program("B^{32}_{tx=0}[C^{" + d + ",g}_{tx}=exp(A^{" + d + ",g}_{tx});];");
    const std::vector<double> edge = dt == ir::DType::F32
        ? std::vector<double>{-INFINITY, -1e30, -200, -104.5, -104, -103.9, -103.2, -100, -87.5, -1, 0, 88, NAN}
        : std::vector<double>{-INFINITY, -1e300, -800, -746.5, -746, -745.1, -744, -740, -708.5, -1, 0, 709, NAN};
    interp::TensorMap in;
    in["A"].dtype = dt;
    in["A"].shape = {32};
    in["A"].data.assign(32, 0.5);
    std::copy(edge.begin(), edge.end(), in["A"].data.begin());
    const auto out = runtime::run_compiled(t, in);
    for (std::size_t i = 0; i < edge.size(); ++i) {
      const double got = out.at("C").data[i];
      const double want = dt == ir::DType::F32 ? double(std::exp(float(edge[i]))) : std::exp(edge[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << d << " exp(" << edge[i] << ")";
        continue;
      }
      // libmvec is within a few ulp of libm (1e-6 relative); the zeros and the underflow edge exactly
      EXPECT_NEAR(got, want, std::fabs(want) * 1e-6) << d << " exp(" << edge[i] << ")";
      if (want == 0) {
        EXPECT_EQ(got, 0.0) << d << " exp(" << edge[i] << ")";
      } else {
        EXPECT_GT(got, 0.0) << d << " exp(" << edge[i] << ")";
      }
    }
  }
}

TEST(RuntimeStats, MedianIqrMin) {
  const auto s = runtime::time_stats({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.iqr, 2);  // quartiles 2 and 4
  EXPECT_DOUBLE_EQ(s.min, 1);
  const auto e = runtime::time_stats({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(e.median, 2.5);
  EXPECT_DOUBLE_EQ(e.iqr, 1.5);  // 1.75 .. 3.25
}

TEST(RuntimeMeasure, MeasuresLoweredTaskAndJson) {
  ir::Task t;
  t.workload = "scale";
  t.known = {{"A", ir::Role::Input, ir::DType::F32, {64}}, {"C", ir::Role::Output, ir::DType::F32, {64}}};
  t.program = ir::parse_program("B^{64}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*3;];");
  auto o = opts();
  o.threads = 2;
  const auto r = runtime::measure(t, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.repeats, r.redone ? 6 : 3);
  const std::string j = r.to_json();
  EXPECT_NE(j.find("\"median\": "), std::string::npos);
  EXPECT_NE(j.find("\"unit\": \"seconds\""), std::string::npos);
  // the outputs of the compiled code
  const auto out = runtime::run_compiled(t, equiv::make_inputs(t, 0, equiv::Distribution::Uniform), {}, o.compile);
  const auto in = equiv::make_inputs(t, 0, equiv::Distribution::Uniform);
  for (int i = 0; i < 64; ++i) EXPECT_FLOAT_EQ(out.at("C").data[i], float(in.at("A").data[i]) * 3.0f);
}

}  // namespace
}  // namespace steptp
