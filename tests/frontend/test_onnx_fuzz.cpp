// Malformed inputs never crash the ONNX importer, the .pb reader or the params sidecar reader: truncations and
// bit flips of real files give either a result or a clean std::runtime_error / LeirError.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "frontend/onnx/onnx_tensor.hpp"
#include "frontend/onnx_import.hpp"
#include "frontend/params_sidecar.hpp"
#include "base/diag.hpp"
#include "ir/task.hpp"

namespace fs = std::filesystem;
using namespace steptp;

namespace {

const fs::path kModel = fs::path(STEPTP_SHARED_DIR) / "kernelbench-onnx/level2/12_Gemm_Multiply_LeakyReLU";

enum class Outcome { Ok, Error };

template <class F>
Outcome run_clean(F&& f) {
  try {
    f();
    return Outcome::Ok;
  } catch (const ir::LeirError&) {
    return Outcome::Error;
  } catch (const std::runtime_error&) {
    return Outcome::Error;
  }
  // any other exception type escapes and fails the test
}

// Inputs the libFuzzer target fuzz_onnx found (fuzz/corpus-onnx/, one file per fixed bug): each imports or fails
// cleanly; under the ASan+UBSan build any out-of-range access fails the test. cumsum-rank0.onnx: CumSum of a
// scalar read dimension 0 of an empty shape (UB), now "axis 0 of a rank-0 input".
TEST(OnnxFuzz, FuzzerFoundInputsFailCleanly) {
  const fs::path dir = fs::path(STEPTP_SOURCE_DIR) / "fuzz/corpus-onnx";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string bytes = ir::read_file(e.path().string());
    EXPECT_EQ(run_clean([&] { frontend::import_onnx_bytes(bytes, e.path().filename().string()); }), Outcome::Error)
        << e.path();
    ++n;
  }
  EXPECT_GE(n, 1);
  try {
    frontend::import_onnx_bytes(ir::read_file((dir / "cumsum-rank0.onnx").string()), "cumsum-rank0.onnx");
    ADD_FAILURE() << "imported";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("rank-0 input"), std::string::npos) << e.what();
  }
}

TEST(OnnxFuzz, TruncatedAndBitFlippedModels) {
  const std::string bytes = ir::read_file((kModel / "model.onnx").string());
  ASSERT_GT(bytes.size(), 1000u);
  int errors = 0, oks = 0;
  // Truncations at 64 spread points (including 0 and size-1).
  for (int i = 0; i < 64; ++i) {
    std::size_t len = bytes.size() * static_cast<std::size_t>(i) / 64;
    auto o = run_clean([&] { frontend::import_onnx_bytes(bytes.substr(0, len), "trunc"); });
    (o == Outcome::Ok ? oks : errors)++;
  }
  EXPECT_GE(errors, 60);  // almost every truncation must be rejected
  // Bit flips anywhere (most land in weight data and still import); single and multi-bit.
  std::mt19937_64 rng(42);
  for (int i = 0; i < 300; ++i) {
    std::string b = bytes;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < flips; ++k) b[rng() % b.size()] ^= static_cast<char>(1u << (rng() % 8));
    run_clean([&] { frontend::import_onnx_bytes(b, "flip"); });
  }
  // Flips restricted to the structural prefix (graph, nodes, attributes) before the weights.
  for (int i = 0; i < 300; ++i) {
    std::string b = bytes;
    b[rng() % 600] ^= static_cast<char>(1u << (rng() % 8));
    run_clean([&] { frontend::import_onnx_bytes(b, "flip"); });
  }
  EXPECT_EQ(run_clean([&] { frontend::import_onnx_bytes("", "empty"); }), Outcome::Error);
  EXPECT_EQ(run_clean([&] { frontend::import_onnx_bytes(std::string(100, '\xff'), "junk"); }), Outcome::Error);
}

TEST(OnnxFuzz, TruncatedAndBitFlippedTensorFiles) {
  const std::string bytes = ir::read_file((kModel / "test_data_set_0/input_0.pb").string());
  const fs::path tmp = fs::temp_directory_path() / ("steptp_fuzz_" + std::to_string(::getpid()) + ".pb");
  std::mt19937_64 rng(7);
  int errors = 0;
  for (int i = 0; i < 120; ++i) {
    std::string b = bytes;
    if (i < 40) b = bytes.substr(0, bytes.size() * static_cast<std::size_t>(i) / 40);
    else b[rng() % std::min<std::size_t>(b.size(), 32)] ^= static_cast<char>(1u << (rng() % 8));
    ir::write_file_atomic(tmp.string(), b);
    if (run_clean([&] { frontend::read_tensor_pb(tmp.string()); }) == Outcome::Error) ++errors;
  }
  fs::remove(tmp);
  EXPECT_GE(errors, 39);  // every strict truncation fails (the payload size no longer matches)
  EXPECT_THROW(frontend::read_tensor_pb("/nonexistent/x.pb"), std::runtime_error);
}

interp::TensorMap sample_params() {
  interp::TensorMap m;
  m["A"] = {ir::DType::F32, {2, 2}, {1.5, -2, 0.25, 1048576.0}};
  m["C"] = {ir::DType::F64, {}, {0.1}};
  m["D"] = {ir::DType::I64, {3}, {-1, 0, 9007199254740992.0}};
  m["E"] = {ir::DType::Bool, {2}, {1, 0}};
  m["F"] = {ir::DType::F16, {2}, {0.5, -65504}};
  m["G"] = {ir::DType::I8, {2}, {-128, 127}};
  m["H"] = {ir::DType::BF16, {1}, {3.0}};
  m["I"] = {ir::DType::U16, {1}, {65535}};
  return m;
}

TEST(ParamsSidecar, RoundTripAllDtypes) {
  auto m = sample_params();
  std::string bytes = frontend::encode_params_sidecar(m);
  auto back = frontend::decode_params_sidecar(bytes);
  ASSERT_EQ(back.size(), m.size());
  for (auto& [k, t] : m) {
    EXPECT_EQ(back.at(k).dtype, t.dtype) << k;
    EXPECT_EQ(back.at(k).shape, t.shape) << k;
    EXPECT_EQ(back.at(k).data, t.data) << k;
  }
  // Header layout: magic, version 1, count.
  EXPECT_EQ(bytes.substr(0, 8), "STEPTPPB");
  EXPECT_EQ(bytes[8], 1);
  EXPECT_EQ(bytes[12], 8);
  EXPECT_EQ(frontend::params_sidecar_path("out/x.json"), "out/x.params.bin");
  EXPECT_EQ(frontend::params_sidecar_path("t.jsonl"), "t.params.bin");
  EXPECT_EQ(frontend::params_sidecar_path("task"), "task.params.bin");
}

TEST(ParamsSidecar, CorruptionIsACleanError) {
  std::string bytes = frontend::encode_params_sidecar(sample_params());
  for (std::size_t len = 0; len < bytes.size(); ++len)
    EXPECT_THROW(frontend::decode_params_sidecar(bytes.substr(0, len), "t"), std::runtime_error) << len;
  EXPECT_THROW(frontend::decode_params_sidecar(bytes + "x", "t"), std::runtime_error);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    std::string b = bytes;
    b[rng() % b.size()] ^= static_cast<char>(1u << (rng() % 8));
    run_clean([&] { frontend::decode_params_sidecar(b, "t"); });
  }
  try {
    std::string b = bytes;
    b[0] = 'X';
    frontend::decode_params_sidecar(b, "w.params.bin");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("params sidecar w.params.bin: bad magic"), std::string::npos) << e.what();
  }
}

}  // namespace
