/* SPDX-License-Identifier: MIT */
/*
 * An event's identity, checked against sysfs before anything is written.
 *
 * The agent writes /sys/class/bdi/MAJ:MIN (a disk) or /sys/class/bdi/NAME (a
 * bdi), and reads its facts below /sys$DEVPATH: the two must be the same
 * device. udev never sends an event where they are not, but the agent runs as
 * root with whatever environment it is given, so a DEVPATH with ".." in it,
 * a name that is not DEVPATH's last component, or a MAJOR:MINOR of another
 * disk is refused (logged, nothing written), never trusted.
 *
 * handle_event() is the one way in for every mode: the udev RUN helper (the
 * event in its environment), --watch's monitor (the event in a netlink
 * message anyone with the socket's address may forge) and --watch's passes
 * over sysfs all pass this check before a handler runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

#include "agent.h"
#include "fileio.h"
#include "gather.h"
#include "journal.h"
#include "text.h"
#include "watch.h"

/* Longer than any real sysfs path (the kernel's own limit is PATH_MAX). */
#define DEVPATH_MAX 1024

/* "/devices/..." with no empty, "." or ".." component and no trailing '/'. */
static const char *devpath_problem(const char *devpath) {
        if (!devpath)
                return "no DEVPATH";
        if (strlen(devpath) > DEVPATH_MAX)
                return "DEVPATH too long";
        if (strncmp(devpath, "/devices/", strlen("/devices/")) != 0)
                return "DEVPATH not below /devices";
        for (const char *p = devpath + 1; *p;) {
                const char *slash = strchr(p, '/');
                size_t n = slash ? (size_t) (slash - p) : strlen(p);
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return "DEVPATH has an empty, '.' or '..' component";
                for (size_t i = 0; i < n; i++)
                        if ((unsigned char) p[i] <= ' ' || p[i] == 0x7f)
                                return "DEVPATH has a control character or a space";
                p += n;
                if (*p == '/' && !*++p)
                        return "DEVPATH ends in '/'";
        }
        return NULL;
}

/* The kernel name as DEVPATH gives it: its last component, '!' read as '/'
 * (cciss!c0d0 is /dev/cciss/c0d0), as libudev's sysname. */
static bool name_matches_devpath(const char *name, const char *devpath) {
        const char *last = strrchr(devpath, '/') + 1;

        if (!name || strlen(name) != strlen(last) || !*name)
                return false;
        for (size_t i = 0; last[i]; i++)
                if (name[i] != (last[i] == '!' ? '/' : last[i]))
                        return false;
        return true;
}

/* Whether the sysfs link at link_path points at /sys$devpath (the kernel's
 * links in /sys/class/bdi are relative, "../../devices/..."): 1, 0, or
 * -ENOENT when there is no such link. */
static int link_names_devpath(const char *link_path, const char *devpath) {
        char target[DEVPATH_MAX + 16];
        ssize_t n = readlink(link_path, target, sizeof(target) - 1);

        if (n < 0)
                return errno == ENOENT ? -ENOENT : 0;
        target[n] = '\0';
        return strncmp(target, "../..", 5) == 0 && strcmp(target + 5, devpath) == 0;
}

/* Whether the device at /sys$devpath is of the subsystem: its "subsystem"
 * link ends in /class/NAME (or /bus/NAME). */
static bool subsystem_is(const char *devpath, const char *subsystem) {
        char path[DEVPATH_MAX + 64], name[64];

        ra_str_join(path, sizeof(path), "/sys", devpath, "/subsystem", NULL);
        return ra_read_link_basename(path, name, sizeof(name)) == 0 && strcmp(name, subsystem) == 0;
}

static const char *block_problem(struct udev_device *dev, const struct event_fields *e) {
        const char *devpath = e->devpath;
        char path[DEVPATH_MAX + 64], dev_attr[32], want[32], given[64];
        dev_t devnum = udev_device_get_devnum(dev);
        const char *devname = e->devname;

        if (!name_matches_devpath(udev_device_get_sysname(dev), devpath))
                return "its name is not DEVPATH's last component";
        if (devnum == 0)
                return "no MAJOR:MINOR";
        ra_str_join(path, sizeof(path), "/sys", devpath, NULL);
        if (access(path, F_OK) < 0 && errno == ENOENT)
                return NULL; /* gone already: the handler says so, and writes nothing */
        /* The write goes to the bdi of MAJOR:MINOR: that must be the block
         * device DEVPATH names, whose facts are read. */
        char major_text[RA_U64_TEXT], minor_text[RA_U64_TEXT];
        ra_str_join(want, sizeof(want), ra_u64_text(major_text, major(devnum)), ":",
                    ra_u64_text(minor_text, minor(devnum)), NULL);
        ra_str_join(path, sizeof(path), "/sys", devpath, "/dev", NULL);
        if (ra_read_string_file(path, dev_attr, sizeof(dev_attr)) < 0)
                return "sysfs has no device number at DEVPATH";
        /* Both as the kernel prints them, and as libudev read them. */
        ra_str_join(given, sizeof(given), e->major ?: "", ":", e->minor ?: "", NULL);
        if (strcmp(dev_attr, given) != 0 || strcmp(dev_attr, want) != 0)
                return "MAJOR:MINOR is not the device number sysfs gives DEVPATH";
        if (!subsystem_is(devpath, "block"))
                return "sysfs's device at DEVPATH is no block device";
        if (devname &&
            (strncmp(devname, "/dev/", 5) != 0 || strcmp(devname + 5, udev_device_get_sysname(dev)) != 0))
                return "DEVNAME is not /dev/ and the device's name";
        return NULL;
}

static const char *bdi_problem(struct udev_device *dev, const struct event_fields *e) {
        static const char prefix[] = "/devices/virtual/bdi/";
        const char *devpath = e->devpath;
        const char *name = udev_device_get_sysname(dev);
        char path[DEVPATH_MAX + 64];

        if (strncmp(devpath, prefix, strlen(prefix)) != 0 || strchr(devpath + strlen(prefix), '/'))
                return "DEVPATH is not /devices/virtual/bdi/NAME";
        if (!name_matches_devpath(name, devpath))
                return "its name is not DEVPATH's last component";
        if (udev_device_get_devnum(dev) != 0 || e->major || e->minor || e->devname)
                return "a bdi has no MAJOR:MINOR and no DEVNAME";
        ra_str_join(path, sizeof(path), "/sys/class/bdi/", name, NULL);
        int r = link_names_devpath(path, devpath);
        /* Gone already (NFS makes and drops superblocks while it mounts):
         * the handler finds no bdi and says nothing, as for any bdi gone. */
        if (r == -ENOENT)
                return NULL;
        if (r == 0)
                return "sysfs's bdi of that name is not DEVPATH";
        return NULL;
}

/* For the log: the environment's bytes, cut, with controls as '?'. */
static void printable(char *dst, size_t size, const char *s) {
        size_t i = 0;

        for (; s && s[i] && i + 1 < size; i++)
                dst[i] = (unsigned char) s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
        dst[i] = '\0';
}

void event_fields_from_environment(struct event_fields *ret) {
        *ret = (struct event_fields) {
                .devpath = getenv("DEVPATH"),
                .major = getenv("MAJOR"),
                .minor = getenv("MINOR"),
                .devname = getenv("DEVNAME"),
        };
}

void event_fields_from_device(struct udev_device *dev, struct event_fields *ret) {
        *ret = (struct event_fields) {
                .devpath = udev_device_get_property_value(dev, "DEVPATH"),
                .major = udev_device_get_property_value(dev, "MAJOR"),
                .minor = udev_device_get_property_value(dev, "MINOR"),
                .devname = udev_device_get_property_value(dev, "DEVNAME"),
        };
}

/* Whether the event's DEVPATH, name and MAJOR:MINOR (block) agree with each
 * other as sysfs says: 0, or -EINVAL after logging the refusal. */
static int event_check(struct udev_device *dev, const struct event_fields *e, bool block) {
        const char *problem = devpath_problem(e->devpath);

        /* libudev read the same variable: a DEVPATH it changed is not the one checked. */
        if (!problem && strcmp(e->devpath, udev_device_get_devpath(dev) ?: "") != 0)
                problem = "libudev reads DEVPATH otherwise";
        if (!problem)
                problem = block ? block_problem(dev, e) : bdi_problem(dev, e);
        if (!problem)
                return 0;

        char shown_path[160], shown_major[24], shown_minor[24];
        printable(shown_path, sizeof(shown_path), e->devpath);
        printable(shown_major, sizeof(shown_major), e->major);
        printable(shown_minor, sizeof(shown_minor), e->minor);
        char shown_name[RA_NAME_MAX], device_field[RA_NAME_MAX + 24];
        printable(shown_name, sizeof(shown_name), udev_device_get_sysname(dev));
        ra_str_join(device_field, sizeof(device_field), "READAHEAD_DEVICE=", shown_name, NULL);
        const char *fields[] = { device_field, "READAHEAD_RESULT=refused" };
        agent_log(LOG_ERR, fields, 2,
                  "event refused: %s (DEVPATH=%s MAJOR=%s MINOR=%s); read_ahead_kb left alone", problem,
                  shown_path, shown_major, shown_minor);
        printf("READAHEAD_RESULT=refused\n");
        return -EINVAL;
}

int handle_event(const struct agent_options *o, struct udev *udev, struct udev_device *dev,
                 const struct event_fields *e, const char *action) {
        enum watch_event kind =
                watch_classify(udev_device_get_subsystem(dev), udev_device_get_devtype(dev), action);

        if (kind == WATCH_IGNORE)
                return 0;
        if (event_check(dev, e, kind == WATCH_BLOCK) < 0)
                return -EINVAL;
        if (kind == WATCH_BLOCK)
                return handle_block(o, dev);
        /* A disk's own bdi is the disk's queue: its block event decides it. */
        const char *name = udev_device_get_sysname(dev);
        return ra_bdi_is_ours(name) ? handle_bdi(o, udev, name) : 0;
}
