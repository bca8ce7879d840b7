# Sourced first by scripts/device/report.sh: strict mode, the repository root as the working
# directory, the library path (env.sh), the log folder $OUT (default ./out) and the bundle
# folder $B.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. scripts/device/env.sh
OUT="${OUT:-out}"; mkdir -p "$OUT"
B=bundle
