#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""spec.py SOURCE_DIR: deploy/kubernetes's manifests read as a reviewer of a
DaemonSet on every node reads them (label unit; no cluster, no podman):

- no container is privileged or may gain privileges; each drops every
  capability, has a read-only root and no service account token;
- no pod shares the host's PID namespace; only the agent shares its network
  namespace (udev's netlink events), not the reset pod, which listens to none;
- of the host's /proc, only /proc/1/mountinfo is mounted, read-only, and it
  is the agent's --mountinfo;
- the agent has an exec liveness probe, readahead-agent --check-alive;
- the agent reads the host's cgroup tree, read-only, where the runtime puts
  the pod's own (advise attributes events per cgroup);
- the udev event buffer the agent asks for (src/agent/watch.c) fits its
  memory limit at least 8 times.
Prints what it checked; exits 1 on the first failure, naming it."""
import re
import sys

import yaml

UNITS = {"Ki": 1024, "Mi": 1024**2, "Gi": 1024**3}


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def check(cond, msg):
    if not cond:
        fail(msg)
    print(f"ok: {msg}")


def quantity_bytes(q):
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi)?", str(q))
    if not m:
        fail(f"memory quantity {q!r} is not understood")
    return int(m.group(1)) * UNITS.get(m.group(2), 1)


def main():
    src = sys.argv[1]
    pods = {}
    for name in ("readahead-agent", "readahead-agent-reset"):
        with open(f"{src}/deploy/kubernetes/{name}.yaml") as f:
            ds = [d for d in yaml.safe_load_all(f) if d and d["kind"] == "DaemonSet"][0]
        pods[name] = ds["spec"]["template"]["spec"]

    for name, spec in pods.items():
        check(not spec.get("hostPID"), f"{name}: no hostPID")
        check(not spec.get("hostIPC"), f"{name}: no hostIPC")
        check(spec.get("automountServiceAccountToken") is False, f"{name}: no service account token")
        for c in spec["containers"]:
            sc = c.get("securityContext", {})
            check(not sc.get("privileged"), f"{name}/{c['name']}: not privileged")
            check(sc.get("allowPrivilegeEscalation") is False, f"{name}/{c['name']}: allowPrivilegeEscalation false")
            check(sc.get("capabilities", {}).get("drop") == ["ALL"] and not sc["capabilities"].get("add"),
                  f"{name}/{c['name']}: drops every capability, adds none")
            check(sc.get("readOnlyRootFilesystem") is True, f"{name}/{c['name']}: read-only root")
        vols = {v["name"]: v for v in spec["volumes"]}
        host = {n: v["hostPath"]["path"] for n, v in vols.items() if "hostPath" in v}
        check(not [p for p in host.values() if p.startswith("/dev")], f"{name}: no host /dev")
        proc = {n: p for n, p in host.items() if p == "/proc" or p.startswith("/proc/")}
        check(list(proc.values()) == ["/proc/1/mountinfo"], f"{name}: of the host's /proc, only /proc/1/mountinfo")
        (pname,) = proc
        check(vols[pname]["hostPath"].get("type") == "File", f"{name}: /proc/1/mountinfo as a File hostPath")
        c = spec["containers"][0]
        mounts = [m for m in c["volumeMounts"] if m["name"] == pname]
        check(len(mounts) == 1 and mounts[0].get("readOnly") is True, f"{name}: /proc/1/mountinfo read-only")
        argv = c.get("command", []) + c.get("args", [])
        check(f"--mountinfo={mounts[0]['mountPath']}" in argv, f"{name}: --mountinfo is the bound file")

    check(pods["readahead-agent"].get("hostNetwork") is True, "readahead-agent: hostNetwork (udev's netlink events)")
    check(not pods["readahead-agent-reset"].get("hostNetwork"), "readahead-agent-reset: no hostNetwork")

    agent = pods["readahead-agent"]["containers"][0]
    probe = agent.get("livenessProbe", {}).get("exec", {}).get("command", [])
    check(probe == ["/usr/libexec/readahead-agent", "--check-alive"], "readahead-agent: liveness probe --check-alive")

    vols = {v["name"]: v for v in pods["readahead-agent"]["volumes"]}
    cgroup = [m for m in agent["volumeMounts"] if m["mountPath"] == "/sys/fs/cgroup"]
    check(len(cgroup) == 1 and cgroup[0].get("readOnly") is True
          and vols[cgroup[0]["name"]].get("hostPath", {}).get("path") == "/sys/fs/cgroup",
          "readahead-agent: the host's /sys/fs/cgroup at /sys/fs/cgroup, read-only")

    with open(f"{src}/src/agent/watch.c") as f:
        m = re.search(r"#define MONITOR_BUFFER_BYTES \((\d+) \* 1024 \* 1024\)", f.read())
    if not m:
        fail("no MONITOR_BUFFER_BYTES (N * 1024 * 1024) in src/agent/watch.c")
    buffer = int(m.group(1)) * 1024 * 1024
    limit = quantity_bytes(agent["resources"]["limits"]["memory"])
    check(buffer * 8 <= limit, f"udev's event buffer {buffer >> 20} MiB fits the {limit >> 20} MiB limit 8 times")


if __name__ == "__main__":
    main()
