#!/usr/bin/env bash
# GEMV v18 (32-column slabs without the cluster where v17 runs clusters): v17 vs v18, the
# sanitizer over v18's runs and the GEMV GPU tests (X8; see gemv-variant-check.sh).
exec bash "$(dirname "$0")/gemv-variant-check.sh" 17 18
