#!/usr/bin/env bash
# The reports as CI servers and people see them.
#   report_test.sh BUILD_BIN_DIR SOURCE_DIR junit|html
# junit: junit.xml validates against reports/schema/junit.xsd (xmllint).
# html:  matrix.html renders in headless Chromium; a screenshot is taken and the DOM checked.
# Exits 77 (CTest's skip) with the reason when the tool it needs is absent.
set -uo pipefail
bin=$1/reapcheck
src=$2
what=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin" run -q --scenario setsid-escape --scenario plain-child --reaper pgroup --reaper proc-pidfd \
  --json "$work/r.json" --junit "$work/junit.xml" >/dev/null || { echo "the run failed"; exit 1; }

case "$what" in
  junit)
    command -v xmllint >/dev/null || { echo "skipped: xmllint is absent (Debian: libxml2-utils)"; exit 77; }
    xmllint --noout --schema "$src/reports/schema/junit.xsd" "$work/junit.xml" || exit 1
    grep -q '<testsuite name="pgroup"' "$work/junit.xml" || { echo "no pgroup suite"; exit 1; }
    echo "junit.xml is valid against reports/schema/junit.xsd"
    ;;
  html)
    chromium=$(command -v chromium || command -v chromium-browser) ||
      { echo "skipped: Chromium is absent (Debian: chromium)"; exit 77; }
    "$bin" report "$work/r.json" --html "$work/matrix.html" >/dev/null || exit 1
    flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
      --disable-background-networking --disable-component-update --disable-sync
      --user-data-dir="$work/profile")
    timeout 60 "$chromium" "${flags[@]}" --dump-dom "file://$work/matrix.html" >"$work/dom.html" 2>/dev/null
    timeout 60 "$chromium" "${flags[@]}" --window-size=1000,500 --screenshot="$work/matrix.png" \
      "file://$work/matrix.html" >/dev/null 2>&1
    fail=0
    grep -q 'class="known" data-scenario="setsid-escape" data-reaper="pgroup"' "$work/dom.html" ||
      { echo "the setsid-escape × pgroup cell is not marked as a known weakness"; fail=1; }
    grep -q 'class="pass" data-scenario="plain-child" data-reaper="proc-pidfd"' "$work/dom.html" ||
      { echo "the plain-child × proc-pidfd cell is not marked pass"; fail=1; }
    grep -q 'escaped' "$work/dom.html" || { echo "the survivor is missing from the page"; fail=1; }
    [ -s "$work/matrix.png" ] || { echo "no screenshot"; fail=1; }
    [ "$fail" -eq 0 ] && echo "matrix.html renders in Chromium: cells and evidence present"
    if [ -n "${REAPCHECK_KEEP_SCREENSHOT:-}" ]; then cp "$work/matrix.png" "$REAPCHECK_KEEP_SCREENSHOT"; fi
    exit "$fail"
    ;;
esac
