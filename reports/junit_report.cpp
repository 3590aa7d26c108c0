#include "reports/junit_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <pugixml.hpp>
#include <sstream>

#include "harness/model/reaper_name.h"
#include "reports/evidence.h"
#include "reports/file_output.h"

namespace reapcheck {
namespace {

// A suite's <system-out> holds the evidence of its expected weaknesses, up to this many bytes;
// results.json has the rest.
constexpr size_t kSystemOutBytes = size_t{16} * 1024;

std::string case_name(const RunResult& run, const CaseResult& c) {
  return c.scenario + (run.repeat > 1 ? fmt::format(" #{}", c.run) : "");
}

// The failure message CI tools show as the headline: the verdict and the evidence in one line.
std::string headline(const CaseResult& c) {
  return fmt::format("{} (expected {}): {}", to_string(c.verdict),
                     expected_text(c.expected, c.expected_also), evidence_summary(c));
}

// The whole bounded story of one case: verdict, reason, what to learn, evidence.
std::string case_text(const RunResult& run, const CaseResult& c) {
  std::string text = fmt::format("verdict {}, expected {}\nreason: {}\n", to_string(c.verdict),
                                 to_string(c.expected), short_reason(c));
  const auto notes = run.scenarios.find(c.scenario);
  for (const auto& line :
       lesson_lines(c, notes == run.scenarios.end() ? nullptr : &notes->second)) {
    text += line + "\n";
  }
  return text + evidence_text(c, "");
}

void add_property(pugi::xml_node props, const std::string& name, const std::string& value) {
  auto p = props.append_child("property");
  p.append_attribute("name") = name.c_str();
  p.append_attribute("value") = value.c_str();
}

// Jenkins' junit-10.xsd and the Ant schema allow properties on a suite only, so each case's go
// there, named "<case>.<property>".
void add_case_properties(pugi::xml_node props, const std::string& name, const CaseResult& c) {
  add_property(props, name + ".tags", fmt::format("{}", fmt::join(c.tags, ",")));
  add_property(props, name + ".verdict", std::string(to_string(c.verdict)));
  add_property(props, name + ".expected", std::string(to_string(c.expected)));
  if (!c.expected_reason.empty()) add_property(props, name + ".expected_reason", c.expected_reason);
  add_property(props, name + ".tree_ms", fmt::format("{:.1f}", c.tree_ms));
  add_property(props, name + ".kill_ms", fmt::format("{:.1f}", c.kill_ms));
  add_property(props, name + ".all_dead_ms", fmt::format("{:.1f}", c.all_dead_ms));
}

void add_run_properties(pugi::xml_node props, const RunResult& run) {
  add_property(props, "reapcheck.version", run.info.version);
  add_property(props, "kernel", run.info.kernel);
  if (!run.info.shard.empty()) add_property(props, "shard", run.info.shard);
  for (const auto& [name, value] : run.info.options) add_property(props, "option." + name, value);
}

struct Counts {
  int tests = 0;
  int failures = 0;
  int errors = 0;
  int skipped = 0;
  double seconds = 0;
  Counts& operator+=(const Counts& o) {
    tests += o.tests, failures += o.failures, errors += o.errors, skipped += o.skipped;
    seconds += o.seconds;
    return *this;
  }
};

// The reaper, or the harness, could not do its part: JUnit's <error> (the test could not run as
// meant) rather than <failure> (it ran and found the reaper wanting), so readers count them apart.
bool is_error(Verdict v) {
  return v == Verdict::setup_error || v == Verdict::reaper_error || v == Verdict::reaper_timeout;
}

// One <testcase>: a failure or an error with the evidence as message and text, a skip with its
// reason, or nothing (a pass or a known weakness, whose evidence goes to the suite's system-out).
void add_case(pugi::xml_node suite, const RunResult& run, const CaseResult& c, Counts& n) {
  auto tc = suite.append_child("testcase");
  ++n.tests;
  tc.append_attribute("classname") = reaper_name(c.reaper).c_str();
  tc.append_attribute("name") = case_name(run, c).c_str();
  tc.append_attribute("time") = fmt::format("{:.3f}", c.case_ms / 1000).c_str();
  n.seconds += c.case_ms / 1000;
  if (c.verdict == Verdict::skipped) {
    ++n.skipped;
    tc.append_child("skipped").append_attribute("message") = c.reason.c_str();
  } else if (!c.as_expected()) {
    ++(is_error(c.verdict) ? n.errors : n.failures);
    auto f = tc.append_child(is_error(c.verdict) ? "error" : "failure");
    f.append_attribute("message") = headline(c).c_str();
    f.append_attribute("type") = std::string(to_string(c.verdict)).c_str();
    f.append_child(pugi::node_pcdata).set_value(case_text(run, c).c_str());
  }
}

// Expected weaknesses still carry their evidence, so a known leak can be read in CI: in the
// suite's <system-out> (neither schema allows one in a testcase), bounded.
std::string known_evidence(const RunResult& run, const std::vector<const CaseResult*>& cases) {
  std::string out;
  int left_out = 0;
  for (const CaseResult* c : cases) {
    if (!c->as_expected() || c->verdict == Verdict::pass || c->verdict == Verdict::skipped) {
      continue;
    }
    std::string entry =
        fmt::format("=== {}: {} (known): {}\n{}\n", case_name(run, *c), to_string(c->verdict),
                    evidence_summary(*c), case_text(run, *c));
    if (out.size() + entry.size() > kSystemOutBytes - 200) {
      ++left_out;
      continue;
    }
    out += entry;
  }
  if (left_out > 0) {
    out +=
        fmt::format("… and {} more known weaknesses: results.json has their evidence\n", left_out);
  }
  return out;
}

void set_counts(pugi::xml_node node, const Counts& n) {
  node.append_attribute("tests") = n.tests;
  node.append_attribute("failures") = n.failures;
  node.append_attribute("errors") = n.errors;
}

// One <testsuite> per reaper, named as its cases' classname; the reaper's id as given (a
// command) is its property "reaper".
Counts add_suite(pugi::xml_node suites, const RunResult& run, const std::string& reaper,
                 const std::vector<const CaseResult*>& cases, int id, const std::string& stamp) {
  auto suite = suites.append_child("testsuite");
  suite.append_attribute("name") = reaper_name(reaper).c_str();
  suite.append_attribute("package") = "reapcheck";
  suite.append_attribute("id") = id;
  suite.append_attribute("timestamp") = stamp.c_str();
  suite.append_attribute("hostname") = run.info.host.empty() ? "localhost" : run.info.host.c_str();
  auto props = suite.append_child("properties");
  add_property(props, "reaper", reaper);
  add_run_properties(props, run);
  for (const CaseResult* c : cases) add_case_properties(props, case_name(run, *c), *c);
  Counts n;
  for (const CaseResult* c : cases) add_case(suite, run, *c, n);
  suite.append_child("system-out")
      .append_child(pugi::node_pcdata)
      .set_value(known_evidence(run, cases).c_str());
  suite.append_child("system-err");
  set_counts(suite, n);
  suite.append_attribute("skipped") = n.skipped;
  suite.append_attribute("time") = fmt::format("{:.3f}", n.seconds).c_str();
  return n;
}

// A run that did not finish (interrupted, or killed and recovered from its journal): a suite of
// its own whose one testcase is an error counting the cases that never ran, so that a reader of
// junit.xml alone never takes the cases that did for the whole run.
Counts add_incomplete_suite(pugi::xml_node suites, const RunResult& run, int id,
                            const std::string& stamp) {
  auto suite = suites.append_child("testsuite");
  suite.append_attribute("name") = "reapcheck";
  suite.append_attribute("package") = "reapcheck";
  suite.append_attribute("id") = id;
  suite.append_attribute("timestamp") = stamp.c_str();
  suite.append_attribute("hostname") = run.info.host.empty() ? "localhost" : run.info.host.c_str();
  add_run_properties(suite.append_child("properties"), run);
  auto tc = suite.append_child("testcase");
  tc.append_attribute("classname") = "reapcheck";
  tc.append_attribute("name") = "the whole run";
  tc.append_attribute("time") = "0.000";
  const std::string what = incompleteness(run);
  auto e = tc.append_child("error");
  e.append_attribute("message") = what.c_str();
  e.append_attribute("type") = "incomplete";
  e.append_child(pugi::node_pcdata).set_value(what.c_str());
  suite.append_child("system-out");
  suite.append_child("system-err");
  Counts n;
  n.tests = 1;
  n.errors = 1;
  set_counts(suite, n);
  suite.append_attribute("skipped") = 0;
  suite.append_attribute("time") = "0.000";
  return n;
}

}  // namespace

std::string junit_xml(const RunResult& run) {
  std::map<std::string, std::vector<const CaseResult*>> by_reaper;
  for (const auto& c : run.cases) by_reaper[c.reaper].push_back(&c);
  // The Ant schema requires a timestamp: the epoch for a results.json from before runs kept one.
  const std::string stamp = run.info.started.empty() ? "1970-01-01T00:00:00" : run.info.started;
  pugi::xml_document doc;
  // The totals as Jenkins' schema allows them (the Ant schema allows no attribute here, and no
  // reader requires its absence); the time is the run's, shorter than the cases' sum when they
  // ran side by side.
  auto suites = doc.append_child("testsuites");
  suites.append_attribute("name") = "reapcheck";
  Counts total;
  int id = 0;
  for (const auto& [reaper, cases] : by_reaper) {
    total += add_suite(suites, run, reaper, cases, id++, stamp);
  }
  if (run.never_run > 0) total += add_incomplete_suite(suites, run, id, stamp);
  set_counts(suites, total);
  suites.append_attribute("time") =
      fmt::format("{:.3f}", run.wall_s > 0 ? run.wall_s : total.seconds).c_str();
  std::ostringstream out;
  doc.save(out, "  ");
  return out.str();
}

void write_junit_report(const RunResult& run, const std::filesystem::path& file) {
  write_text_file(file, junit_xml(run));
}

}  // namespace reapcheck
