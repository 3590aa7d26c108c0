#!/usr/bin/env bash
# `reapcheck bench --quick` as a user runs it: exit 0, the three files, the JSON fields the
# issue names, a sample for every reaper and tree (every preset at 100 members), a plot line per
# built-in reaper. No figure is asserted: timings belong in the benchmark's report, not in a test
# that can flake.
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/reapcheck" bench --quick --out "$work/out" --json "$work/b.json" >"$work/md" 2>"$work/err"
status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL: reapcheck bench --quick exited $status"
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
  my $s = $b->{snapshot};
  for my $k (qw(processes proc_us ps_us proc_files_us)) { die "snapshot lacks $k\n" unless $s->{$k} > 0 }
  die "snapshot source: $s->{source}\n" unless $s->{source} =~ /^(bpf-task-iterator|proc-files)$/;
  die "snapshot at $s->{processes}, not about 1,000\n" if abs($s->{processes} - 1000) > 5;
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
    for my $tree (qw(wide/10 wide/100 wide/1000 chain/200)) {
      die "no sample for $reaper on $tree\n" unless $seen{"$reaper/$tree"};
    }
  }
  for my $preset (split " ", $presets) {
    my $r = $seen{"$preset/wide/100"} or die "no sample for the preset $preset on wide/100\n";
    die "$preset is not marked a preset\n" unless $r->{preset};
    die "$preset: no verdict\n" unless $r->{verdict} ne "";
  }
  die "case_overhead_ms missing\n" unless $b->{case_overhead_ms} > 0;
  for my $start (qw(fork_ms spawn_ms perl_ms)) {
    die "process_costs.$start missing\n" unless $b->{process_costs}{$start} > 0;
  }
  # Where the time of the trivial case went, phase by phase, in the order they ran; --quick runs
  # no matrix, so it has no matrix phases.
  my @phases = map { $_->[0] } @{ $b->{case_phases_ms} };
  die "case_phases_ms: @phases\n" unless "@phases" eq "bystanders spawn tree kill audit evidence sandbox";
  die "a phase without its time\n" if grep { !($_->[1] >= 0) } @{ $b->{case_phases_ms} };
  die "--quick must not have matrix phases\n" if @{ $b->{matrix_phases_ms} };
  die "--quick must not time the matrix\n" unless exists $b->{matrix_wall_s} && !defined $b->{matrix_wall_s};
  die "--quick must not time the --presets matrix\n"
    unless exists $b->{presets_matrix_wall_s} && !defined $b->{presets_matrix_wall_s};
  die "--quick must not time ctest -L matrix\n"
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
TMPDIR="$work/tmp" "$bin/reapcheck" bench --quick --out "$work/partial" >/dev/null \
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
