# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Debian releases for the labs that build a root or a guest of another
# release than the host's (tests/vm, tests/debian-root, tests/systemd).
#
#   ra_debian_sources [SUITE]   the host's Debian apt sources as one-line
#                               "deb URI SUITE COMPONENT" entries; with SUITE
#                               (a codename: bookworm, trixie), the same
#                               archives for that release (trixie,
#                               trixie-updates, trixie-security). Other
#                               repositories (vendor tools) are left out: a CI
#                               machine reaches only Debian's.
#   ra_debian_sources_of SUITE  ra_debian_sources SUITE into the array
#                               `sources`; dies (tests/lib/lab.sh) when apt
#                               knows none
#   ra_debian_base_suite        the host's own codename (its first suite that
#                               is not -updates, -security or -backports)

ra_debian_host_sources() {
        apt-get indextargets --format '$(ORIGIN) $(SITE) $(URI)' 'Created-By: Packages' 2>/dev/null |
                awk '$1 == "Debian" && $3 ~ /\/dists\/[^/]+\/[^/]+\/binary-amd64\/Packages$/ {
                        n = split($3, p, "/")
                        for (i = 1; i <= n; i++) if (p[i] == "dists") break
                        print "deb " $2 " " p[i + 1] " " p[i + 2]
                }' | sort -u
}

ra_debian_base_suite() {
        ra_debian_host_sources | awk '{print $3}' | grep -vE -- '-(updates|security|backports)$' | head -n 1
}

ra_debian_sources() {
        local want=${1:-} base
        base=$(ra_debian_base_suite)
        [ -n "$base" ] || return 1
        if [ -z "$want" ] || [ "$want" = "$base" ]; then
                ra_debian_host_sources | grep -v -- '-backports '
                return
        fi
        # The same archives, suites renamed: bookworm-security -> trixie-security.
        ra_debian_host_sources | grep -v -- '-backports ' |
                awk -v from="$base" -v to="$want" '{ sub("^" from, to, $3); print }'
}

ra_debian_sources_of() {
        mapfile -t sources < <(ra_debian_sources "$1")
        [ "${#sources[@]}" -gt 0 ] || die "no Debian source in apt's lists (run apt-get update)"
}
