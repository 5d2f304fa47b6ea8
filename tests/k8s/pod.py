#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pod.py MANIFEST [--image REF] [--name NAME] [--check-sec N] [--textfile DIR]
                   [--mountinfo HOSTPATH] [--config CONFIGMAP/KEY=FILE]...
                   [--advise-sec N] [--tune-state DIR]

Prints what `podman kube play` of Debian 12's podman 4.3 takes for
deploy/kubernetes's DaemonSet: its ConfigMaps, then a Pod whose spec is the
DaemonSet's pod template, unchanged but for what the test must point
elsewhere: the image (the one just built), --check-sec (short, to wait for
one period), the textfile hostPath (the test's directory), ConfigMap data
(the test's rules), the host file bound as the mount table (where the test
runs in a mount namespace that is not PID 1's), --advise-sec (as an operator
who opts in adds it) and the tune-state hostPath (the test's directory)."""
import argparse
import sys

import yaml


def main():
    p = argparse.ArgumentParser()
    p.add_argument("manifest")
    p.add_argument("--image")
    p.add_argument("--check-sec", type=int)
    p.add_argument("--textfile")
    p.add_argument("--mountinfo")
    p.add_argument("--config", action="append", default=[], metavar="CONFIGMAP/KEY=FILE")
    p.add_argument("--name", default="readahead-agent")
    p.add_argument("--advise-sec", type=int)
    p.add_argument("--tune-state")
    a = p.parse_args()

    with open(a.manifest) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
    out = []
    configmaps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    for kv in a.config:
        ref, path = kv.split("=", 1)
        name, key = ref.split("/", 1)
        if key not in configmaps.get(name, {}).get("data", {}):
            sys.exit(f"pod.py: no ConfigMap {name} with a key {key}")
        with open(path) as f:
            configmaps[name]["data"][key] = f.read()
    out.extend(configmaps.values())
    template = ds["spec"]["template"]
    spec = template["spec"]
    container = spec["containers"][0]
    if a.image:
        container["image"] = a.image
    if a.check_sec is not None:
        args = [x for x in container.get("args", []) if not x.startswith("--check-sec")]
        if len(args) == len(container.get("args", [])):
            sys.exit("pod.py: the container has no --check-sec argument")
        container["args"] = [f"--check-sec={a.check_sec}"] + args
    if a.mountinfo:
        vols = [v for v in spec["volumes"] if v["name"] == "host-mountinfo"]
        if not vols:
            sys.exit("pod.py: the pod has no host-mountinfo volume")
        vols[0]["hostPath"]["path"] = a.mountinfo
    if a.advise_sec is not None:
        container["args"] = container.get("args", []) + [f"--advise-sec={a.advise_sec}"]
    for option, volume in ((a.textfile, "textfile"), (a.tune_state, "tune-state")):
        if option:
            vols = [v for v in spec["volumes"] if v["name"] == volume]
            if not vols:
                sys.exit(f"pod.py: the pod has no {volume} volume")
            vols[0]["hostPath"]["path"] = option
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": a.name, "labels": template["metadata"].get("labels", {})},
        "spec": spec,
    }
    out.append(pod)
    yaml.safe_dump_all(out, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
