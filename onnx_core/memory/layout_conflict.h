#pragma once
// Memory-layout attributes of anchors and the conflict registry of Rule 5
// (§6.2, §6.3).

#include <string>
#include <vector>

namespace onnxopt::core::memory {

class MemoryGraph;

enum class AnchorAttribute {
  kNormalOutput,
  kUserInput,        // top-level graph input (caller memory)
  kImmutableOutput,  // initializer, Constant output
  kReferenceOutput,  // output aliasing an input
  kNormalInput,
  kUserOutput,       // slot of the top-level graph outputs
  kContinuousInput,  // declared contiguous input (last: LayoutConflict counts anchors by attribute)
};

// True when one buffer holding every value of `values` (and every use of them)
// would put two anchors with conflicting layout demands together.
bool LayoutConflict(const MemoryGraph& graph, const std::vector<std::string>& values);

}  // namespace onnxopt::core::memory
