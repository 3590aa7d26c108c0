#!/usr/bin/env bash
# measure-watch.sh REAPCHECK [RUNS]: what `reapcheck watch` adds to each suite of tests/watch: the
# suite's wall time bare (run-bare.sh, its own namespaces) and under watch (the whole command:
# sandbox, ledger, kernel trace, bystanders, the settle after the command's exit), RUNS runs each
# (default 3), the median of each in ms, as docs/bench.md's "watch" table gives them. Each suite
# is built first (rust-crate, cmake-project), untimed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reapcheck=$1 runs=${2:-3}
ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | sed -n "$(( (runs + 1) / 2 ))p"; }
printf '| suite | command | bare (ms) | watch (ms) | added (ms) |\n|---|---|---|---|---|\n'
for suite in rust-crate cmake-project npm-package python-suite; do
  dir=$here/$suite
  case $suite in
    rust-crate) cmd=(cargo test --offline) && (cd "$dir" && cargo test --offline --no-run -q) ;;
    cmake-project) cmd=(ctest --test-dir build) && cmake -S "$dir" -B "$dir/build" >/dev/null && cmake --build "$dir/build" >/dev/null ;;
    npm-package) cmd=(npm test) ;;
    python-suite) cmd=(python3 -m unittest discover -s tests) ;;
  esac
  bare=$("$here/run-bare.sh" --runs "$runs" "$suite" 2>/dev/null | sed -n 's/.*median \([0-9][0-9]*\)$/\1/p')
  watched=$(for _ in $(seq "$runs"); do
    start=$(ms)
    (cd "$dir" && "$reapcheck" watch -- "${cmd[@]}" >/dev/null 2>&1) || true
    echo $(( $(ms) - start ))
  done | median)
  printf '| %s | `%s` | %s | %s | %s |\n' "$suite" "${cmd[*]}" "$bare" "$watched" "$(( watched - bare ))"
done
