#include "onnx_core/optimizer/pattern_registry.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/utils/close_names.h"

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
  // DocumentPattern's texts, by name: a doc may come before its pattern's registration.
  std::map<std::string, std::string, std::less<>> docs;
};

// `entry` with the documentation DocumentPattern gave its name, unless it brings its own.
RegisteredPattern Documented(const GlobalRegistry& global, RegisteredPattern entry) {
  if (entry.doc.empty())
    if (auto doc = global.docs.find(entry.name); doc != global.docs.end()) entry.doc = doc->second;
  return entry;
}

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

void CheckEntry(const RegisteredPattern& entry) {
  if (entry.name.empty()) throw BuilderError("a pattern needs a name");
  if (!entry.factory) throw BuilderError("pattern '" + entry.name + "' has no factory");
}

}  // namespace

void PatternRegistry::Register(RegisteredPattern entry) {
  CheckEntry(entry);
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& known) { return known.name == entry.name; });
  if (it == entries_.end()) {
    entries_.push_back(std::move(entry));
    return;
  }
  if (SameFactory(it->factory, entry.factory) && it->numerics == entry.numerics) return;
  throw BuilderError("pattern '" + entry.name + "' is already registered with another factory or numerical class (use Replace to override)");
}

void PatternRegistry::Replace(RegisteredPattern entry) {
  CheckEntry(entry);
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& known) { return known.name == entry.name; });
  if (it == entries_.end())
    entries_.push_back(std::move(entry));
  else
    *it = std::move(entry);
}

void PatternRegistry::SetDoc(std::string_view name, const std::string& doc) {
  for (RegisteredPattern& entry : entries_)
    if (entry.name == name) entry.doc = doc;
}

bool PatternRegistry::Contains(std::string_view name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const auto& entry) { return entry.name == name; });
}

std::vector<std::string> PatternRegistry::Names() const {
  std::vector<std::string> names;
  for (const RegisteredPattern& entry : entries_) names.push_back(entry.name);
  return names;
}

void RegisterPattern(const std::string& name, PatternFactory factory, std::string family, NumericalClass numerics) {
  RegisterPattern(RegisteredPattern{name, std::move(factory), std::move(family), numerics});
}

void RegisterPattern(RegisteredPattern entry) {
  std::lock_guard lock(Global().mutex);
  Global().registry.Register(Documented(Global(), std::move(entry)));
}

void ReplacePattern(const std::string& name, PatternFactory factory, std::string family, NumericalClass numerics) {
  std::lock_guard lock(Global().mutex);
  Global().registry.Replace(
      Documented(Global(), RegisteredPattern{name, std::move(factory), std::move(family), numerics}));
}

std::vector<RegisteredPattern> RegisteredPatterns() {
  std::lock_guard lock(Global().mutex);
  return Global().registry.Entries();
}

void DocumentPattern(const std::string& name, std::string doc) {
  std::lock_guard lock(Global().mutex);
  Global().registry.SetDoc(name, doc);
  Global().docs[name] = std::move(doc);
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

std::vector<std::string> ClosePatternNames(std::string_view name, const std::vector<RegisteredPattern>& available,
                                           std::size_t limit) {
  std::vector<std::string> names;
  for (const RegisteredPattern& entry : available) names.push_back(entry.name);
  return utils::CloseNames(name, names, limit, "pattern");
}

void RegisterPattern(GraphBuilder& builder, const std::string& name, PatternFactory factory, NumericalClass numerics) {
  std::shared_ptr<PatternRegistry>& registry = builder.LocalPatternRegistry();
  if (!registry) registry = std::make_shared<PatternRegistry>();
  registry->Replace(RegisteredPattern{name, std::move(factory), "", numerics});
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
  const bool edits_default = first == "default" || first[0] == '+' || first[0] == '-';
  PatternSelection selection(first == "all" ? Base::kAll : edits_default ? Base::kDefault : Base::kNone);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    if (item == "default" || item == "none" || item == "all") {
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

std::vector<std::string> PatternSelection::Resolve(const std::vector<RegisteredPattern>& available) const {
  // By position in `available`: every optimizer construction resolves its selection, and
  // with sets of names that cost about as much as optimizing a one-node model.
  std::unordered_map<std::string_view, std::size_t> position;
  std::map<std::string_view, std::vector<std::size_t>> families;
  std::vector<bool> chosen(available.size(), false);
  for (std::size_t i = 0; i < available.size(); ++i) {
    const RegisteredPattern& entry = available[i];
    position.emplace(entry.name, i);
    if (!entry.family.empty()) families[entry.family].push_back(i);
    chosen[i] = base_ == Base::kAll || (base_ == Base::kDefault && entry.numerics != NumericalClass::kApproximate &&
                                        !entry.opt_in);
  }
  for (const auto& [include, name] : edits_) {
    // A pattern's name, else a family's: every pattern of it (approximate ones included).
    std::vector<std::size_t> selected;
    if (auto known = position.find(name); known != position.end()) {
      selected.push_back(known->second);
    } else if (auto family = families.find(name); family != families.end()) {
      selected = family->second;
    } else {
      std::string message = "unknown pattern or family '" + name + "'";
      if (available.empty()) throw Error(message + " (no pattern is registered)");
      std::vector<std::string> candidates;
      for (const RegisteredPattern& entry : available) candidates.push_back(entry.name);
      for (const auto& [family, members] : families) candidates.emplace_back(family);
      const std::string suggestion = utils::DidYouMean(utils::CloseNames(name, candidates, 3, "pattern"));
      throw Error(message + suggestion + " (see 'onnxopt patterns' for the registered ones)");
    }
    for (std::size_t i : selected) chosen[i] = include;
  }
  std::vector<std::string> result;
  for (std::size_t i = 0; i < available.size(); ++i)
    if (chosen[i]) result.push_back(available[i].name);
  return result;
}

std::string PatternSelection::ToString() const {
  std::string text = base_ == Base::kAll ? "all" : base_ == Base::kDefault ? "default" : "none";
  for (const auto& [include, name] : edits_) text += (include ? ",+" : ",-") + name;
  return text;
}

std::vector<std::unique_ptr<PatternOptimization>> CreateSelectedPatterns(const GraphBuilder& builder,
                                                                         const PatternSelection& selection) {
  // The optimizer of each nested graph selects nothing (it takes its parent's patterns):
  // copying the registry for it cost as much as optimizing a small branch.
  if (selection.SelectsNothing()) return {};
  PatternRegistry merged;
  {
    std::lock_guard lock(Global().mutex);
    merged = Global().registry;
  }
  if (const PatternRegistry* local = builder.LocalPatternRegistry())
    for (const RegisteredPattern& entry : local->Entries()) merged.Replace(entry);
  // Resolve keeps the entries' order: one walk pairs the names with their entries.
  const std::vector<std::string> names = selection.Resolve(merged.Entries());
  std::vector<std::unique_ptr<PatternOptimization>> patterns;
  std::size_t next = 0;
  for (const RegisteredPattern& entry : merged.Entries())
    if (next < names.size() && entry.name == names[next]) {
      ++next;
      patterns.push_back(Create(entry.name, entry.factory));
    }
  return patterns;
}

}  // namespace onnxopt::core::builder
