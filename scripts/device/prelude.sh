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
