# Shared checks for the tests of tools/research/bench/*.py (sourced, not run). Each check prints FAIL and
# what it saw, and sets fail=1; the test ends with `exit $fail`.
#   expect_match TEXT REGEX       TEXT has a line matching the extended REGEX
#   expect_no_match TEXT REGEX    TEXT has no such line
#   expect_refusal TEXT CMD...    CMD fails and its output (stdout and stderr) contains TEXT
fail=0
expect_match() {
  if ! grep -qE -- "$2" <<< "$1"; then
    printf 'FAIL: expected a line matching: %s\n  in: %s\n' "$2" "$1"
    fail=1
  fi
}
expect_no_match() {
  if grep -qE -- "$2" <<< "$1"; then
    printf 'FAIL: expected no line matching: %s\n  in: %s\n' "$2" "$1"
    fail=1
  fi
}
expect_refusal() {
  local text=$1 got
  shift
  if got=$("$@" 2>&1); then
    printf 'FAIL: accepted (expected a refusal naming "%s"): %s\n' "$text" "$*"
    fail=1
  elif ! grep -qF -- "$text" <<< "$got"; then
    printf 'FAIL: the refusal does not say "%s": %s\n' "$text" "$got"
    fail=1
  fi
}
