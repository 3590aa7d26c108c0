#include "reports/junit_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <pugixml.hpp>
#include <sstream>

#include "reports/evidence.h"
#include "reports/file_output.h"

namespace reapcheck {
namespace {

std::string failure_text(const CaseResult& c) {
  std::string text =
      fmt::format("verdict {}, expected {}", to_string(c.verdict), to_string(c.expected));
  if (!c.expected_reason.empty()) text += fmt::format(" ({})", c.expected_reason);
  text += "\nreason: " + c.reason + "\n";
  return text + evidence_text(c, "");
}

void add_property(pugi::xml_node props, const char* name, const std::string& value) {
  auto p = props.append_child("property");
  p.append_attribute("name") = name;
  p.append_attribute("value") = value.c_str();
}

}  // namespace

std::string junit_xml(const RunResult& run) {
  std::map<std::string, std::vector<const CaseResult*>> by_reaper;
  for (const auto& c : run.cases) by_reaper[c.reaper].push_back(&c);

  pugi::xml_document doc;
  auto suites = doc.append_child("testsuites");
  suites.append_attribute("name") = "reapcheck";
  int total = 0, total_failures = 0;
  for (const auto& [reaper, cases] : by_reaper) {
    auto suite = suites.append_child("testsuite");
    suite.append_attribute("name") = reaper.c_str();
    int failures = 0, skipped = 0;
    double seconds = 0;
    for (const CaseResult* c : cases) {
      auto tc = suite.append_child("testcase");
      tc.append_attribute("classname") = reaper.c_str();
      std::string name = c->scenario + (run.repeat > 1 ? fmt::format(" #{}", c->run) : "");
      tc.append_attribute("name") = name.c_str();
      tc.append_attribute("time") = fmt::format("{:.3f}", c->case_ms / 1000).c_str();
      seconds += c->case_ms / 1000;
      auto props = tc.append_child("properties");
      add_property(props, "tags", fmt::format("{}", fmt::join(c->tags, ",")));
      add_property(props, "verdict", std::string(to_string(c->verdict)));
      add_property(props, "expected", std::string(to_string(c->expected)));
      if (!c->expected_reason.empty()) add_property(props, "expected_reason", c->expected_reason);
      add_property(props, "tree_ms", fmt::format("{:.1f}", c->tree_ms));
      add_property(props, "kill_ms", fmt::format("{:.1f}", c->kill_ms));
      add_property(props, "all_dead_ms", fmt::format("{:.1f}", c->all_dead_ms));
      if (c->verdict == Verdict::skipped) {
        ++skipped;
        tc.append_child("skipped").append_attribute("message") = c->reason.c_str();
      } else if (!c->as_expected()) {
        ++failures;
        auto f = tc.append_child("failure");
        std::string message =
            fmt::format("{} (expected {})", to_string(c->verdict), to_string(c->expected));
        f.append_attribute("message") = message.c_str();
        f.append_attribute("type") = std::string(to_string(c->verdict)).c_str();
        f.append_child(pugi::node_pcdata).set_value(failure_text(*c).c_str());
      } else {
        // Expected outcomes still carry their evidence, so a known leak can be read in CI.
        tc.append_child("system-out")
            .append_child(pugi::node_pcdata)
            .set_value(failure_text(*c).c_str());
      }
    }
    suite.append_attribute("tests") = static_cast<int>(cases.size());
    suite.append_attribute("failures") = failures;
    suite.append_attribute("errors") = 0;
    suite.append_attribute("skipped") = skipped;
    suite.append_attribute("time") = fmt::format("{:.3f}", seconds).c_str();
    total += static_cast<int>(cases.size());
    total_failures += failures;
  }
  suites.append_attribute("tests") = total;
  suites.append_attribute("failures") = total_failures;
  std::ostringstream out;
  doc.save(out, "  ");
  return out.str();
}

void write_junit_report(const RunResult& run, const std::filesystem::path& file) {
  write_text_file(file, junit_xml(run));
}

}  // namespace reapcheck
