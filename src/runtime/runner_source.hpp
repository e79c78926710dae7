// Source of the sandbox runner: a small standalone program that dlopens a lowered kernel and calls
// `leir_run_packed`, so generated code never runs inside steptp (fork + exec keeps the parent's OpenMP runtime
// out of the child).
//
// Protocol: `runner <kernel.so> <spec-file>`. The spec file is text, one directive per line:
//   buffer <bytes> in <raw-input-path>     (known order; raw storage bytes, row-major)
//   buffer <bytes> out <raw-output-path>   (written after the last run)
//   kernel <path>                          (further kernels with the same signature, timed interleaved)
//   warmup <W>   repeats <R>   number <N>   min_batch_s <S>   max_number <M>   flush <bytes>   pin <cpu>...
//   times <path>   outputs <0|1>                        (outputs 0: do not write the output buffers back)
//   budget_s <B>                                        (per-kernel time budget, 0 = none; see below)
// The runner first re-executes itself with address-space randomisation off (personality ADDR_NO_RANDOMIZE), so
// buffers and code sit at the same addresses in every run. All buffers live in one 2 MiB-aligned anonymous arena advised
// for transparent huge pages (inputs read in, outputs zeroed), so their cache-set placement is the same in every
// child too. It pins itself to the `pin` CPUs (sched_setaffinity), runs W untimed calls of each kernel, then picks per
// kernel the number of calls per batch: N, or with S > 0 the smallest power of two (<= M) whose batch lasts >= S
// seconds (DATASET.md §2.7 calibration). With two or more kernels it then runs one untimed settling round in each
// order (one call per kernel, skipping a kernel too slow for its warm-up budget), so every kernel has met the heap
// layout the others leave before it is timed. It then times R rounds; round r runs one batch of every kernel, in order for
// even r and in reverse order for odd r (ABBA interleaving, so drift hits all kernels alike). With flush > 0 it writes
// that many bytes of a scratch buffer before every batch and never calibrates (number stays N). With B > 0 a kernel
// whose R batches would take longer than B seconds (judged from its first, timed warmup call) is timed in fewer
// rounds, B / batch time but at least 1, and warmed up with fewer calls, so one very slow candidate cannot stall a
// batch; the paired ratios then use the rounds both kernels ran. `times` receives one
// line per (kernel, round): `<kernel> <round> <number> <seconds per call>`. Exit status: 0 ok, 2 bad spec or I/O,
// 3 dlopen/dlsym failure, 99 out of memory.
#pragma once
#include <string>

namespace steptp::runtime {

const std::string& runner_source();

}  // namespace steptp::runtime
