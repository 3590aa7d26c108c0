#!/usr/bin/env bash
# The reports as CI servers, their JUnit readers and people see them.
#   report_test.sh BUILD_BIN_DIR SOURCE_DIR junit|consumer|parsers|html|bounds
# junit:    junit.xml validates against reports/schema/junit.xsd and Jenkins xunit's junit-10.xsd,
#           and but for <testsuites>'s attributes against the Ant JUnit schema (xmllint).
# consumer: a real JUnit reader (Debian's python3-junitparser, which EnricoMi's
#           publish-unit-test-result-action reads with) shows the escaped survivor, its pid and
#           argv, in the failure message, the reaper's error as an error, and the run's counts.
# parsers:  the XML parsers of dorny/test-reporter (xml2js) and mikepenz/action-junit-report
#           (xml-js), from tests/tools, read the counts, time, titles and messages those
#           reporters show (junit_parsers.mjs).
# html:     matrix.html in headless Chromium: cells, text marks, info block, anchors, filters, and
#           opening a cell leaves the table's layout as it was.
# bounds:   a do-nothing reaper over every scenario prints under 8 KB (the long form, --explain,
#           under 1.5 KB a case), no <system-out> passes 16 KB, and the JSON still lists every
#           survivor.
# Exits 77 (CTest's skip) with the reason when the tool it needs is absent.
set -uo pipefail
bin=$1/reapcheck
src=$2
what=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The leaking gate of docs/gate.md: a group kill under a label, expected to pass everywhere, beside
# a reaper that passes and one that fails to run (reaper-error, a JUnit error).
gate_run() {
  "$bin" run -q --scenario setsid-escape --scenario plain-child --scenario sibling-agent \
    --reaper 'group-kill=exec:/bin/kill -KILL -- -{pgid}; true' --reaper proc-pidfd \
    --reaper 'exec:false' --expect-pass --json "$work/r.json" --junit "$work/junit.xml" >/dev/null
  [ $? -eq 1 ] || { echo "the gate run did not fail as it should"; exit 1; }
}

case "$what" in
  junit)
    command -v xmllint >/dev/null || { echo "skipped: xmllint is absent (Debian: libxml2-utils)"; exit 77; }
    gate_run
    "$bin" run -q --scenario setsid-escape --scenario pid-reuse --reaper pgroup --reaper ps-walk \
      --junit "$work/known.xml" >/dev/null || { echo "the known-weakness run failed"; exit 1; }
    for xml in junit.xml known.xml; do
      for xsd in junit.xsd jenkins-junit-10.xsd; do
        xmllint --noout --schema "$src/reports/schema/$xsd" "$work/$xml" || exit 1
      done
      # The Ant schema allows no attribute on <testsuites> (the totals and time there are for
      # Jenkins and the GitHub reporters): all but those is valid against it.
      grep -q '^<testsuites name="reapcheck" tests="[0-9]*" failures="[0-9]*" errors="[0-9]*" time="[0-9.]*">$' \
        "$work/$xml" || { echo "$xml: no totals on <testsuites>"; exit 1; }
      sed 's/^<testsuites [^>]*>$/<testsuites>/' "$work/$xml" >"$work/ant.xml"
      xmllint --noout --schema "$src/reports/schema/ant-junit.xsd" "$work/ant.xml" || exit 1
    done
    grep -q '<testsuite name="proc-pidfd"' "$work/junit.xml" || { echo "no proc-pidfd suite"; exit 1; }
    grep -q '<testsuite name="group-kill"' "$work/junit.xml" || { echo "no group-kill suite"; exit 1; }
    # Two reapers the report would name alike are refused before the run.
    "$bin" run -q --scenario plain-child --reaper 'pgroup=exec:true' --reaper pgroup \
      --junit "$work/same.xml" 2>"$work/same.err" >/dev/null
    [ $? -eq 2 ] && grep -q "would both be named 'pgroup'" "$work/same.err" && [ ! -e "$work/same.xml" ] ||
      { echo "a label that is a catalogue id was not refused: $(cat "$work/same.err")"; exit 1; }
    echo "junit.xml is valid against reports/schema/{junit,jenkins-junit-10}.xsd, and ant-junit.xsd but for <testsuites>'s attributes"
    ;;
  consumer)
    # Debian's python3, where python3-junitparser is installed (not a virtualenv's).
    py=/usr/bin/python3
    "$py" -c 'import junitparser' 2>/dev/null ||
      { echo "skipped: python3-junitparser is absent (Debian: python3-junitparser)"; exit 77; }
    gate_run
    "$py" "$here/junit_consumer.py" "$work/junit.xml" "$work/r.json" || exit 1
    ;;
  parsers)
    tools=$src/tests/tools/node_modules
    [ -d "$tools/xml2js" ] && [ -d "$tools/xml-js" ] ||
      { echo "skipped: xml2js or xml-js is absent: run scripts/setup.sh --tests"; exit 77; }
    gate_run
    node "$here/junit_parsers.mjs" "$work/junit.xml" "$work/r.json" "$src/tests/tools" \
      "$src/docs/gate.md" || exit 1
    ;;
  html)
    chromium=$(command -v chromium || command -v chromium-browser) ||
      { echo "skipped: Chromium is absent (Debian: chromium)"; exit 77; }
    "$bin" run -q --scenario setsid-escape --scenario plain-child --scenario npm-dev-server \
      --reaper pgroup --reaper proc-pidfd --json "$work/r.json" >/dev/null ||
      { echo "the run failed"; exit 1; }
    "$bin" report "$work/r.json" --html "$work/matrix.html" >/dev/null || exit 1
    cp "$here/html_layout_probe.html" "$work/probe.html"
    flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
      --disable-background-networking --disable-component-update --disable-sync
      --allow-file-access-from-files --user-data-dir="$work/profile")
    dom() { timeout 60 "$chromium" "${flags[@]}" --dump-dom "$1" 2>/dev/null; }
    dom "file://$work/matrix.html" >"$work/dom.html"
    dom "file://$work/matrix.html#verdict=leak&tag=npm" >"$work/filtered.html"
    dom "file://$work/probe.html" >"$work/probe.out"
    timeout 60 "$chromium" "${flags[@]}" --window-size=1000,700 --screenshot="$work/matrix.png" \
      "file://$work/matrix.html#cell-setsid-escape--pgroup" >/dev/null 2>&1
    fail=0
    expect() { grep -q "$2" "$3" || { echo "$1"; fail=1; }; }
    expect "the setsid-escape × pgroup cell is not a known weakness, in text too" \
      'id="cell-setsid-escape--pgroup" class="known".*leak (known)' "$work/dom.html"
    expect "the plain-child × proc-pidfd cell is not marked pass" \
      'id="cell-plain-child--proc-pidfd" class="pass"' "$work/dom.html"
    expect "the survivor is missing from the page" 'escaped' "$work/dom.html"
    expect "no link to the cell" 'href="#cell-setsid-escape--pgroup"' "$work/dom.html"
    expect "no block with the version and kernel" '<dt>reapcheck</dt><dd>[0-9]' "$work/dom.html"
    expect "no kernel in the block" '<dt>kernel</dt><dd>Linux' "$work/dom.html"
    expect "no filter by tag" '<select id="f-tag">' "$work/dom.html"
    # #verdict=leak&tag=npm: only the npm-dev-server row stays.
    expect "the filters hid the plain-child row" '<tr data-tags="[^"]*" hidden="">.*plain-child' \
      "$work/filtered.html"
    grep -q '<tr data-tags="node npm ports escape"><td class="s">npm-dev-server' "$work/filtered.html" ||
      { echo "the filters hid the npm-dev-server row"; fail=1; }
    expect "opening a cell moved the table: $(cat "$work/probe.out" | grep -o 'probe:[^<]*')" \
      'probe: layout unchanged' "$work/probe.out"
    [ -s "$work/matrix.png" ] || { echo "no screenshot"; fail=1; }
    [ "$fail" -eq 0 ] && echo "matrix.html in Chromium: cells, marks, block, anchors, filters, stable layout"
    if [ -n "${REAPCHECK_KEEP_SCREENSHOT:-}" ]; then cp "$work/matrix.png" "$REAPCHECK_KEEP_SCREENSHOT"; fi
    exit "$fail"
    ;;
  bounds)
    "$bin" run --reaper 'exec:true' --settle 200 --junit "$work/j.xml" --json "$work/r.json" \
      >"$work/out" 2>/dev/null
    [ $? -eq 1 ] || { echo "a do-nothing reaper should fail the run"; exit 1; }
    # A page, whatever failed: the matrix, the first deviations whole, the others a line each.
    size=$(wc -c <"$work/out")
    [ "$size" -lt 8192 ] || { echo "the terminal got $size bytes (8 KB at most)"; exit 1; }
    grep -q "more, one line each (--explain shows each in full)" "$work/out" ||
      { echo "no deviation was given one line"; exit 1; }
    # The long form is bounded per case, whatever a case found: 1,000 survivors print as much as one.
    "$bin" report "$work/r.json" --explain >"$work/explain" || exit 1
    long=$(wc -c <"$work/explain")
    cases=$(perl -MJSON::PP -e 'local $/; print scalar @{ decode_json(<STDIN>)->{cases} }' <"$work/r.json")
    [ "$long" -lt $((cases * 1536)) ] || { echo "--explain got $long bytes for $cases cases"; exit 1; }
    perl -MJSON::PP -e '
      my ($json, $xml, $size, $long) = @ARGV;
      my $r = decode_json(do { local $/; open my $f, "<", $json or die; <$f> });
      my ($wide) = grep { $_->{scenario} eq "wide-tree" } @{ $r->{cases} };
      die "the JSON lists " . @{ $wide->{survivors} } . " wide-tree survivors\n"
        unless @{ $wide->{survivors} } >= 1000;
      my $x = do { local $/; open my $f, "<", $xml or die; <$f> };
      my $max = 0;
      while ($x =~ m{<system-out>(.*?)</system-out>|<failure[^>]*>(.*?)</failure>}sg) {
        my $n = length($1 // $2); $max = $n if $n > $max;
      }
      die "a JUnit text of $max bytes\n" if $max > 16384;
      print "terminal $size bytes (--explain: $long), largest JUnit text $max bytes, wide-tree: ",
        scalar @{ $wide->{survivors} }, " survivors in the JSON\n";
    ' "$work/r.json" "$work/j.xml" "$size" "$long" || exit 1
    ;;
esac
