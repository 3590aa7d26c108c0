// `reapcheck bench`: the measurements of bench/, with their options.
#include "bench/command.h"
#include "harness/cli/commands.h"

namespace reapcheck {

Command bench_command(CLI::App& app, const GlobalArgs& global) {
  auto args = std::make_shared<BenchArgs>();
  args->jobs = default_jobs();
  auto* cmd = app.add_subcommand(
      "bench",
      "Measure snapshot cost, each reaper's kill-to-all-dead time on wide trees (the built-ins "
      "and the presets) and a deep chain, the harness's overhead per case and the matrices' "
      "wall time (the built-in one also through ctest -L matrix, run from a build tree), against "
      "the targets; writes bench.json, bench.md (the table), bench.svg (the plot) and "
      "ctest-matrix.log");
  cmd->footer(
      "Examples:\n  reapcheck bench --quick --out reports/latest\n  reapcheck bench --ledger-only");
  auto* quick = cmd->add_flag("--quick", args->quick,
                              "Trees up to 1,000 members, one run each, no matrix: a few minutes");
  cmd->add_flag("--smoke", args->smoke,
                "Every measurement on trees of at most 10 members, no matrix: seconds; proves "
                "the machinery (the test suite's), its figures mean nothing")
      ->excludes(quick);
  cmd->add_flag("--no-presets", args->no_presets,
                "Skip the --presets matrix, the longest part: the built-in matrix is still timed "
                "with and without the signal ledger");
  cmd->add_flag("--ledger-only", args->ledger_only,
                "Only the built-in matrix, with and without the signal ledger: what the ledger "
                "costs (implies --no-presets)");
  cmd->add_option("--json", args->json_file, "Write the JSON to FILE instead of DIR/bench.json")
      ->type_name("FILE");
  cmd->add_option("--out", args->out_dir, "Directory for bench.json, bench.md, bench.svg")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("-j,--jobs", args->jobs, "Workers for the matrix run")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  return {cmd, [args, &global] {
            args->layout = global.layout;
            return run_bench(load_inputs(global), *args);
          }};
}

}  // namespace reapcheck
