#include "tools/allocator/allocator.h"

#include <cstdlib>

#if ONNXOPT_MIMALLOC
#include <mimalloc.h>

#include <new>
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

#if ONNXOPT_MIMALLOC
// operator new and delete, replaced for the whole executable. libmimalloc replaces them
// too, but its `new` calls abort() when memory runs out (Debian's library is built as C,
// where it cannot throw, and never sees a new_handler): the command line would then die
// without a message instead of saying "out of memory" (exit 3), and without unwinding,
// which removes the temporary files of outputs not yet complete. These throw
// std::bad_alloc, as the standard asks.
namespace {

// The executables are short-lived processes that free and allocate hundreds of MB in
// bursts (every optimizer round rebuilds its index; load and save hold the whole model).
// mimalloc gives freed pages back to the system 25 ms after they empty, and each one used
// again faults in again: on the 400-layer decoder 30 000 of `onnxopt optimize`'s 140 000
// page faults, which cost about 3 us each on these virtual machines. Keep them (the peak
// stays that of the memory in use; the process gives everything back when it ends).
// MIMALLOC_ALLOW_DECOMMIT, when set, still decides.
[[maybe_unused]] const bool kFreedPagesKept = [] {
  if (std::getenv("MIMALLOC_ALLOW_DECOMMIT") != nullptr) return false;
  mi_option_disable(mi_option_allow_decommit);
  return true;
}();

void* AllocateOrThrow(std::size_t size) {
  if (void* block = mi_malloc(size)) return block;
  throw std::bad_alloc();
}

void* AllocateAlignedOrThrow(std::size_t size, std::align_val_t alignment) {
  if (void* block = mi_malloc_aligned(size, static_cast<std::size_t>(alignment))) return block;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) { return AllocateOrThrow(size); }
void* operator new[](std::size_t size) { return AllocateOrThrow(size); }
void* operator new(std::size_t size, std::align_val_t alignment) { return AllocateAlignedOrThrow(size, alignment); }
void* operator new[](std::size_t size, std::align_val_t alignment) { return AllocateAlignedOrThrow(size, alignment); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return mi_malloc(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return mi_malloc(size); }
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return mi_malloc_aligned(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return mi_malloc_aligned(size, static_cast<std::size_t>(alignment));
}
void operator delete(void* block) noexcept { mi_free(block); }
void operator delete[](void* block) noexcept { mi_free(block); }
void operator delete(void* block, std::size_t) noexcept { mi_free(block); }
void operator delete[](void* block, std::size_t) noexcept { mi_free(block); }
void operator delete(void* block, std::align_val_t) noexcept { mi_free(block); }
void operator delete[](void* block, std::align_val_t) noexcept { mi_free(block); }
void operator delete(void* block, std::size_t, std::align_val_t) noexcept { mi_free(block); }
void operator delete[](void* block, std::size_t, std::align_val_t) noexcept { mi_free(block); }
void operator delete(void* block, const std::nothrow_t&) noexcept { mi_free(block); }
void operator delete[](void* block, const std::nothrow_t&) noexcept { mi_free(block); }
void operator delete(void* block, std::align_val_t, const std::nothrow_t&) noexcept { mi_free(block); }
void operator delete[](void* block, std::align_val_t, const std::nothrow_t&) noexcept { mi_free(block); }
#endif
