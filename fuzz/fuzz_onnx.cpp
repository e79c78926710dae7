// libFuzzer target: the ONNX importer on arbitrary bytes (serialized ModelProto). Run with `make fuzz` (clang, after
// the parser target); seeds are the KernelBench models of ../shared/kernelbench-onnx. Must never crash, leak or hit
// UB: a malformed model gives std::runtime_error or ir::LeirError; an imported task must validate and print.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "frontend/onnx_import.hpp"
#include "base/diag.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

extern "C" const char* __lsan_default_suppressions() { return "leak:libcln.so\nleak:libprotobuf.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace steptp;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  frontend::OnnxImport imp;
  try {
    imp = frontend::import_onnx_bytes(bytes, "<fuzz>");
  } catch (const ir::LeirError&) {
    return 0;
  } catch (const std::runtime_error&) {
    return 0;
  }
  // An imported task is valid by construction (the importer's contract).
  try {
    ir::validate_or_throw(imp.task);
  } catch (const ir::LeirError&) {
    std::abort();
  }
  (void)ir::print_program(imp.task.program);
  return 0;
}
