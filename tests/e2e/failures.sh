# Sourced by the e2e tests that report every failed check rather than stop at the first:
# `fail MESSAGE` prints it and counts it in $failures; such a test ends on its count.
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
