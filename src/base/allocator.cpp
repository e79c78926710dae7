#include "base/allocator.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace steptp::core {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace steptp::core
