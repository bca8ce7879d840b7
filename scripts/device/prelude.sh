# Sourced first by the GPU-machine scripts beside it: strict mode, the repository root as the
# working directory, the library path (env.sh), the log folder $OUT (default ./out) and the
# bundle folder $B.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. scripts/device/env.sh
OUT="${OUT:-out}"; mkdir -p "$OUT"
B=bundle
# Nsight Compute with the sections the profiling scripts read, GPU clocks left as they are
# (the device tool's rule); extra arguments: kernel filter, launch count, the command.
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
ncu_run() {
  "$NCU" --clock-control none --section SpeedOfLight --section WarpStateStats \
    --section InstructionStats --section LaunchStats --section SchedulerStats \
    --section Occupancy "$@"
}
# Every GPU test of the bundle, or only the test executable $2 (log $OUT/tests.log), then
# compute-sanitizer over the runs of scripts/sanitize.sh that match $1 (a grep -E filter; its
# logs stay in /tmp/san, the summary goes to $OUT/sanitize.log); prints both summaries.
tests_and_sanitize() {
  if [ -n "${2:-}" ]; then
    ROOFLINE_BIN="$PWD/$B/roofline" "$B/tests/$2" --ignored --test-threads=1 \
      > "$OUT/tests.log" 2>&1
  else
    $B/run-gpu-tests.sh > "$OUT/tests.log" 2>&1
  fi
  echo "gpu tests exit=$?"
  grep -E "test result|FAILED|panicked" "$OUT/tests.log" | sort | uniq -c
  OUT=/tmp/san SANITIZE_FILTER="$1" SANITIZE_TIMEOUT_S=120 \
    bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
  tail -7 "$OUT/sanitize.log"
}
