#include "onnx_core/eval/buffer_recycling.h"

#include <mutex>
#include <new>
#include <utility>
#include <vector>

// GCC defines __SANITIZE_ADDRESS__ under -fsanitize=address; clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define ONNXOPT_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ONNXOPT_ADDRESS_SANITIZER 1
#endif
#endif

#if defined(ONNXOPT_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#define ONNXOPT_POISON(data, bytes) ASAN_POISON_MEMORY_REGION(data, bytes)
#define ONNXOPT_UNPOISON(data, bytes) ASAN_UNPOISON_MEMORY_REGION(data, bytes)
#else
#define ONNXOPT_POISON(data, bytes) ((void)(data), (void)(bytes))
#define ONNXOPT_UNPOISON(data, bytes) ((void)(data), (void)(bytes))
#endif

namespace onnxopt::core::eval {

namespace {

struct KeptBuffer {
  void* data;
  std::size_t bytes;
};

struct Recycler {
  std::mutex mutex;
  int open_scopes = 0;
  std::vector<KeptBuffer> kept;  // oldest first
  std::uint64_t reused = 0;
};

// Never destroyed: tensors held by static objects may be freed after it would be.
Recycler& TheRecycler() {
  static Recycler* const recycler = new Recycler;
  return *recycler;
}

// Buffers are freed with the unsized operator delete: clang 14 declares the sized one
// only under -fsized-deallocation, which GCC turns on by default.
void Release(const KeptBuffer& buffer) {
  ONNXOPT_UNPOISON(buffer.data, buffer.bytes);
  ::operator delete(buffer.data);
}

// Takes the buffers to free out of `recycler` (freed outside the lock by the caller).
std::vector<KeptBuffer> TakeOldest(Recycler& recycler, std::size_t at_least) {
  std::size_t count = 0;
  std::size_t taken_bytes = 0;
  while (count < recycler.kept.size() && taken_bytes < at_least) taken_bytes += recycler.kept[count++].bytes;
  std::vector<KeptBuffer> taken(recycler.kept.begin(), recycler.kept.begin() + static_cast<std::ptrdiff_t>(count));
  recycler.kept.erase(recycler.kept.begin(), recycler.kept.begin() + static_cast<std::ptrdiff_t>(count));
  return taken;
}

}  // namespace

BufferRecycling::BufferRecycling() {
  Recycler& recycler = TheRecycler();
  std::lock_guard lock(recycler.mutex);
  ++recycler.open_scopes;
}

BufferRecycling::~BufferRecycling() {
  Recycler& recycler = TheRecycler();
  std::vector<KeptBuffer> released;
  {
    std::lock_guard lock(recycler.mutex);
    if (--recycler.open_scopes == 0) released = std::exchange(recycler.kept, {});
  }
  for (const KeptBuffer& buffer : released) Release(buffer);
}

void* AllocateTensorBuffer(std::size_t bytes) {
  if (bytes >= kRecycledBufferBytes) {
    Recycler& recycler = TheRecycler();
    std::vector<KeptBuffer> released;
    {
      std::lock_guard lock(recycler.mutex);
      // The most recently kept buffer of this size: its pages are the likeliest in cache.
      for (auto it = recycler.kept.rbegin(); it != recycler.kept.rend(); ++it) {
        if (it->bytes != bytes) continue;
        void* data = it->data;
        recycler.kept.erase(std::next(it).base());
        ++recycler.reused;
        ONNXOPT_UNPOISON(data, bytes);
        return data;
      }
      released = TakeOldest(recycler, bytes);
    }
    for (const KeptBuffer& buffer : released) Release(buffer);
  }
  return ::operator new(bytes);
}

void FreeTensorBuffer(void* buffer, std::size_t bytes) noexcept {
  if (bytes >= kRecycledBufferBytes) {
    Recycler& recycler = TheRecycler();
    std::lock_guard lock(recycler.mutex);
    if (recycler.open_scopes > 0) {
      try {
        recycler.kept.push_back({buffer, bytes});
      } catch (const std::bad_alloc&) {
        ::operator delete(buffer);
        return;
      }
      ONNXOPT_POISON(buffer, bytes);
      return;
    }
  }
  ::operator delete(buffer);
}

BufferRecyclingStats CurrentBufferRecyclingStats() {
  Recycler& recycler = TheRecycler();
  std::lock_guard lock(recycler.mutex);
  BufferRecyclingStats stats{.reused = recycler.reused, .kept_buffers = recycler.kept.size()};
  for (const KeptBuffer& buffer : recycler.kept) stats.kept_bytes += buffer.bytes;
  return stats;
}

}  // namespace onnxopt::core::eval
