#include "tools/allocator/allocator.h"

#include <cstdlib>

#if ONNXOPT_MIMALLOC
#include <mimalloc.h>
#endif

namespace onnxopt::tools {

std::string AllocatorDescription() {
#if ONNXOPT_MIMALLOC
  const int version = mi_version();  // 209 for 2.0.9
  const std::string name = "mimalloc " + std::to_string(version / 100) + "." + std::to_string(version / 10 % 10) +
                           "." + std::to_string(version % 10);
  // mimalloc replaces malloc by being found before libc when symbols are resolved; a
  // block from malloc shows whether that happened.
  void* block = std::malloc(64);
  const bool serves_malloc = mi_is_in_heap_region(block);
  std::free(block);
  return serves_malloc ? name : name + " linked, but malloc is the system's";
#else
  return "system malloc";
#endif
}

}  // namespace onnxopt::tools
