/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* strverscmp */
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-tune.h"
#include "btrfs.h"
#include "devices.h"
#include "output.h"
#include "gather.h"
#include "mountinfo.h"
#include "snapshot.h"

const char *device_find_strerror(int r) {
        switch (r) {
        case -ENOTBLK:
                return "not a whole disk (partitions share their disk's readahead)";
        case -ENOENT:
                return "no mount at that path";
        case -ENODEV:
                return "no such block device or network mount";
        case -EMEDIUMTYPE:
                return "a local filesystem, not a network mount: readahead belongs to the disk below it, if any";
        case -EFBIG:
                return "cannot read /proc/self/mountinfo: larger than the limit (256 MiB)";
        default:
                return strerror(-r);
        }
}

/* Plans for d->facts, gathered by the caller. */
static int device_plan(const struct ra_config *c, struct ctl_device *d, bool with_trace) {
        if (with_trace && c->profile.n_rules > 0) {
                d->trace = calloc(c->profile.n_rules, sizeof(*d->trace));
                if (!d->trace)
                        return -ENOMEM;
        }
        ra_plan_device(&c->profile, &d->facts, d->trace, d->trace ? c->profile.n_rules : 0, &d->plan);
        /* Tune=yes: the value the agent keeps (status and check compare
         * with it; apply goes back to plan.profile_kb) */
        (void) ra_tune_plan(&d->plan, &c->profile, &d->facts, c->root, NULL, 0, NULL);
        return 0;
}

static int device_fill_block(struct udev_device *ud, const struct ra_config *c, struct ctl_device *d,
                             bool with_trace) {
        ra_facts_init(&d->facts);
        int r = ra_gather_block(ud, &d->facts);
        return r < 0 ? r : device_plan(c, d, with_trace);
}

static int device_fill_bdi(struct udev *udev, const char *bdi, const struct ra_config *c, struct ctl_device *d,
                           bool with_trace) {
        ra_facts_init(&d->facts);
        int r = ra_gather_named_bdi(udev, bdi, &d->facts);
        return r < 0 ? r : device_plan(c, d, with_trace);
}

/* A mount whose bdi cannot be named (cifs-N): facts from mountinfo alone. */
static int device_fill_mount_entry(const struct ra_mount *m, const struct ra_config *c,
                                   struct ctl_device *d, bool with_trace) {
        char name[RA_NAME_MAX];

        ra_facts_init(&d->facts);
        snprintf(name, sizeof(name), "%u:%u", m->major, m->minor);
        ra_gather_host(&d->facts);
        int r = ra_facts_from_mount(&d->facts, name, m);
        return r < 0 ? r : device_plan(c, d, with_trace);
}

static bool is_whole_disk(struct udev_device *ud) {
        const char *t = udev_device_get_devtype(ud);
        return t && strcmp(t, "disk") == 0;
}

struct ctl_device_list {
        struct ctl_device *items;
        size_t n;
};

static struct ctl_device *list_add(struct ctl_device_list *l) {
        struct ctl_device *items = realloc(l->items, (l->n + 1) * sizeof(*items));
        if (!items)
                return NULL;
        l->items = items;
        memset(&items[l->n], 0, sizeof(items[l->n]));
        return &items[l->n];
}

static bool list_has_mount(const struct ctl_device_list *l, unsigned major, unsigned minor) {
        for (size_t i = 0; i < l->n; i++)
                if (l->items[i].facts.kind == RA_KIND_MOUNT && l->items[i].facts.major == major &&
                    l->items[i].facts.minor == minor)
                        return true;
        return false;
}

/* Adds every device of one subsystem that gathers; skips those that vanish. */
static int add_subsystem(struct udev *udev, const struct ra_config *c, struct ctl_device_list *l,
                         const char *subsystem) {
        struct udev_enumerate *e = udev_enumerate_new(udev);
        struct udev_list_entry *item;
        int r;

        if (!e)
                return -ENOMEM;
        udev_enumerate_add_match_subsystem(e, subsystem);
        r = udev_enumerate_scan_devices(e);
        udev_list_entry_foreach(item, r < 0 ? NULL : udev_enumerate_get_list_entry(e)) {
                struct udev_device *ud = udev_device_new_from_syspath(udev, udev_list_entry_get_name(item));
                if (!ud)
                        continue; /* gone since the scan */

                const char *sysname = udev_device_get_sysname(ud);
                bool is_block = strcmp(subsystem, "block") == 0;
                bool wanted = is_block ? is_whole_disk(ud) : ra_bdi_is_ours(sysname);
                if (wanted) {
                        struct ctl_device *d = list_add(l);
                        if (!d)
                                r = -ENOMEM;
                        else {
                                r = is_block ? device_fill_block(ud, c, d, false)
                                             : device_fill_bdi(udev, sysname, c, d, false);
                                if (r >= 0)
                                        l->n++;
                                else
                                        device_done(d); /* vanished, or a bdi with no mount */
                                if (r != -ENOMEM)
                                        r = 0;
                        }
                }
                udev_device_unref(ud);
                if (r < 0)
                        break;
        }
        udev_enumerate_unref(e);
        return r < 0 ? r : 0;
}

struct unmapped_ctx {
        const struct ra_config *c;
        struct ctl_device_list *l;
};

/*
 * cifs, ceph and 9p name their bdi "<fstype>-N", which says nothing of the
 * mount: list those mounts anyway, with their class and no current value.
 * So do the local filesystems that register a bdi of their own (the callers
 * of super_setup_bdi() but btrfs, which links its bdi in /sys/fs/btrfs):
 * erofs when mounted from a file (anonymous device number), and those this
 * kernel lacks.
 */
static bool unmapped_listed(const struct ra_facts *f) {
        static const char *const own_bdi[] = { "ubifs", "vboxsf", "ecryptfs", "coda", NULL };

        if (f->class == RA_CLASS_NETFS || f->class == RA_CLASS_NFS || f->class == RA_CLASS_FUSE)
                return true;
        if (strcmp(ra_str(f->fstype), "erofs") == 0)
                return f->major == 0;
        for (const char *const *t = own_bdi; *t; t++)
                if (strcmp(ra_str(f->fstype), *t) == 0)
                        return true;
        return false;
}

static int add_unmapped_cb(const struct ra_mount *m, void *userdata) {
        struct unmapped_ctx *ctx = userdata;

        if (list_has_mount(ctx->l, m->major, m->minor))
                return 0;

        struct ctl_device *d = list_add(ctx->l);
        if (!d)
                return -ENOMEM;
        int r = device_fill_mount_entry(m, ctx->c, d, false);
        if (r < 0 || !unmapped_listed(&d->facts)) {
                device_done(d); /* a local filesystem: not ours to list */
                return r;
        }
        ctx->l->n++;
        return 0;
}

/* Whether a sorts before b, the way people number disks: sdb before sdaa. */
static bool name_before(const char *a, const char *b) {
        return strverscmp(a, b) < 0;
}

/* The whole disk of a block device by kernel name: itself, or a partition's
 * disk. False when udev does not know it. */
static bool whole_disk_of(struct udev *udev, const char *name, char *buf, size_t size) {
        struct udev_device *ud = udev_device_new_from_subsystem_sysname(udev, "block", name);
        struct udev_device *disk = ud;
        bool found = false;

        if (!ud)
                return false;
        if (!is_whole_disk(ud))
                disk = udev_device_get_parent_with_subsystem_devtype(ud, "block", "disk");
        if (disk && udev_device_get_sysname(disk)) {
                snprintf(buf, size, "%s", udev_device_get_sysname(disk));
                found = true;
        }
        udev_device_unref(ud); /* a parent belongs to its child */
        return found;
}

/*
 * The parent in status's tree, as lsblk draws it: the lower device holds
 * the upper one. md and dm: the first of their slaves (gathered already),
 * or its disk for a partition; btrfs: the first member's disk. A device on
 * several gets one parent, so that each row appears once.
 */
static void find_parent(struct udev *udev, struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;
        char name[RA_NAME_MAX], best[RA_NAME_MAX] = "";

        d->parent[0] = 0;
        if (f->kind == RA_KIND_MOUNT) {
                for (unsigned i = 0; i < f->n_members; i++)
                        if (f->members[i].disk[0] && (!best[0] || name_before(f->members[i].disk, best)))
                                snprintf(best, sizeof(best), "%s", f->members[i].disk);
                snprintf(d->parent, sizeof(d->parent), "%s", best);
                return;
        }
        /* slaves: space-separated kernel names, which have no blanks. */
        for (const char *s = ra_str(f->slaves); *s;) {
                size_t len = strcspn(s, " ");
                if (len > 0 && len < sizeof(name)) {
                        memcpy(name, s, len);
                        name[len] = 0;
                        if (!best[0] || name_before(name, best))
                                memcpy(best, name, len + 1);
                }
                s += len;
                s += strspn(s, " ");
        }
        if (best[0] && !whole_disk_of(udev, best, d->parent, sizeof(d->parent)))
                d->parent[0] = 0;
}

int devices_enumerate(struct udev *udev, const struct ra_config *c, struct ctl_device **ret, size_t *ret_n) {
        struct ctl_device_list l = {};
        char *text = NULL;
        size_t len = 0;
        int r;

        ra_snapshot_begin();
        r = add_subsystem(udev, c, &l, "block");
        if (r >= 0)
                r = add_subsystem(udev, c, &l, "bdi");
        if (r >= 0) {
                int k = ra_read_mountinfo(&text, &len);
                if (k >= 0) {
                        struct unmapped_ctx ctx = { .c = c, .l = &l };
                        r = ra_mountinfo_foreach(text, len, add_unmapped_cb, &ctx);
                        free(text);
                } else /* never an empty list that looks like "no mounts" */
                        ctl_error(NULL, "cannot read %s: %s: network mounts are not listed", ra_mountinfo_path(),
                                  ra_mountinfo_strerror(k));
        }
        if (r < 0) {
                devices_free(l.items, l.n);
                return r;
        }
        for (size_t i = 0; i < l.n; i++)
                find_parent(udev, &l.items[i]);
        *ret = l.items;
        *ret_n = l.n;
        return 0;
}

struct find_mount_ctx {
        const char *path;
        char bdi[RA_NAME_MAX]; /* of the mount on top at path */
        bool found;
        bool on_disk; /* a filesystem on a block device (not btrfs, which has its own bdi) */
};

static int find_mount_point_cb(const struct ra_mount *m, void *userdata) {
        struct find_mount_ctx *ctx = userdata;
        if (strcmp(ra_str(m->mount_point), ctx->path) != 0)
                return 0;
        /* The last one wins: it is on top. m lives only during this call.
         * btrfs: its own bdi, not the superblock's device number. */
        ctx->on_disk = false;
        if (ra_btrfs_bdi_of_mount(m, ctx->bdi, sizeof(ctx->bdi)) < 0) {
                snprintf(ctx->bdi, sizeof(ctx->bdi), "%u:%u", m->major, m->minor);
                ctx->on_disk = m->major != 0;
        }
        ctx->found = true;
        return 0;
}

/* The bdi of the mount on top at path: -ENOENT when nothing is mounted
 * there, -EMEDIUMTYPE when it is a filesystem on a disk. */
static int bdi_of_mount_point(const char *path, char *bdi, size_t size) {
        struct find_mount_ctx ctx = { .path = path };
        char *text = NULL;
        size_t len = 0;
        int r;

        r = ra_read_mountinfo(&text, &len);
        if (r < 0)
                return r;
        r = ra_mountinfo_foreach(text, len, find_mount_point_cb, &ctx);
        free(text);
        if (r < 0)
                return r;
        if (!ctx.found)
                return -ENOENT;
        if (ctx.on_disk)
                return -EMEDIUMTYPE;
        snprintf(bdi, size, "%s", ctx.bdi);
        return 0;
}

/* A mount with no bdi of its number's name (cifs, ceph, 9p): from
 * mountinfo, or btrfs's own bdi. */
static int find_unnamed_mount(struct udev *udev, const struct ra_config *c, unsigned major, unsigned minor,
                              struct ctl_device *ret) {
        char bdi[RA_NAME_MAX];
        struct ra_mount m;
        char *text = NULL;
        size_t len = 0;
        int r;

        r = ra_read_mountinfo(&text, &len);
        if (r >= 0) {
                r = ra_mountinfo_find(text, len, major, minor, &m);
                if (r == 0)
                        r = -ENODEV;
        }
        free(text);
        if (r <= 0)
                return r;
        /* btrfs: its own bdi, not the superblock's device number */
        if (ra_btrfs_bdi_of_mount(&m, bdi, sizeof(bdi)) == 0)
                r = device_fill_bdi(udev, bdi, c, ret, true);
        else {
                r = device_fill_mount_entry(&m, c, ret, true);
                /* tmpfs, sysfs, overlay: no bdi, no network */
                if (r >= 0 && !unmapped_listed(&ret->facts))
                        r = -EMEDIUMTYPE;
        }
        ra_mount_done(&m);
        return r;
}

/* A mount by its bdi's name, "MAJOR:MINOR" with an optional "-fuseblk". */
static int find_numbered_bdi(struct udev *udev, const struct ra_config *c, const char *name, unsigned major,
                             unsigned minor, struct ctl_device *ret) {
        char canonical[RA_NAME_MAX];
        size_t l = strlen(name);
        int r;

        /* The kernel names a bdi without leading zeros: "00:056" is 0:56. */
        snprintf(canonical, sizeof(canonical), "%u:%u%s", major, minor,
                 l > 8 && strcmp(name + l - 8, "-fuseblk") == 0 ? "-fuseblk" : "");
        r = device_fill_bdi(udev, canonical, c, ret, true);
        if (r == -ENODEV) {
                device_done(ret);
                r = find_unnamed_mount(udev, c, major, minor, ret);
        }
        if (r < 0)
                device_done(ret);
        return r;
}

/* A block device, ud taken over: its whole disk only (partitions share
 * their disk's readahead). */
static int find_disk(const struct ra_config *c, struct udev_device *ud, struct ctl_device *ret) {
        int r;

        if (!is_whole_disk(ud)) {
                udev_device_unref(ud);
                return -ENOTBLK;
        }
        r = device_fill_block(ud, c, ret, true);
        udev_device_unref(ud);
        if (r < 0)
                device_done(ret);
        return r;
}

int device_find(struct udev *udev, const struct ra_config *c, const char *name, struct ctl_device *ret) {
        char bdi[RA_NAME_MAX];
        unsigned major, minor;
        struct udev_device *ud;
        struct stat st;
        int r;

        memset(ret, 0, sizeof(*ret));
        ra_snapshot_begin();

        /* Any path to a block device node (/dev/sda, /dev/mapper/NAME,
         * /dev/disk/by-id/...): the device of that number, as udevadm does. */
        if (strchr(name, '/') && stat(name, &st) == 0 && S_ISBLK(st.st_mode)) {
                ud = udev_device_new_from_devnum(udev, 'b', st.st_rdev);
                return ud ? find_disk(c, ud, ret) : -ENODEV;
        }

        /* A mount point: the bdi of the superblock mounted there. */
        if (name[0] == '/' && strncmp(name, "/dev/", 5) != 0) {
                r = bdi_of_mount_point(name, bdi, sizeof(bdi));
                if (r < 0)
                        return r;
                name = bdi;
        }
        if (ra_bdi_is_btrfs(name)) {
                r = device_fill_bdi(udev, name, c, ret, true);
                if (r < 0)
                        device_done(ret);
                return r == -ENOENT ? -ENODEV : r; /* not mounted: no such mount */
        }
        if (ra_parse_bdi_name(name, &major, &minor) == 0)
                return find_numbered_bdi(udev, c, name, major, minor, ret);

        if (strncmp(name, "/dev/", 5) == 0)
                name += 5;
        if (!*name || strchr(name, '/') || strcmp(name, "..") == 0)
                return -ENODEV;
        ud = udev_device_new_from_subsystem_sysname(udev, "block", name);
        return ud ? find_disk(c, ud, ret) : -ENODEV;
}

void device_done(struct ctl_device *d) {
        ra_facts_done(&d->facts);
        free(d->trace);
        d->trace = NULL;
}

void devices_free(struct ctl_device *list, size_t n) {
        for (size_t i = 0; i < n; i++)
                device_done(&list[i]);
        free(list);
}

bool device_drifts(const struct ctl_device *d) {
        return ra_plan_has_target(&d->plan) && d->facts.current_known &&
               d->facts.current_kb != d->plan.decision.target_kb;
}
