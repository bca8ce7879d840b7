#!/usr/bin/env bash
# Builds the release binary and every test executable into bundle/ (git-ignored), a folder
# that runs on a GPU machine without Rust: copy it there, then
#   bundle/roofline info
#   bundle/run-gpu-tests.sh            # every GPU test (the #[ignore]d ones), one at a time
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bundle
rm -rf "$OUT" && mkdir -p "$OUT/tests"

cargo build --release --bin roofline
cp target/release/roofline "$OUT/"
strip "$OUT/roofline"

# Test executables: ask cargo where it put them.
cargo test --release --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, sys, shutil, os
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        name = m["target"]["name"]
        # Only the integration tests that mean something on a GPU machine: the GPU tests and
        # the CLI tests (unit and property tests run wherever cargo does).
        if m["target"]["kind"][0] != "test" or not name.startswith(("gpu_", "cli_")):
            continue
        dst = os.path.join(sys.argv[1], "tests", name)
        shutil.copy(m["executable"], dst)
        os.system("strip " + dst)
        print("bundled", dst)
' "$OUT"

# The example plugins (examples/plugins/, tests/cli_user_plugin.rs), built here because the
# GPU machine may have no nvcc; the tests find them through ROOFLINE_PLUGIN_DIR. The toolkit
# is found in the places build.rs looks: $NVCC, nvcc on PATH, $CUDA_HOME, /usr/local/cuda,
# scripts/setup.sh's wheels.
NVCC="${NVCC:-$(command -v nvcc || true)}"
for root in "${CUDA_HOME:-}" /usr/local/cuda "${XDG_CACHE_HOME:-$HOME/.cache}/roofline-lab/cuda-13.0/nvidia/cu13"; do
  if [ -z "$NVCC" ] && [ -x "$root/bin/nvcc" ]; then NVCC="$root/bin/nvcc"; fi
done
[ -n "$NVCC" ] || { echo "bundle: no nvcc to build the example plugins (run scripts/setup.sh)" >&2; exit 1; }
TK=$(dirname "$(dirname "$NVCC")")
mkdir -p "$OUT/plugins"
for f in examples/plugins/*.cu examples/plugins/broken/*.cu; do
  lib="$OUT/plugins/lib$(echo "${f#examples/plugins/}" | sed 's|/|_|; s|\.cu$||').so"
  "$NVCC" -O3 -arch=sm_90a -shared -Xcompiler -fPIC -L"$TK/lib" -L"$TK/lib64" -o "$lib" "$f"
  echo "bundled $lib"
done

cat > "$OUT/run-gpu-tests.sh" <<'EOS'
#!/usr/bin/env bash
# Runs every test executable's GPU tests (--ignored), serially (one GPU). Extra arguments
# go to each test binary (e.g. a name filter). Exit code: non-zero if any failed.
cd "$(dirname "$0")"
export ROOFLINE_BIN="$PWD/roofline"
export ROOFLINE_PLUGIN_DIR="$PWD/plugins"
status=0
for t in tests/*; do
  echo "== $t"
  "$t" --ignored --test-threads=1 "$@" || status=1
done
exit $status
EOS
chmod +x "$OUT/run-gpu-tests.sh"
du -sh "$OUT"
echo "bundle ready: copy $OUT/ to the GPU machine, then run $OUT/roofline info and $OUT/run-gpu-tests.sh"
