#pragma once
// Recycling of large tensor buffers during an evaluation.
//
// An evaluation frees each value after its last reader and allocates the next node's
// outputs, and in an exported network many of those have the same size (each layer's
// activations, each head's scores). A large buffer comes fresh from the operating system
// (mimalloc and glibc both return large blocks to it when they are freed) and its first
// write takes a page fault for every 4 KiB page: most of the time of `onnxopt run` on
// llama_forward went to page faults and to zeroing new pages. While a BufferRecycling
// scope is open, freed tensor buffers of at least kRecycledBufferBytes are kept and handed
// out again for a request of exactly their size. `Run` (evaluator.h) opens one.
//
// A request that no kept buffer fits first frees kept buffers, oldest first, until at least
// its size is freed, so the bytes of live and kept tensor buffers together never exceed the
// most that live tensor buffers alone have held. Buffers a kernel allocates for itself
// (a product computed into a vector, then copied into the output tensor) are not tensor
// buffers: while one is allocated, kept buffers still hold memory, so the process's peak
// can grow a little. On llama_forward, `onnxopt run`: page faults 3.32 M -> 1.73 M (with
// the command's summaries computed in pieces), time -11 %, peak RSS 3.01 -> 3.17 GB.
// When the last scope closes, the kept buffers are freed. Under AddressSanitizer a kept
// buffer is poisoned, so that a use after its tensor was freed is still reported.

#include <cstddef>
#include <cstdint>

namespace onnxopt::core::eval {

// Buffers below this size come from the allocator's own caches and are not kept.
inline constexpr std::size_t kRecycledBufferBytes = std::size_t{1} << 20;

// Open while alive; scopes nest and may live on several threads at once.
class BufferRecycling {
 public:
  BufferRecycling();
  ~BufferRecycling();
  BufferRecycling(const BufferRecycling&) = delete;
  BufferRecycling& operator=(const BufferRecycling&) = delete;
};

// The allocation functions of tensor buffers (Tensor's allocator).
void* AllocateTensorBuffer(std::size_t bytes);
void FreeTensorBuffer(void* buffer, std::size_t bytes) noexcept;

struct BufferRecyclingStats {
  std::uint64_t reused = 0;     // requests served by a kept buffer, since the process started
  std::size_t kept_bytes = 0;   // bytes kept now
  std::size_t kept_buffers = 0;
};
BufferRecyclingStats CurrentBufferRecyclingStats();

}  // namespace onnxopt::core::eval
