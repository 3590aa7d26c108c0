// The spec files fixture.cpp writes for the built-in scenarios, as a case writes them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/engine/tree/fixture.h"
#include "harness/model/scenario_set.h"
#include "tests/unit/temp_dir.h"

namespace reapcheck {
namespace {

namespace fs = std::filesystem;

class FixtureSpecFiles : public testing::TempDirTest {
 protected:
  // Copies the spec the fixture's argv (PROGRAM READER SPEC) names to `out`/`name`.json, and
  // checks that its reader is the scenario's fixture.
  void keep(const std::vector<std::string>& argv, Fixture fixture, const fs::path& out,
            const std::string& name) {
    ASSERT_EQ(argv.size(), 3u) << name;
    const std::string reader = fixture == Fixture::node ? "tree.js" : "tree.pl";
    EXPECT_EQ(fs::path(argv[1]).filename(), reader) << name;
    std::ifstream in(argv[2]);
    const auto spec = nlohmann::json::parse(in);
    EXPECT_TRUE(spec.contains("role")) << name;
    fs::copy_file(argv[2], out / (name + ".json"), fs::copy_options::overwrite_existing);
    ++written_;
  }

  int written_ = 0;
};

// Every spec a built-in scenario's case writes: its agent's (with an inside reaper's command in
// a from-agent case) and its sibling agent's. tests/e2e/fixture_spec_test.sh runs this with
// REAPCHECK_SPEC_DIR set and validates what it leaves there against fixtures/spec.schema.json.
TEST_F(FixtureSpecFiles, AreWrittenForEveryBuiltInScenario) {
  const char* keep_in = std::getenv("REAPCHECK_SPEC_DIR");
  const fs::path out = keep_in != nullptr && *keep_in != '\0' ? fs::path(keep_in) : dir_ / "out";
  fs::create_directories(out);
  const auto scenarios = load_scenarios(fs::path(REAPCHECK_SOURCE_DIR) / "scenarios");
  ASSERT_GE(scenarios.size(), 30u);
  const Layout layout = Layout::of_running_binary();
  for (const auto& s : scenarios) {
    const fs::path scratch = dir_ / s.id;
    if (!s.agent) {  // a package's or a project's program writes no spec
      const std::string inside =
          s.setup.request == CaseSetup::Request::from_agent ? "kill -KILL -- -{pgid}" : "";
      keep(prepare_fixture(s, scratch / "agent", layout, inside), s.fixture, out, s.id);
    }
    const Fixture sibling = s.agent && !s.agent->observed() ? Fixture::node : s.fixture;
    keep(prepare_sibling(s, scratch / "sibling", layout), sibling, out, s.id + ".sibling");
  }
  EXPECT_GT(written_, static_cast<int>(scenarios.size()));
}

}  // namespace
}  // namespace reapcheck
