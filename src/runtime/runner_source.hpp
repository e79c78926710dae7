// Source of the sandbox runner: a small standalone program that dlopens a lowered kernel and calls
// `leir_run_packed`, so generated code never runs inside steptp (fork + exec keeps the parent's OpenMP runtime
// out of the child).
//
// Protocol: `runner <kernel.so> <spec-file>`. The spec file is text, one directive per line:
//   buffer <bytes> in <raw-input-path>     (known order; raw storage bytes, row-major)
//   buffer <bytes> out <raw-output-path>   (written after the last run)
//   warmup <W>   repeats <R>   flush <bytes>   times <path>
// It runs W untimed + R timed calls (steady_clock, seconds, one per line in <path>), writing `flush` bytes of a
// scratch buffer before every call when flush > 0. Exit status: 0 ok, 2 bad spec or I/O, 3 dlopen/dlsym
// failure, 99 out of memory.
#pragma once
#include <string>

namespace steptp::runtime {

const std::string& runner_source();

}  // namespace steptp::runtime
