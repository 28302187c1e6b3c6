#include "onnx_core/eval/random_seed.h"

#include <atomic>
#include <bit>
#include <string_view>

namespace onnxopt::core::eval {

namespace {

std::atomic<std::uint64_t> evaluation_seed{0};

// SplitMix64's finalizer: spreads nearby inputs (seeds 0, 1, 2...) over the whole range.
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// FNV-1a over the name's bytes.
std::uint64_t HashName(std::string_view name) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return hash;
}

}  // namespace

void SetEvaluationSeed(std::uint64_t seed) { evaluation_seed.store(seed, std::memory_order_relaxed); }

std::uint64_t EvaluationSeed() { return evaluation_seed.load(std::memory_order_relaxed); }

std::string_view RandomSeedName(const NodeProto& node) {
  if (!node.name().empty()) return node.name();
  return node.output_size() > 0 ? std::string_view(node.output(0)) : std::string_view();
}

std::uint64_t NodeRandomSeed(const KernelContext& ctx) {
  if (const AttributeProto* seed = ctx.Attribute("seed")) {
    if (seed->type() == AttributeProto::FLOAT) return std::bit_cast<std::uint32_t>(seed->f());
    if (seed->type() == AttributeProto::INT) return static_cast<std::uint64_t>(seed->i());
  }
  return Mix(EvaluationSeed() ^ Mix(HashName(RandomSeedName(ctx.Node()))));
}

}  // namespace onnxopt::core::eval
