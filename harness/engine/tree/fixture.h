// Turning a scenario's tree into a fixture run: the spec file the fixture reads and the
// command that starts the agent.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/model/scenario.h"
#include "harness/support/layout.h"

namespace reapcheck {

// The JSON spec fixtures/perl/tree.pl reads; the keys mirror TreeNode's. Its format, and which
// reader acts on each key: fixtures/spec.schema.json (the fixture-spec test holds both to it).
nlohmann::json tree_spec(const TreeNode& node);

// Writes the spec under `worktree` and returns the agent's argv. The spec's path is in every
// forked member's argv, so — as with agents started on a worktree path — `pgrep -f <worktree>`
// finds the members that did not exec another program. `inside_kill`, when set, is the kill
// command the agent runs on its own tree when asked (a from-agent case). The fixtures and their
// interpreters are found through `layout`.
std::vector<std::string> prepare_fixture(const Scenario& scenario,
                                         const std::filesystem::path& worktree,
                                         const Layout& layout, const std::string& inside_kill = {});

// The sibling agent every case runs beside the agent, which the reaper must leave alone: the
// same fixture and interpreter as the scenario's (node for a command agent), its agent with a
// child of its own, roles sibling_roles(). Writes its spec under `worktree`; returns its argv.
std::vector<std::string> prepare_sibling(const Scenario& scenario,
                                         const std::filesystem::path& worktree,
                                         const Layout& layout);
const std::vector<std::string>& sibling_roles();

// Why a project's own command cannot run as an agent (its folder missing, or holding reapcheck's
// scratch, layout.temp, or on one of the kernel's own file systems; its program not found in
// layout.search_path or not executable), or empty.
std::string unrunnable(const CommandAgent& agent, const Layout& layout);

// Checks that what the scenarios need is installed; returns a message naming what is missing
// and which scenario needs it, or empty.
std::string missing_interpreters(const std::vector<Scenario>& scenarios, const Layout& layout);

}  // namespace reapcheck
