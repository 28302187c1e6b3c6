#pragma once
// Where a batch of records ends. A batch is the run of consecutive records with the same
// `iteration` and `graph_path` (local_rewriting.h): Replay applies it in one rebuild, and the
// HTML report lists it as one step. Apart from local_rewriting.h, which nearly every file
// includes, so that this helper's users alone depend on it.

#include <cstddef>
#include <vector>

#include "onnx_core/optimizer/local_rewriting.h"

namespace onnxopt::core::builder {

// One past the last record of the batch that starts at `begin` (< rewrites.size()).
inline std::size_t BatchEnd(const std::vector<LocalRewriting>& rewrites, std::size_t begin) {
  const LocalRewriting& first = rewrites[begin];
  std::size_t end = begin + 1;
  while (end < rewrites.size() && rewrites[end].iteration == first.iteration &&
         rewrites[end].graph_path == first.graph_path)
    ++end;
  return end;
}

}  // namespace onnxopt::core::builder
