#pragma once
// OpRegistry<Function>: functions keyed by (domain, op_type), the structure behind the
// shape-function and kernel registries. "" and "ai.onnx" are one domain. Registration
// happens once, from the extension libraries' Register* entry points; a second
// registration under one key is a bug (BuilderError). Lookups hand out pointers, which
// stay valid: elements of an unordered_map never move.
//
// RecentLookups<Result>: each thread's memo of a registry's latest answers. Shape inference,
// type checks and the evaluator ask a registry about every node, mostly about the few
// operators one model uses; the registry answers under its mutex, after building a key and
// hashing it (about 400 instructions a lookup; the memo saves 1 % of optimizing a decoder).

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "onnx_core/common/error.h"
#include "onnx_core/utils/string_hash.h"

namespace onnxopt::core::ir {

inline std::string_view NormalizedDomain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

// "Op", or "domain::Op" outside the default domain.
inline std::string DescribeOp(std::string_view domain, std::string_view op_type) {
  const std::string_view normalized = NormalizedDomain(domain);
  return normalized.empty() ? std::string(op_type) : std::string(normalized) + "::" + std::string(op_type);
}

// A registry's generation: a number no other registry and no other state of this one
// has. Every registration takes a new one, so an answer given under an older generation,
// or by another registry, is never taken for the registry's current answer.
inline std::uint64_t NewRegistryGeneration() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

// Registry answers for (domain, op_type, version) keys, direct-mapped: a key that shares a
// slot with another replaces it. An answer holds while the generation it was given under
// is the registry's (NewRegistryGeneration), so registries of one Result type may share a
// thread_local memo.
template <class Result>
class RecentLookups {
 public:
  // The memoized answer, or `compute()` (which asks the registry) remembered under `generation`.
  template <class Compute>
  Result Get(std::uint64_t generation, std::string_view domain, std::string_view op_type, std::int64_t version,
             Compute&& compute) {
    const std::uint64_t hash = utils::HashString(op_type) ^ (static_cast<std::uint64_t>(version) * 0x9e3779b97f4a7c15ULL);
    Slot& slot = slots_[hash % kSlots];
    if (slot.generation == generation && slot.version == version && slot.op_type == op_type && slot.domain == domain)
      return slot.result;
    Result result = compute();
    slot.generation = generation;
    slot.version = version;
    slot.op_type.assign(op_type);
    slot.domain.assign(domain);
    slot.result = result;
    return result;
  }

 private:
  static constexpr std::size_t kSlots = 64;
  struct Slot {
    std::uint64_t generation = 0;  // 0: empty (generations start at 1)
    std::int64_t version = 0;
    std::string op_type, domain;
    Result result{};
  };
  std::array<Slot, kSlots> slots_;
};

template <class Function>
class OpRegistry {
 public:
  // `what` names the registered things in messages ("shape function", "kernel").
  explicit OpRegistry(const char* what) : what_(what) {}

  void Register(std::string_view domain, std::string_view op_type, Function function) {
    if (op_type.empty()) throw BuilderError(std::string("registering a ") + what_ + " with an empty op_type");
    if (!function) throw BuilderError(std::string("registering an empty ") + what_ + " for " + DescribeOp(domain, op_type));
    std::lock_guard lock(mutex_);
    // Before the change, under the mutex: a lookup waiting for it, or made before, is
    // remembered under the old generation.
    generation_.store(NewRegistryGeneration(), std::memory_order_release);
    if (!functions_.try_emplace(Key(domain, op_type), std::move(function)).second)
      throw BuilderError(std::string("a ") + what_ + " is already registered for " + DescribeOp(domain, op_type));
  }

  const Function* Find(std::string_view domain, std::string_view op_type) const {
    thread_local RecentLookups<const Function*> recent;
    return recent.Get(generation_.load(std::memory_order_acquire), domain, op_type, 0,
                      [&] { return FindLocked(domain, op_type); });
  }

  std::size_t Count() const {
    std::lock_guard lock(mutex_);
    return functions_.size();
  }

 private:
  // "domain\0op_type": neither part holds a NUL byte in a model we care about.
  static std::string Key(std::string_view domain, std::string_view op_type) {
    const std::string_view normalized = NormalizedDomain(domain);
    std::string key;
    key.reserve(normalized.size() + 1 + op_type.size());
    key.append(normalized);
    key.push_back('\0');
    key.append(op_type);
    return key;
  }

  const Function* FindLocked(std::string_view domain, std::string_view op_type) const {
    const std::string key = Key(domain, op_type);
    std::lock_guard lock(mutex_);
    auto it = functions_.find(key);
    return it == functions_.end() ? nullptr : &it->second;
  }

  const char* what_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Function> functions_;
  std::atomic<std::uint64_t> generation_{NewRegistryGeneration()};
};

}  // namespace onnxopt::core::ir
