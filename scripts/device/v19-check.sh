#!/usr/bin/env bash
# GEMV v19 (v18 with an L2 prefetch hint on W's loads and a one-pass end): v18 vs v19, the
# sanitizer over v19's runs and the GEMV GPU tests (see gemv-variant-check.sh).
exec bash "$(dirname "$0")/gemv-variant-check.sh" 18 19
