#pragma once
// What starting a process costs on this machine: the floor under every case's set-up. The
// harness's and the fixtures' times scale with it from one machine to the next (on a PVM guest,
// which copies page tables through the hypervisor, a fork of a small process costs 2-4 ms), so
// a bench report says it beside the figures it explains.

namespace reapcheck {

struct ProcessCosts {
  double fork_ms = -1;   // fork() of the bench process, the child exiting at once, reaped
  double spawn_ms = -1;  // spawn_shared() and an exec of /bin/true, reaped: what a spawn costs
  double perl_ms = -1;   // perl -e 0: the fixtures' interpreter starting, before any script
};

// Each figure the median of `runs`; -1 where it could not be measured (no perl).
ProcessCosts measure_process_costs(int runs);

}  // namespace reapcheck
