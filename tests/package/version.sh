#!/bin/bash
# SPDX-License-Identifier: MIT
# version-agrees: the version a user can read anywhere is one version:
# CMake's project(VERSION), both programs' --version, debian/changelog's
# newest entry (which the .deb is named after) and NEWS.md's newest heading.
set -euo pipefail
src=${RA_SOURCE_DIR:?} agent=${RA_AGENT:?} ctl=${RA_CTL:?}

want=$(sed -n 's/^project(readahead-agent VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
[ -n "$want" ] || { echo "FAIL: no project(... VERSION) in CMakeLists.txt"; exit 1; }
fails=0
check() { # LABEL GOT
        if [ "$2" = "$want" ]; then
                echo "ok:   $1 = $2"
        else
                echo "FAIL: $1: expected $want, got '$2'"
                fails=$((fails + 1))
        fi
}
check "readahead-agent --version" "$("$agent" --version | sed -n 's/^readahead-agent //p')"
check "readahead-ctl --version" "$("$ctl" --version | sed -n 's/^readahead-ctl //p')"
check "debian/changelog's newest entry" "$(sed -n '1s/^readahead-agent (\([^)]*\)).*/\1/p' "$src/debian/changelog")"
check "NEWS.md's newest heading" "$(sed -n 's/^## \([0-9.]*\) .*/\1/p' "$src/NEWS.md" | head -n1)"
[ "$fails" = 0 ]
