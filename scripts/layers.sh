# The layer running and counting of scripts/test (sourced, after lib.sh; tests/test_script.rs runs
# it with fake layers). A layer is a shell function `layer_NAME` that reports its counts with
# `add`, `check`, `cargo_tests` or `count_line`. `run_layers NAME...` runs each in a subshell of
# its own with errexit on (call it where errexit holds: not in an `if` or after `||`, where bash
# would switch it off in the subshells too), so that whatever one does (a build error, a crash, an unset variable,
# a command that fails outside an `if`) ends that layer only:
#   - a layer that stops with a non-zero status and counted no failure counts one failure;
#   - a layer that counted nothing at all counts one failure (it ran no test);
#   - the next layer runs anyway;
# and the last line printed is always "N passed, N failed" over every layer; the status is
# non-zero when anything failed. Servers a layer starts with `start_server` are killed by PID when
# the layer ends, however it ends.

section() { printf '\n==> %s\n' "$*"; }

# add PASSED FAILED: adds to the running layer's counts.
add() {
  [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] || { echo "add: not two counts: '$1' '$2'" >&2; return 1; }
  echo "$1 $2" >> "$LAYER_COUNTS"
}

# check NAME COMMAND...: one pass or one fail.
check() {
  local name=$1; shift
  section "$name"
  if "$@"; then add 1 0; else add 0 1; echo "FAILED: $name"; fi
}

# test_result_counts LOG: the passed and failed counts summed over the `test result:` lines
# cargo's test harness and wasm-bindgen-test-runner print ("0 0" when there are none).
test_result_counts() {
  awk 'match($0, /test result: [a-zA-Z]+\. [0-9]+ passed; [0-9]+ failed/) {
         split(substr($0, RSTART, RLENGTH), w, " "); p += w[4]; f += w[6]
       }
       END { print p + 0, f + 0 }' "$1"
}

# cargo_tests NAME LOG COMMAND...: runs a cargo test command, adds up its `test result:` lines,
# and counts one failure more if it failed without reporting a failed test (a build error, or the
# wasm runner failing before any result).
cargo_tests() {
  local name=$1 log=$2; shift 2
  section "$name"
  local status=0 p f
  "$@" 2>&1 | tee "$log" || status=$?
  read -r p f < <(test_result_counts "$log")
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    echo "FAILED: $name did not complete (status $status)"
  fi
  add "$p" "$f"
}

# count_line NAME LOG: adds the counts of LOG's last line when it is "N passed, N failed"; else
# one failure (the command stopped before its count).
count_line() {
  local name=$1 log=$2 counts
  counts=$(tail -n 1 "$log" 2> /dev/null | awk '/^[0-9]+ passed, [0-9]+ failed$/ {print $1, $3}') || true
  if [ -z "$counts" ]; then
    echo "FAILED: $name printed no count"
    add 0 1
  else
    # shellcheck disable=SC2086 # two numbers
    add $counts
  fi
}

# start_server LOG COMMAND...: COMMAND in the background, output to LOG, killed (by its PID) when
# the layer ends. Its PID is in $server_pid.
start_server() {
  local log=$1; shift
  "$@" > "$log" 2>&1 &
  server_pid=$!
  LAYER_PIDS+=("$server_pid")
}

# stop_servers: kills what start_server started in this layer.
stop_servers() {
  local p
  for p in "${LAYER_PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
  LAYER_PIDS=()
}

# run_layer NAME: runs layer_NAME in a subshell with errexit and adds its counts to the totals.
run_layer() {
  local name=$1 status=0 p f lp=0 lf=0 errexit=$-
  LAYER_COUNTS="$LAYERS_DIR/$name.counts"
  : > "$LAYER_COUNTS"
  if declare -F "layer_$name" > /dev/null; then
    # Not in an `if` or `||`: there bash would switch errexit off inside the subshell too.
    set +e
    (
      set -euo pipefail
      LAYER_PIDS=()
      trap stop_servers EXIT
      trap 'exit 130' INT TERM
      "layer_$name"
    )
    status=$?
    [[ $errexit == *e* ]] && set -e
  else
    echo "FAILED: there is no layer named $name"
    add 0 1
  fi
  while read -r p f; do lp=$((lp + p)); lf=$((lf + f)); done < "$LAYER_COUNTS"
  if [ "$status" -ne 0 ] && [ "$lf" -eq 0 ]; then
    echo "FAILED: the $name layer stopped (status $status)"
    lf=1
  elif [ "$lp" -eq 0 ] && [ "$lf" -eq 0 ]; then
    echo "FAILED: the $name layer counted no test"
    lf=1
  fi
  LAYER_SUMMARY+=("$(printf '%-8s %6d passed, %d failed' "$name" "$lp" "$lf")")
  passed=$((passed + lp))
  failed=$((failed + lf))
}

# run_layers NAME...: runs the layers in order, prints each layer's counts and then the line
# "N passed, N failed" as the very last line; returns 1 when anything failed.
run_layers() {
  passed=0
  failed=0
  LAYER_SUMMARY=()
  LAYERS_DIR=$(mktemp -d)
  # A Ctrl-C ends the run (after the running layer has stopped its servers), not just the layer.
  trap 'exit 130' INT TERM
  local name
  for name in "$@"; do run_layer "$name"; done
  rm -rf "$LAYERS_DIR"
  echo
  printf '%s\n' "${LAYER_SUMMARY[@]}"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
