// Paths of the shared data the tests read (STEPTP_SHARED_DIR, set by CMake; see CMakeLists.txt).
#pragma once
#include <filesystem>
#include <string>

namespace steptp_test {

/// The reference corpus: 89 LEIR tasks that must round-trip byte for byte.
inline const std::string kCorpus = std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl";

/// KernelBench problems as ONNX models with PyTorch's inputs and outputs (index.json lists them).
inline const std::filesystem::path kBench = std::filesystem::path(STEPTP_SHARED_DIR) / "kernelbench-onnx";

/// A fixture file of the step tests (tests/step/data/NAME).
inline std::string step_data(const std::string& name) {
  return std::string(STEPTP_SOURCE_DIR) + "/tests/step/data/" + name;
}

}  // namespace steptp_test
