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

cat > "$OUT/run-gpu-tests.sh" <<'EOS'
#!/usr/bin/env bash
# Runs every test executable's GPU tests (--ignored), serially (one GPU). Extra arguments
# go to each test binary (e.g. a name filter). Exit code: non-zero if any failed.
cd "$(dirname "$0")"
export ROOFLINE_BIN="$PWD/roofline"
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
