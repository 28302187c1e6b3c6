#include "onnx_core/optimizer/pattern_registry.h"

#include <algorithm>
#include <mutex>
#include <set>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"

namespace onnxopt::core::builder {

namespace {

using FactoryFunction = std::unique_ptr<PatternOptimization> (*)();

// Two factories are the same when both wrap the same plain function.
bool SameFactory(const PatternFactory& a, const PatternFactory& b) {
  const FactoryFunction* fa = a.target<FactoryFunction>();
  const FactoryFunction* fb = b.target<FactoryFunction>();
  return fa && fb && *fa == *fb;
}

struct GlobalRegistry {
  std::mutex mutex;
  PatternRegistry registry;
};

GlobalRegistry& Global() {
  static GlobalRegistry global;
  return global;
}

std::unique_ptr<PatternOptimization> Create(const std::string& name, const PatternFactory& factory) {
  std::unique_ptr<PatternOptimization> pattern = factory();
  if (!pattern) throw BuilderError("the factory of pattern '" + name + "' returned null");
  if (pattern->Name() != name)
    throw BuilderError("pattern registered as '" + name + "' names itself '" + pattern->Name() + "'");
  return pattern;
}

}  // namespace

void PatternRegistry::Register(const std::string& name, PatternFactory factory, std::string family) {
  if (name.empty()) throw BuilderError("a pattern needs a name");
  if (!factory) throw BuilderError("pattern '" + name + "' has no factory");
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& entry) { return entry.name == name; });
  if (it == entries_.end()) {
    entries_.push_back(RegisteredPattern{name, std::move(factory), std::move(family)});
    return;
  }
  if (SameFactory(it->factory, factory)) return;
  throw BuilderError("pattern '" + name + "' is already registered with another factory (use Replace to override)");
}

void PatternRegistry::Replace(const std::string& name, PatternFactory factory, std::string family) {
  if (name.empty()) throw BuilderError("a pattern needs a name");
  if (!factory) throw BuilderError("pattern '" + name + "' has no factory");
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& entry) { return entry.name == name; });
  if (it == entries_.end())
    entries_.push_back(RegisteredPattern{name, std::move(factory), std::move(family)});
  else
    *it = RegisteredPattern{name, std::move(factory), std::move(family)};
}

bool PatternRegistry::Contains(std::string_view name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const auto& entry) { return entry.name == name; });
}

std::vector<std::string> PatternRegistry::Names() const {
  std::vector<std::string> names;
  for (const RegisteredPattern& entry : entries_) names.push_back(entry.name);
  return names;
}

void RegisterPattern(const std::string& name, PatternFactory factory, std::string family) {
  std::lock_guard lock(Global().mutex);
  Global().registry.Register(name, std::move(factory), std::move(family));
}

void ReplacePattern(const std::string& name, PatternFactory factory, std::string family) {
  std::lock_guard lock(Global().mutex);
  Global().registry.Replace(name, std::move(factory), std::move(family));
}

std::vector<RegisteredPattern> RegisteredPatterns() {
  std::lock_guard lock(Global().mutex);
  return Global().registry.Entries();
}

std::vector<std::string> RegisteredPatternNames() {
  std::lock_guard lock(Global().mutex);
  return Global().registry.Names();
}

std::vector<std::unique_ptr<PatternOptimization>> CreateRegisteredPatterns() {
  std::vector<std::unique_ptr<PatternOptimization>> patterns;
  for (const RegisteredPattern& entry : RegisteredPatterns()) patterns.push_back(Create(entry.name, entry.factory));
  return patterns;
}

void RegisterPattern(GraphBuilder& builder, const std::string& name, PatternFactory factory) {
  std::shared_ptr<PatternRegistry>& registry = builder.LocalPatternRegistry();
  if (!registry) registry = std::make_shared<PatternRegistry>();
  registry->Replace(name, std::move(factory));
}

// --- Selection ------------------------------------------------------------------------

PatternSelection PatternSelection::Parse(std::string_view text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) throw Error("empty item in pattern list '" + std::string(text) + "'");
    items.push_back(std::move(item));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  // A list starting with a plain name selects exactly its names; "+A"/"-A" edit default.
  const std::string& first = items.front();
  PatternSelection selection(first == "default" || first[0] == '+' || first[0] == '-');
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    if (item == "default" || item == "none") {
      if (i != 0) throw Error("'" + item + "' may only start a pattern list");
      continue;
    }
    const bool include = item[0] != '-';
    std::string name = item[0] == '+' || item[0] == '-' ? item.substr(1) : item;
    if (name.empty()) throw Error("'" + item + "' names no pattern");
    if (include)
      selection.Include(std::move(name));
    else
      selection.Exclude(std::move(name));
  }
  return selection;
}

PatternSelection& PatternSelection::Include(std::string name) {
  edits_.emplace_back(true, std::move(name));
  return *this;
}

PatternSelection& PatternSelection::Exclude(std::string name) {
  edits_.emplace_back(false, std::move(name));
  return *this;
}

std::vector<std::string> PatternSelection::Resolve(const std::vector<std::string>& available) const {
  const std::set<std::string> known(available.begin(), available.end());
  std::set<std::string> chosen;
  if (all_) chosen = known;
  for (const auto& [include, name] : edits_) {
    if (!known.contains(name)) {
      std::string message = "unknown pattern '" + name + "'";
      message += available.empty() ? " (no pattern is registered)" : " (see 'onnxopt patterns' for the registered ones)";
      throw Error(message);
    }
    if (include)
      chosen.insert(name);
    else
      chosen.erase(name);
  }
  std::vector<std::string> result;
  for (const std::string& name : available)
    if (chosen.contains(name)) result.push_back(name);
  return result;
}

std::string PatternSelection::ToString() const {
  std::string text = all_ ? "default" : "none";
  for (const auto& [include, name] : edits_) text += (include ? ",+" : ",-") + name;
  return text;
}

std::vector<std::unique_ptr<PatternOptimization>> CreateSelectedPatterns(const GraphBuilder& builder,
                                                                         const PatternSelection& selection) {
  PatternRegistry merged;
  {
    std::lock_guard lock(Global().mutex);
    merged = Global().registry;
  }
  if (const PatternRegistry* local = builder.LocalPatternRegistry())
    for (const RegisteredPattern& entry : local->Entries()) merged.Replace(entry.name, entry.factory, entry.family);
  const std::vector<std::string> names = selection.Resolve(merged.Names());
  std::vector<std::unique_ptr<PatternOptimization>> patterns;
  for (const RegisteredPattern& entry : merged.Entries())
    if (std::find(names.begin(), names.end(), entry.name) != names.end())
      patterns.push_back(Create(entry.name, entry.factory));
  return patterns;
}

}  // namespace onnxopt::core::builder
