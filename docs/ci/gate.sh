#!/usr/bin/env bash
# Gate a reaper on reapcheck: every scenario must pass. Copy into your project's CI and set
# REAPER to how your reaper kills an agent (exec:...) or runs one (supervise:...).
#   REAPER='exec:/usr/local/bin/my-reaper kill --pid {pid}' ./gate.sh
# Placeholders: {pid} {pgid} {sid} {worktree} {grace_s}. Needs Debian 12 (or alike) and root.
set -euo pipefail
: "${REAPER:?set REAPER to exec:CMD or supervise:CMD}"
REAPCHECK_REF=${REAPCHECK_REF:-main}
work=${REAPCHECK_DIR:-$PWD/.reapcheck}

if [ ! -d "$work" ]; then
  git clone --depth 1 --branch "$REAPCHECK_REF" "${REAPCHECK_REPO:?set REAPCHECK_REPO}" "$work"
fi
"$work/scripts/setup.sh"                       # installs what is missing, builds the default preset
cmake -S "$work" -B "$work/build" -DREAPCHECK_GATE="$REAPER" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
# The whole gate: each scenario is a CTest test labelled `gate`, expecting pass.
ctest --test-dir "$work/build" -L gate -j2 --output-junit "$PWD/reapcheck-junit.xml" \
  --output-on-failure
