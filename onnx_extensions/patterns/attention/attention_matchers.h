#pragma once
// Helpers shared by the attention patterns (../../../../shared/docs/patterns/attention.md).

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::attention {

using core::builder::GraphGraph;

// The domain of the model-local functions the stage-1 patterns create.
inline constexpr std::string_view kIntermediateDomain = "intermediate";

// `node` is a call to the local function `name` of the `intermediate` domain. The name
// alone does not say what the call computes: see WhyNotOwnFunction.
bool IsIntermediateCall(const NodeProto& node, std::string_view name);

// Why a stage-1 pattern cannot add `function` (the body it builds): the model already
// defines a local function of its (domain, name) with another content, compared byte for
// byte as GraphBuilder::GetOrAddFunction compares it (which would throw rather than
// replace it); empty when the model has no function of that key or exactly this one.
std::string_view WhyNotAddable(const GraphGraph& graph, const FunctionProto& function);

// Why a call of `function`'s (domain, name) does not run `function` (the body onnxopt's
// stage-1 pattern writes under that name), compared as WhyNotAddable compares: the model
// defines no such function, or one with another content (a model may reuse the name for
// anything); empty when it defines exactly `function`.
std::string_view WhyNotOwnFunction(const GraphGraph& graph, const FunctionProto& function);

// The main opset from which RotaryEmbedding and Attention are standard operators.
inline constexpr std::int64_t kFusedAttentionOpset = 23;

// `c` when `value` is computed by a default-domain Concat<axis=-1>(c, c) (the axis written
// literally as -1, as upstream requires); empty with `why` set otherwise.
std::string_view DuplicatedHalf(const GraphGraph& graph, std::string_view value, std::string_view* why);

// The head repetition of grouped-query attention around a tensor T [B, Hkv, L, D]:
//   Reshape(Expand(Unsqueeze(T, [2]), E), R)   or   Squeeze(Expand(Unsqueeze(T, [2]), E), R)
// with E = [1, 1, n, 1, 1] constant and R a constant shape (4 elements) or axes (1 element).
struct GqaExpansion {
  const NodeProto* unsqueeze = nullptr;
  const NodeProto* expand = nullptr;
  const NodeProto* merge = nullptr;  // the Reshape or the Squeeze
  std::vector<std::int64_t> expand_shape;
  std::vector<std::int64_t> merge_arg;
};

// The expansion chain that computes `value`, each of its three outputs used once; nullopt
// with `why` set otherwise. Does not look at shapes (WhyNotHeadRepeat does).
std::optional<GqaExpansion> MatchGqaExpansion(GraphGraph& graph, std::string_view value, std::string_view* why);

// E is [1, 1, n, 1, 1] with n >= 1.
bool IsHeadExpandShape(const std::vector<std::int64_t>& e);

// Why expanding `kv` (known shape [B, Hkv, L, D]) by E then reshaping it to R (or squeezing
// the axes R) does not give [B, Hkv * n, L, D] with key-value head h serving the heads
// h*n .. h*n+n-1, which is what Attention's own GQA broadcasting does when the query has
// `query_heads` == Hkv * n heads and the same batch (Attention does not broadcast Q's batch
// over the keys' as MatMul does); empty when it does.
std::string_view WhyNotHeadRepeat(const GraphGraph& graph, std::string_view kv, const std::vector<std::int64_t>& e,
                                  const std::vector<std::int64_t>& r, bool squeeze, std::string_view query);

// The KV-cache Concat(past, new) along the sequence axis (2, or -2, of a 4-D tensor) with
// exactly two inputs that computes `value`; null with `why` set otherwise.
const NodeProto* KvCacheConcat(const GraphGraph& graph, std::string_view value, std::string_view* why);

// Why the opset-23 Attention that fuses `node` (an attention whose query is input 0 and
// mask input 3, its keys after the cache `keys` [B, H, T, D]) would not read the mask as
// `node` does; empty when it reads it the same. Attention's mask broadcasts to
// [B, Hq, Sq, T] without growing it, where a Where or an Add broadcasts both ways.
std::string_view WhyNotFusedMask(const GraphGraph& graph, const NodeProto& node, std::string_view keys);

// The two KV-cache Concats an opset-23 Attention fusing `node` takes over.
struct KvCaches {
  const NodeProto* keys = nullptr;
  const NodeProto* values = nullptr;
};

// The caches that compute `keys` and `values` (4-D, before the head repetition E, R: see
// WhyNotHeadRepeat) when one Attention with past inputs can replace `node`, its `chain` of
// matched nodes and both caches: the caches split at one past length, their heads repeated
// as every runtime's Attention repeats them, their outputs read by no node before `node`
// and by no subgraph; nullopt with `why` set otherwise.
std::optional<KvCaches> MatchKvCaches(const GraphGraph& graph, const NodeProto& node, std::string_view keys,
                                      std::string_view values, const std::vector<std::int64_t>& e,
                                      const std::vector<std::int64_t>& r, bool squeeze,
                                      const std::vector<const NodeProto*>& chain, std::string_view* why);

// A `LocalAttentionGQA[SW][sQ]_to<type>` name, parsed.
struct LocalGqaName {
  bool switched = false;  // SW: a true mask value means "masked out"
  bool squeeze = false;   // sQ: Squeeze instead of Reshape after the expansion
  int elem_type = 0;      // the digits after _to
};
std::optional<LocalGqaName> ParseLocalGqaName(std::string_view op_type);

// The op types ParseLocalGqaName accepts for the float element types (1, 10, 11, 16).
std::set<std::string> LocalGqaOpTypes();

// Appends `outputs = op_type(inputs)` (default domain) to `nodes`, named after `origin`.
NodeProto& EmitNode(utils::RepeatedProtoField<NodeProto>& nodes, GraphGraph& graph, std::string_view pattern,
                    const NodeProto& origin, std::string_view op_type, std::initializer_list<std::string_view> inputs,
                    std::initializer_list<std::string_view> outputs);

// Appends `Y, present_key, present_value = Attention<[scale], is_causal = 0>(Q, k, v, mask,
// pk, pv)`, which replaces `node` (query input 0, output Y) and the two caches.
void EmitCachedAttention(utils::RepeatedProtoField<NodeProto>& nodes, GraphGraph& graph, std::string_view pattern,
                         const NodeProto& node, const KvCaches& caches, std::string_view mask,
                         std::optional<float> scale);

}  // namespace onnxopt::onnx_patterns::attention
