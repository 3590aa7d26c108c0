#!/usr/bin/env bash
# The bench's machinery, end to end on its smallest configuration (`reapcheck bench --smoke`,
# which runs every step of --quick on trees of at most 10 members): exit 0, the three files, the
# JSON fields the issue names, a sample for every reaper and tree (every preset at 5 members), a
# plot line per built-in reaper. No figure is asserted: timings belong in the benchmark's report
# (`./run bench`), not in a test that can flake; and these trees are too small to mean any.
# --quick and a full run differ from --smoke only in their sizes (bench/command.cpp's sizes_of).
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/reapcheck" bench --smoke --out "$work/out" --json "$work/b.json" >"$work/md" 2>"$work/err"
status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL: reapcheck bench --smoke exited $status"
  cat "$work/err"
  exit 1
fi
ids=$("$bin/reapcheck" list --json | perl -MJSON::PP -e '
  print join " ", map { $_->{id} } @{ decode_json(do { local $/; <STDIN> })->{reapers} }')
presets=$("$bin/reapcheck" list --json | perl -MJSON::PP -e '
  print join " ", map { $_->{id} } @{ decode_json(do { local $/; <STDIN> })->{presets} }')

perl -MJSON::PP -e '
  my ($file, $presets, @reapers) = @ARGV;
  my $b = decode_json(do { local $/; open my $f, "<", $file or die; <$f> });
  die "not marked --smoke\n" unless $b->{smoke} && !$b->{quick};
  die "snapshots: " . @{ $b->{snapshots} } . "\n" unless @{ $b->{snapshots} } == 1;
  my $s = $b->{snapshots}[0];
  for my $k (qw(processes proc_us ps_us proc_files_us)) { die "snapshot lacks $k\n" unless $s->{$k} > 0 }
  die "snapshot source: $s->{source}\n" unless $s->{source} =~ /^(bpf-task-iterator|proc-files)$/;
  die "snapshot at $s->{processes}, not about 50\n" if abs($s->{processes} - 50) > 5;
  # The figure at 1,000 processes is none: 50 processes are no measure of it.
  die "a snapshot at 1,000 processes from one at $s->{processes}\n" if defined $b->{snapshot};
  my %seen;
  for my $r (@{ $b->{reap} }) {
    for my $k (qw(reaper shape members ms)) { die "reap sample lacks $k\n" unless exists $r->{$k} }
    $seen{"$r->{reaper}/$r->{shape}/$r->{members}"} = $r;
    # A preset may leave members behind (its figure is then "never", with its verdict).
    next if $r->{preset};
    # Every tree must die; pgroup and ps-walk also send stray signals (see their expectations).
    die "$r->{reaper} on $r->{shape} $r->{members}: $r->{verdict}\n"
      unless $r->{ms} >= 0 && $r->{verdict} =~ /^(pass|stray-signal)$/;
  }
  for my $reaper ("cgroup.kill", @reapers) {
    for my $tree (qw(wide/2 wide/10 chain/10)) {
      die "no sample for $reaper on $tree\n" unless $seen{"$reaper/$tree"};
    }
  }
  for my $preset (split " ", $presets) {
    my $r = $seen{"$preset/wide/5"} or die "no sample for the preset $preset on wide/5\n";
    die "$preset is not marked a preset\n" unless $r->{preset};
    die "$preset: no verdict\n" unless $r->{verdict} ne "";
  }
  die "case_overhead_ms missing\n" unless $b->{case_overhead_ms} > 0;
  for my $start (qw(fork_ms spawn_ms perl_ms)) {
    die "process_costs.$start missing\n" unless $b->{process_costs}{$start} > 0;
  }
  # Where the time of the trivial case went, phase by phase, in the order they ran; --smoke runs
  # no matrix, so it has no matrix phases.
  my @phases = map { $_->[0] } @{ $b->{case_phases_ms} };
  die "case_phases_ms: @phases\n" unless "@phases" eq "bystanders spawn tree kill audit evidence sandbox";
  die "a phase without its time\n" if grep { !($_->[1] >= 0) } @{ $b->{case_phases_ms} };
  die "--smoke must not have matrix phases\n" if @{ $b->{matrix_phases_ms} };
  die "--smoke must not time the matrix\n" unless exists $b->{matrix_wall_s} && !defined $b->{matrix_wall_s};
  die "--smoke must not time the --presets matrix\n"
    unless exists $b->{presets_matrix_wall_s} && !defined $b->{presets_matrix_wall_s};
  die "--smoke must not time ctest -L matrix\n"
    unless exists $b->{ctest_matrix_wall_s} && !defined $b->{ctest_matrix_wall_s};
  die "targets: " . @{ $b->{targets} } . "\n" unless @{ $b->{targets} } == 10;
' "$work/b.json" "$presets" $ids || { echo "FAIL: bench.json"; exit 1; }

grep -q '^| spawn | [0-9.]* | — | the fixture' "$work/out/bench.md" ||
  { echo "FAIL: bench.md lacks where a case's time goes"; exit 1; }
grep -q '^| process-table snapshot cheaper than ps at 1,000 processes | ≥ 20.0× |' "$work/out/bench.md" ||
  { echo "FAIL: bench.md lacks the targets table"; exit 1; }
cmp -s "$work/md" "$work/out/bench.md" || { echo "FAIL: printed table differs from bench.md"; exit 1; }
lines=$(grep -c '<polyline' "$work/out/bench.svg")
want=$(( $(echo "$ids" | wc -w) + 1 ))
[ "$lines" -eq "$want" ] || { echo "FAIL: bench.svg has $lines lines, want $want"; exit 1; }
perl -e 'local $/; my $x = <STDIN>; exit($x =~ m{^<svg .*</svg>\s*$}s ? 0 : 1)' <"$work/out/bench.svg" ||
  { echo "FAIL: bench.svg is not one svg element"; exit 1; }
# Interrupted after its first figure: exit 130, that figure written, nothing left running.
mkfifo "$work/progress"
mkdir "$work/tmp"
TMPDIR="$work/tmp" "$bin/reapcheck" bench --smoke --out "$work/partial" >/dev/null \
  2>"$work/progress" &
bench_pid=$!
exec 3<"$work/progress"
read -r first <&3  # "[ 0.1s] harness overhead per case: ..."
kill -INT "$bench_pid"
cat <&3 >/dev/null
wait "$bench_pid"
status=$?
exec 3<&-
[ "$status" -eq 130 ] || { echo "FAIL: interrupted bench exited $status (after: $first)"; exit 1; }
perl -MJSON::PP -e '
  my $b = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
  die "not marked interrupted\n" unless $b->{interrupted};
  die "the overhead measured before the interrupt is missing\n" unless $b->{case_overhead_ms} > 0;
' "$work/partial/bench.json" || { echo "FAIL: partial bench.json"; exit 1; }
# Every case's scratch directory, and so every fixture's command line, is under $work/tmp;
# "tm[p]" keeps grep from matching its own command line.
left=$(grep -l -s "$work/tm[p]" /proc/[0-9]*/cmdline || true)
[ -z "$left" ] || { echo "FAIL: left running after the interrupt: $left"; exit 1; }
[ -z "$(ls -A "$work/tmp")" ] || { echo "FAIL: scratch left after the interrupt"; exit 1; }

echo "bench: ok ($(grep -c . "$work/err") progress lines)"
