# SPDX-License-Identifier: MIT
"""Generated udev events for the event-identity case (check.py): each a
mutation of a true event of a device of the tree, and the one bdi it may
write, computed from the tree alone (never from the product): an event whose
DEVPATH, name and MAJOR:MINOR are one device's as sysfs has them may write
that device's bdi; any other writes nothing."""

import random

SEED = 24  # fixed: a failure names its event number, which reruns the same


def devices(tree):
    """[(kind, name, devpath, major, minor)] of the tree: disks, and the bdis
    the product handles (0:N; cifs-1 is no bdi of ours)."""
    out = []
    for name, dev in tree.items():
        props = dict(dev["props"])
        out.append(("block", name, dev["devpath"], props["MAJOR"].decode(), props["MINOR"].decode()))
    for bdi in ("0:53", "0:54"):
        out.append(("bdi", bdi, f"/devices/virtual/bdi/{bdi}", "", ""))
    return out


def true_event(dev):
    kind, name, devpath, major, minor = dev
    if kind == "bdi":
        return {"ACTION": "add", "SUBSYSTEM": "bdi", "DEVPATH": devpath}
    return {"ACTION": "change", "SUBSYSTEM": "block", "DEVTYPE": "disk", "DEVPATH": devpath,
            "MAJOR": major, "MINOR": minor, "DEVNAME": f"/dev/{name}"}


def devpath_variants(devpath, other):
    last = devpath.rsplit("/", 1)[1]
    parent = devpath.rsplit("/", 1)[0]
    return [
        devpath + "/..",
        devpath + "/.",
        devpath + "/",
        devpath.replace("/", "//", 2),
        "/sys" + devpath,
        devpath[1:],
        devpath + "/../" + other[2].rsplit("/", 1)[1],
        parent,
        parent + "/./" + last,
        parent + "/../" + parent.rsplit("/", 1)[1] + "/" + last,
        "/devices/virtual/bdi/..",
        "/devices/virtual/bdi/0:53/../0:54",
        "",
        other[2],
        parent + "/" + last.upper(),
        devpath + "\n",
        devpath + "/" + "x" * 300,
        "/devices/" + "a/" * 600 + last,
    ]


NUMBERS = ["65", "0", "16", "9", "126", "127", "259", "-1", "65x", "", " 65", "4294967361", "0x41", "1e3"]


def mutate(rng, dev, others):
    """A true event of dev with one to three of its fields changed."""
    env = true_event(dev)
    other = rng.choice(others)
    for _ in range(rng.randint(1, 3)):
        what = rng.choice(["devpath", "devpath", "number", "number", "name", "subsystem", "drop"])
        if what == "devpath":
            env["DEVPATH"] = rng.choice(devpath_variants(dev[2], other))
        elif what == "number":
            pick = rng.random()
            if pick < 0.4 and other[0] == "block":
                env["MAJOR"], env["MINOR"] = other[3], other[4]
            elif pick < 0.6 and other[0] == "block":
                env["MINOR"] = other[4]
            else:
                env[rng.choice(["MAJOR", "MINOR"])] = rng.choice(NUMBERS)
        elif what == "name":
            env["DEVNAME"] = rng.choice([f"/dev/{other[1]}", "/dev/../dev/" + dev[1], dev[1], "/dev/",
                                         f"/dev/{dev[1]}/"])
        elif what == "subsystem":
            env["SUBSYSTEM"] = "bdi" if env["SUBSYSTEM"] == "block" else "block"
            env["DEVTYPE"] = "disk"
        else:
            env.pop(rng.choice(["MAJOR", "MINOR", "DEVNAME", "DEVPATH"]), None)
    return env


def writable_bdi(env, devs):
    """The bdi an event may write: the one device it truly is, else None."""
    for kind, name, devpath, major, minor in devs:
        if env.get("DEVPATH") != devpath:
            continue
        if kind == "bdi":
            ok = (env.get("SUBSYSTEM") == "bdi" and env.get("ACTION") == "add"
                  and not {"MAJOR", "MINOR", "DEVNAME"} & set(env))
            return name if ok else None
        ok = (env.get("SUBSYSTEM") == "block" and env.get("DEVTYPE") == "disk"
              and env.get("ACTION") in ("add", "change")
              and (env.get("MAJOR"), env.get("MINOR")) == (major, minor)
              and env.get("DEVNAME", f"/dev/{name}") == f"/dev/{name}")
        return f"{major}:{minor}" if ok else None
    return None


def generate(tree, count):
    """count events: [(env, writable bdi or None)]; about one in six true."""
    rng = random.Random(SEED)
    devs = devices(tree)
    events = []
    for _ in range(count):
        dev = rng.choice(devs)
        env = true_event(dev) if rng.random() < 0.15 else mutate(rng, dev, [d for d in devs if d != dev])
        events.append((env, writable_bdi(env, devs)))
    return events
