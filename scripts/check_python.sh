#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Python sources (package, tests, benchmarks, examples, apps) pass pycodestyle with the project's
# configuration (setup.cfg). Usage: check_python.sh [source dir]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
pycodestyle --config=setup.cfg python/gpuinterp apps/gpuinterp_dpd_bench apps/*.py bench tests examples
echo "python: pycodestyle clean"
