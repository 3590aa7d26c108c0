#include "harness/model/expectations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "harness/model/text.h"
#include "harness/model/toml_reader.h"

namespace reapcheck {
namespace {

bool contains(const std::vector<std::string>& ids, std::string_view id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

class Reader : public TomlReader {
 public:
  Reader(const std::filesystem::path& file, const std::vector<std::string>& scenarios)
      : TomlReader(file), scenarios_(scenarios) {}

  ReaperExpectations read(const toml::table& root) {
    only_keys(root, {"reaper", "known", "skip"}, "an expectations file");
    ReaperExpectations out;
    out.reaper = string_at(root, "reaper", false);
    if (out.reaper.empty()) out.reaper = file().stem().string();
    out.file = file();
    for (const toml::table* t : tables_at(root, "known")) {
      only_keys(*t, {"verdict", "reason", "scenarios", "also"}, "a [[known]] weakness");
      Expectation e{weakness_verdict(*t), reason(*t), {}, {}};
      e.also = other_forms(*t, e.verdict);
      const std::vector<std::string> ids = scenario_ids(*t);
      const toml::array& lines = *t->get("scenarios")->as_array();
      for (size_t i = 0; i < ids.size(); ++i) {
        e.where = fmt::format("{}:{}", file().string(), lines[i].source().begin.line);
        out.known.emplace(ids[i], e);
      }
    }
    for (const toml::table* t : tables_at(root, "skip")) {
      only_keys(*t, {"reason", "scenarios"}, "a [[skip]]");
      const std::string why = reason(*t);
      for (const auto& id : scenario_ids(*t)) out.skip.emplace(id, why);
    }
    return out;
  }

 private:
  Verdict weakness_verdict(const toml::table& t) const {
    return as_weakness(string_at(t, "verdict", true), t.get("verdict")->source());
  }

  Verdict as_weakness(const std::string& text, const toml::source_region& where) const {
    const auto v = parse_verdict(text);
    if (!v || !is_weakness(*v)) {
      fail(where, fmt::format("'{}' is not a weakness verdict (one of: {})", text,
                              fmt::join(weakness_verdict_names(), ", ")));
    }
    return *v;
  }

  // `also`: the other failing verdicts the weakness may show, none of them `verdict` again.
  std::vector<Verdict> other_forms(const toml::table& t, Verdict verdict) const {
    std::vector<Verdict> out;
    const toml::node* node = t.get("also");
    if (node == nullptr) return out;
    const toml::array* list = node->as_array();
    if (list == nullptr) fail(node->source(), "'also' must be a list of verdicts");
    for (const toml::node& item : *list) {
      const auto text = item.value<std::string>();
      if (!text) fail(item.source(), "'also' must be a list of verdicts");
      const Verdict v = as_weakness(*text, item.source());
      if (v == verdict || std::find(out.begin(), out.end(), v) != out.end()) {
        fail(item.source(), fmt::format("'{}' is listed twice", *text));
      }
      out.push_back(v);
    }
    return out;
  }

  std::string reason(const toml::table& t) const {
    std::string r = printable(string_at(t, "reason", true));  // shown as a process's output is
    if (r.empty()) fail(t.get("reason")->source(), "a declared expectation needs its reason");
    return r;
  }

  // The scenarios an entry covers: each must exist, and each scenario is declared once per file.
  std::vector<std::string> scenario_ids(const toml::table& t) {
    std::vector<std::string> ids = strings_at(t, "scenarios");
    if (ids.empty()) fail(t.source(), "missing key 'scenarios' (the scenario ids it applies to)");
    const toml::array& where = *t.get("scenarios")->as_array();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!contains(scenarios_, ids[i])) {
        fail(where[i].source(), fmt::format("unknown scenario '{}' (scenarios: {})", ids[i],
                                            fmt::join(scenarios_, ", ")));
      }
      if (!seen_.insert(ids[i]).second) {
        fail(where[i].source(),
             fmt::format("scenario '{}' is declared twice in this file", ids[i]));
      }
    }
    return ids;
  }

  const std::vector<std::string>& scenarios_;
  std::set<std::string, std::less<>> seen_;
};

}  // namespace

void ExpectationBook::add(ReaperExpectations reaper) {
  std::string id = reaper.reaper;
  by_reaper_.insert_or_assign(std::move(id), std::move(reaper));
}

const ReaperExpectations* ExpectationBook::find(std::string_view reaper) const {
  auto it = by_reaper_.find(reaper);
  return it == by_reaper_.end() ? nullptr : &it->second;
}

Expectation ExpectationBook::expected(std::string_view scenario, std::string_view reaper) const {
  const ReaperExpectations* r = find(reaper);
  if (r == nullptr) return {};
  auto it = r->known.find(scenario);
  return it == r->known.end() ? Expectation{} : it->second;
}

const std::string* ExpectationBook::skip_reason(std::string_view scenario,
                                                std::string_view reaper) const {
  const ReaperExpectations* r = find(reaper);
  if (r == nullptr) return nullptr;
  auto it = r->skip.find(scenario);
  return it == r->skip.end() ? nullptr : &it->second;
}

ReaperExpectations parse_expectations(std::string_view text, const std::filesystem::path& file,
                                      const std::vector<std::string>& scenarios,
                                      const std::vector<std::string>& reapers,
                                      std::string_view whose) {
  ReaperExpectations out = Reader(file, scenarios).read(parse_toml(text, file));
  if (!contains(reapers, out.reaper)) {
    throw InputError(fmt::format(
        "{}:1:1: no reaper is called '{}': an expectations file is for the reaper its `reaper` "
        "key names, or else its file name ({}: {})",
        file.string(), out.reaper, whose, fmt::join(reapers, ", ")));
  }
  return out;
}

ExpectationBook load_expectations(const std::filesystem::path& dir,
                                  const std::vector<std::string>& scenarios,
                                  const std::vector<std::string>& reapers) {
  ExpectationBook book;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return book;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    book.add(parse_expectations(read_input(f), f, scenarios, reapers));
  }
  return book;
}

}  // namespace reapcheck
