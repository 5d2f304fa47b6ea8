#!/bin/bash
# SPDX-License-Identifier: MIT
# k8s-image: the fixture of the k8s tests. deploy/build-image.sh builds the
# image from this tree, tagged localhost/readahead-agent-test:latest (never the
# release tag a user may have pulled), and its size and contents are checked
# against what deploy/kubernetes/README.md promises.
set -euo pipefail
. "$(dirname "$0")/../real/lib.sh"
RA_MUST_RUN="the k8s tests"
[ "$(id -u)" -eq 0 ] || ra_skip "needs root (mmdebstrap, podman)"
for t in mmdebstrap podman dpkg-buildpackage; do
        command -v "$t" >/dev/null || ra_skip "$t is not installed (scripts/install-deps.sh --test)"
done
image=localhost/readahead-agent-test:latest
previous=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
"$RA_SOURCE_DIR/deploy/build-image.sh" --tag "$image" >/dev/null
# The last run's image, untagged now: 8 MB per run otherwise.
if [ -n "$previous" ] && [ "$previous" != "$(podman image inspect --format '{{.Id}}' "$image")" ]; then
        podman rmi "$previous" >/dev/null 2>&1 || true
fi
size=$(podman image inspect "$image" --format '{{.Size}}')
ra_log "$image: $((size / 1000000)) MB"
# README: "8 MB"; a doubled image is news.
((size < 16000000)) || ra_fail "the image is $size bytes, more than the 16 MB the README allows"
ra_expect_eq "entrypoint" "$(podman image inspect "$image" --format '{{.Config.Entrypoint}}')" \
        "[/usr/libexec/readahead-agent --watch]"
podman image inspect "$image" --format '{{.Config.Env}}' | grep -q 'PATH=/usr/sbin:/usr/bin:/sbin:/bin' ||
        ra_fail "the image has no PATH"
version=$(sed -n 's/^project(readahead-agent VERSION \([0-9.]*\).*/\1/p' "$RA_SOURCE_DIR/CMakeLists.txt")
ra_expect_eq "version label" "$(podman image inspect "$image" --format '{{index .Config.Labels "org.opencontainers.image.version"}}')" "$version"
grep -q "image: readahead-agent:$version$" "$RA_SOURCE_DIR/deploy/kubernetes/readahead-agent.yaml" ||
        ra_fail "deploy/kubernetes/readahead-agent.yaml does not name readahead-agent:$version"
