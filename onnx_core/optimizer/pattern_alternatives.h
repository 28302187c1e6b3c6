#pragma once
// A pattern made of alternatives (declarative rules compile the patterns of one pass that
// share an anchor operator into one): Match tries them in turn on each candidate, so the
// driver makes one call and takes one time per candidate, and a successful match names the
// alternative that matched (MatchResult::pattern). The driver then records and applies that
// alternative, so records and Replay carry its name as if it had been tried on its own.
// Kept out of pattern.h on purpose: only the driver and the patterns that use it include it.

#include <memory>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::core::builder {

class PatternAlternatives {
 public:
  virtual ~PatternAlternatives() = default;
  // The owning pointer of `alternative`, held by this object for its whole life; null when
  // `alternative` is not one of its alternatives.
  virtual const std::shared_ptr<const PatternOptimization>* FindAlternative(
      const PatternOptimization& alternative) const = 0;
};

}  // namespace onnxopt::core::builder
