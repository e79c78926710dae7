// Process-wide allocator settings for workloads that allocate and free the same large buffers over and over (the
// reference interpreter's per-run buffers and generated inputs, during generate, eval, search and audit).
#pragma once

namespace steptp::core {

/// Keeps freed heap memory for reuse instead of returning it to the kernel after every run (glibc mallopt:
/// M_MMAP_THRESHOLD 32 MiB, the largest glibc allows, so buffers up to 32 MiB come from the heap; M_TRIM_THRESHOLD
/// 1 GiB, so the top of the heap is not trimmed after each free). Without it, glibc's dynamic thresholds hand each
/// run's buffers back and the next run page-faults fresh zeroed pages: `steptp eval --no-measure` on the default
/// dataset spent 0.9 s of 5.6 s in the kernel (134k minor faults); with it 0.3 s (30k faults), peak RSS unchanged.
/// Freed memory stays mapped until exit, so the resident size stays at the run's peak. Call once, at the start of
/// main (setting either threshold turns glibc's dynamic adjustment off). A no-op on other C libraries.
void keep_freed_memory();

}  // namespace steptp::core
