#include "onnx_core/memory/memory_traits.h"

#include <map>
#include <mutex>

namespace onnxopt::core::memory {

namespace {

std::string NormalizedDomain(std::string_view domain) { return domain == "ai.onnx" ? "" : std::string(domain); }

struct Registry {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, OpMemoryTraitsEntry, std::less<>> entries;
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

}  // namespace

void RegisterOpMemoryTraits(std::string_view domain, std::string_view op_type, OpMemoryTraitsEntry entry) {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  registry.entries.insert_or_assign({NormalizedDomain(domain), std::string(op_type)}, std::move(entry));
}

const OpMemoryTraitsEntry* FindOpMemoryTraits(std::string_view domain, std::string_view op_type) {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  // Entries are never erased, so the pointer stays valid after the lock is
  // released.
  auto it = registry.entries.find(std::pair{NormalizedDomain(domain), std::string(op_type)});
  return it == registry.entries.end() ? nullptr : &it->second;
}

const std::set<std::string>& BuiltinInPlaceFamilies() {
  static const std::set<std::string> families{"scatter", "tensor_scatter", "gqa"};
  return families;
}

OpMemoryTraits TraitsOf(const NodeProto& node, const ElementTypeQuery& type_of,
                        const std::set<std::string>& enabled_families) {
  const OpMemoryTraitsEntry* entry = FindOpMemoryTraits(node.domain(), node.op_type());
  if (entry == nullptr || !entry->traits) return {};
  if (!entry->enabled_by.empty() && !enabled_families.contains(entry->enabled_by)) return {};
  std::optional<OpMemoryTraits> traits = entry->traits(node, type_of);
  return traits ? std::move(*traits) : OpMemoryTraits{};
}

}  // namespace onnxopt::core::memory
