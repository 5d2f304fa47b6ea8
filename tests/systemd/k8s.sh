#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/systemd/k8s.sh [--timeout SEC]: the k8s lab (guest/k8s.sh) in the
# Debian 13 guest: the image tests/k8s's k8s-image fixture built in this
# machine's podman goes to the guest as an archive (run.sh --share), where
# its podman plays deploy/kubernetes's DaemonSet and NFS mounts made after
# the pod started get the profile's values. No package is built (--no-deb).
#
# Environment: RA_K8S_IMAGE (default localhost/readahead-agent-test:latest),
# and run.sh's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/lab.sh
. "$here/../lib/lab.sh"
ra_lab_name systemd-k8s-trixie "the systemd lab"

image=${RA_K8S_IMAGE:-localhost/readahead-agent-test:latest}
ra_lab_require "podman's store of the k8s-image fixture, QEMU" podman
podman image exists "$image" || die "no image $image: the k8s-image test builds it (ctest -L '^k8s$')"

share=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-systemd-k8s.XXXXXX")
trap 'rm -rf "$share"' EXIT
podman save -q --format oci-archive -o "$share/readahead-agent.tar" "$image" ||
        die "podman save $image failed"
log "$image: $(du -m "$share/readahead-agent.tar" | cut -f1) MB archive"
rc=0
"$here/run.sh" "$@" --lab k8s --share "$share" --no-deb trixie || rc=$?
exit "$rc"
