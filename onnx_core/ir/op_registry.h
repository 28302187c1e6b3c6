#pragma once
// OpRegistry<Function>: functions keyed by (domain, op_type), the structure behind the
// shape-function and kernel registries. "" and "ai.onnx" are one domain. Registration
// happens once, from the extension libraries' Register* entry points; a second
// registration under one key is a bug (BuilderError). Lookups hand out pointers, which
// stay valid: elements of an unordered_map never move.

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "onnx_core/common/error.h"

namespace onnxopt::core::ir {

inline std::string_view NormalizedDomain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

// "Op", or "domain::Op" outside the default domain.
inline std::string DescribeOp(std::string_view domain, std::string_view op_type) {
  const std::string_view normalized = NormalizedDomain(domain);
  return normalized.empty() ? std::string(op_type) : std::string(normalized) + "::" + std::string(op_type);
}

template <class Function>
class OpRegistry {
 public:
  // `what` names the registered things in messages ("shape function", "kernel").
  explicit OpRegistry(const char* what) : what_(what) {}

  void Register(std::string_view domain, std::string_view op_type, Function function) {
    if (op_type.empty()) throw BuilderError(std::string("registering a ") + what_ + " with an empty op_type");
    if (!function) throw BuilderError(std::string("registering an empty ") + what_ + " for " + DescribeOp(domain, op_type));
    std::lock_guard lock(mutex_);
    if (!functions_.try_emplace(Key(domain, op_type), std::move(function)).second)
      throw BuilderError(std::string("a ") + what_ + " is already registered for " + DescribeOp(domain, op_type));
  }

  const Function* Find(std::string_view domain, std::string_view op_type) const {
    const std::string key = Key(domain, op_type);
    std::lock_guard lock(mutex_);
    auto it = functions_.find(key);
    return it == functions_.end() ? nullptr : &it->second;
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

  const char* what_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Function> functions_;
};

}  // namespace onnxopt::core::ir
