#include "onnx_core/memory/memory_report.h"

#include <sstream>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/json_writer.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::core::memory {

namespace {

void WriteCost(JsonWriter& json, const MemoryCost& cost) {
  json.BeginObject();
  json.Key("copies").Int(cost.copies);
  json.Key("bytes_copied").Int(cost.bytes_copied);
  json.Key("peak_bytes").Int(cost.peak_bytes);
  json.Key("input_bytes").Int(cost.input_bytes);
  json.Key("initializer_bytes").Int(cost.initializer_bytes);
  json.Key("unknown_sizes").Int(cost.unknown_sizes);
  json.EndObject();
}

}  // namespace

SizeQuery SizeQueryOf(const builder::GraphBuilder& graph) {
  return [&graph](std::string_view value) -> std::optional<std::int64_t> {
    const shapes::SymTensor* tensor = graph.GetShape(value);
    if (tensor == nullptr || tensor->kind != shapes::SymTensor::Kind::kTensor || !tensor->shape.HasRank())
      return std::nullopt;
    const std::size_t element = eval::StorageBytes(tensor->elem_type);
    if (element == 0) return std::nullopt;
    std::int64_t bytes = static_cast<std::int64_t>(element);
    for (const shapes::SymDim& dim : tensor->shape.Dims()) {
      const std::optional<std::int64_t> size = dim.Constant();
      if (!size) return std::nullopt;
      bytes *= *size;
    }
    return bytes;
  };
}

MemoryReport PlanMemory(builder::GraphBuilder& graph, const MemoryOptions& options) {
  MemoryReport report;
  const ElementTypeQuery type_of = TypeQueryOf(graph);
  const FunctionList& functions = graph.Functions();
  const SizeQuery size_of = SizeQueryOf(graph);
  {
    const MemoryGraph full(graph.Graph(), true, options, type_of, functions);
    const std::vector<InPlaceWrite> writes = CheckInPlaceWrites(full, options);
    std::set<const NodeProto*> every_writer;
    for (const InPlaceWrite& write : writes)
      if (!write.clobber) every_writer.insert(write.node);
    report.copies_before = static_cast<std::int64_t>(CopiesOf(full).size());
    const MemoryGraph functional(graph.Graph(), true, options, type_of, functions, {}, every_writer);
    report.before = PlanCost(functional, writes, every_writer, size_of);
    report.writers = static_cast<std::int64_t>(every_writer.size());
  }
  report.elimination = EliminateCopies(graph, true, options);
  const MemoryGraph eliminated(graph.Graph(), true, options, type_of, functions, report.elimination.elided, {},
                               &report.elimination.instance_edits);
  const std::vector<InPlaceWrite> writes = CheckInPlaceWrites(eliminated, options);
  const std::set<const NodeProto*> unsafe = UnsafeWriters(writes);
  for (const InPlaceWrite& write : writes)
    if (!write.clobber && !unsafe.contains(write.node)) ++report.writers_in_place;
  const MemoryGraph planned(graph.Graph(), true, options, type_of, functions, report.elimination.elided, unsafe,
                            &report.elimination.instance_edits);
  report.after = PlanCost(planned, writes, unsafe, size_of);
  return report;
}

std::string ReportText(const MemoryReport& report) {
  std::ostringstream out;
  const auto& elimination = report.elimination;
  out << "copy nodes: " << report.copies_before << " -> "
      << report.copies_before - static_cast<std::int64_t>(elimination.Count(CopyVerdict::Kind::kDeleted) +
                                                          elimination.Count(CopyVerdict::Kind::kElided))
      << " (deleted " << elimination.Count(CopyVerdict::Kind::kDeleted) << ", elided "
      << elimination.Count(CopyVerdict::Kind::kElided) << ", kept " << elimination.Count(CopyVerdict::Kind::kKept)
      << ")\n";
  out << "in-place writers: " << report.writers_in_place << " of " << report.writers << " run in place\n";
  out << "copies executed: " << report.before.copies << " -> " << report.after.copies << "\n";
  out << "bytes copied: " << report.before.bytes_copied << " -> " << report.after.bytes_copied << "\n";
  out << "peak memory: " << report.before.peak_bytes << " -> " << report.after.peak_bytes << " bytes (graph inputs "
      << report.after.input_bytes << " and initializers " << report.after.initializer_bytes << " bytes apart)\n";
  if (report.after.unknown_sizes > 0)
    out << "buffers of unknown size (counted as 0): " << report.after.unknown_sizes << " (bind dims with --dim)\n";
  out << "constraints: " << elimination.constraints.size() << ", nodes moved: " << elimination.nodes_moved << "\n";
  for (const CopyVerdict& verdict : elimination.verdicts) {
    out << "  " << verdict.copy << ": " << VerdictText(verdict);
    if (!verdict.path.empty()) out << "  path " << verdict.path;
    for (const auto& [before, after] : verdict.constraints) out << "  constraint " << before << " -> " << after;
    out << "\n";
  }
  if (elimination.capped) out << "warning: the evaluation cap ended the pass early\n";
  if (elimination.work_limited)
    out << "warning: the work limit (" << elimination.work_limit
        << " steps, linear in the graph) ended the pass early: the copies not decided are kept\n";
  return out.str();
}

std::string ReportJson(const MemoryReport& report) {
  JsonWriter json;
  json.BeginObject();
  json.Key("copy_nodes_before").Int(report.copies_before);
  json.Key("writers").Int(report.writers);
  json.Key("writers_in_place").Int(report.writers_in_place);
  json.Key("before");
  WriteCost(json, report.before);
  json.Key("after");
  WriteCost(json, report.after);
  json.Key("constraints").BeginArray();
  for (const auto& [before, after] : report.elimination.constraints)
    json.BeginArray().String(before).String(after).EndArray();
  json.EndArray();
  json.Key("nodes_moved").Int(report.elimination.nodes_moved);
  json.Key("copies").BeginArray();
  for (const CopyVerdict& verdict : report.elimination.verdicts) {
    json.BeginObject();
    json.Key("copy").String(verdict.copy);
    json.Key("verdict").String(VerdictText(verdict));
    json.Key("rule").Int(verdict.rule);
    json.Key("reason").String(verdict.reason);
    json.Key("path").String(verdict.path);
    json.EndObject();
  }
  json.EndArray();
  json.Key("capped").Bool(report.elimination.capped);
  json.Key("work_steps").Int(static_cast<std::int64_t>(report.elimination.work_steps));
  json.Key("work_limit").Int(static_cast<std::int64_t>(report.elimination.work_limit));
  json.Key("work_limited").Bool(report.elimination.work_limited);
  json.EndObject();
  return json.Text();
}

}  // namespace onnxopt::core::memory
