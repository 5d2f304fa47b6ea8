/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* asprintf */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btrfs.h"
#include "kernel-ra.h"
#include "fileio.h"
#include "gather.h"
#include "mountinfo.h"

#define SYS_FS_BTRFS "/sys/fs/btrfs"

/* btrfs's own bdi: ra_pages = max(4 MiB, VM_READAHEAD_PAGES x num_devices). */
#define BTRFS_MIN_RA_KB 4096

bool ra_bdi_is_btrfs(const char *bdi_name) {
        const char *p = bdi_name + strlen("btrfs-");

        if (strncmp(bdi_name, "btrfs-", strlen("btrfs-")) != 0 || !*p || strlen(p) > 10)
                return false;
        for (; *p; p++)
                if (!isdigit((unsigned char) *p))
                        return false;
        return true;
}

unsigned ra_btrfs_data_disks(const char *profile, unsigned n) {
        if (strcmp(profile, "raid0") == 0)
                return n;
        if (strcmp(profile, "raid10") == 0)
                return n / 2; /* every stripe is written twice */
        if (strcmp(profile, "raid5") == 0)
                return n > 1 ? n - 1 : 0;
        if (strcmp(profile, "raid6") == 0)
                return n > 2 ? n - 2 : 0;
        return 0; /* single, dup, raid1, raid1c3, raid1c4: one device serves a read */
}

uint64_t ra_btrfs_kernel_ra_kb(unsigned n_devices) {
        uint64_t kb = (uint64_t) RA_KERNEL_DEFAULT_KB * n_devices;
        return kb > BTRFS_MIN_RA_KB ? kb : BTRFS_MIN_RA_KB;
}

void ra_btrfs_classify(struct ra_facts *f) {
        unsigned n = f->n_devices > 0 ? f->n_devices : f->n_members;
        unsigned data_disks = ra_btrfs_data_disks(f->data_profile, n);

        f->class = RA_CLASS_UNKNOWN;
        f->transport = RA_TRANSPORT_UNKNOWN;
        f->rotational = f->removable = false;
        f->stripe_bytes = f->chunk_bytes = 0;
        f->data_disks = 0;
        f->stripe_source = NULL;

        for (unsigned i = 0; i < f->n_members; i++) {
                const struct ra_member *m = &f->members[i];
                /* enum ra_class is in precedence order: the lowest known wins. */
                if (m->class != RA_CLASS_UNKNOWN && (f->class == RA_CLASS_UNKNOWN || m->class < f->class))
                        f->class = m->class;
                if (i == 0)
                        f->transport = m->transport;
                else if (f->transport != m->transport)
                        f->transport = RA_TRANSPORT_UNKNOWN;
                f->rotational |= m->rotational;
                f->removable |= m->removable;
        }

        if (data_disks >= 2) {
                f->chunk_bytes = RA_BTRFS_STRIPE_LEN_BYTES;
                f->data_disks = data_disks;
                f->stripe_bytes = RA_BTRFS_STRIPE_LEN_BYTES * data_disks;
                f->stripe_source = "btrfs";
                f->class = RA_CLASS_RAID;
        } else if (f->n_members == 1 && f->n_devices <= 1 && f->members[0].stripe_bytes > 0) {
                /* One member, itself striped (btrfs on md RAID5): its stripe. */
                f->chunk_bytes = f->members[0].chunk_bytes;
                f->data_disks = f->members[0].data_disks;
                f->stripe_bytes = f->members[0].stripe_bytes;
                f->stripe_source = "member";
        }
}

bool ra_btrfs_source_names(const char *source, const char *member, const char *dm_name) {
        const char *base = strrchr(source, '/');

        base = base ? base + 1 : source;
        if (member[0] && strcmp(base, member) == 0)
                return true;
        return dm_name && dm_name[0] && strncmp(source, "/dev/mapper/", 12) == 0 &&
               strcmp(source + 12, dm_name) == 0;
}

static bool valid_fsid(const char *name) {
        /* A UUID; skips "features" and dot entries. */
        return strlen(name) == 36 && name[8] == '-';
}

/* The fsid whose bdi link points at bdi_name. */
static int find_fsid(const char *bdi_name, char *fsid, size_t size) {
        DIR *d = opendir(SYS_FS_BTRFS);
        int r = -ENOENT;

        if (!d)
                return -ENOENT;
        for (struct dirent *de; (de = readdir(d));) {
                char path[RA_PATH_MAX], bdi[RA_NAME_MAX];
                if (!valid_fsid(de->d_name))
                        continue;
                snprintf(path, sizeof(path), SYS_FS_BTRFS "/%s/bdi", de->d_name);
                if (ra_read_link_basename(path, bdi, sizeof(bdi)) == 0 && strcmp(bdi, bdi_name) == 0) {
                        snprintf(fsid, size, "%s", de->d_name);
                        r = 0;
                        break;
                }
        }
        closedir(d);
        return r;
}

/* Whether a mountinfo source names a member of fsid (a symlink such as
 * /dev/disk/by-uuid/... by where it leads). */
static bool fsid_has_source(const char *fsid, const char *source) {
        char path[RA_PATH_MAX + 64], dm_name[128], real[PATH_MAX];
        bool found = false;

        if (!realpath(source, real))
                real[0] = 0;
        snprintf(path, sizeof(path), SYS_FS_BTRFS "/%s/devices", fsid);
        DIR *d = opendir(path);
        if (!d)
                return false;
        for (struct dirent *de; !found && (de = readdir(d));) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "/sys/class/block/%s/dm/name", de->d_name);
                if (ra_read_string_file(path, dm_name, sizeof(dm_name)) < 0)
                        dm_name[0] = 0;
                found = ra_btrfs_source_names(source, de->d_name, dm_name) ||
                        (real[0] && ra_btrfs_source_names(real, de->d_name, NULL));
        }
        closedir(d);
        return found;
}

/* Fills m with the member's size and its whole disk's class. */
static void gather_member(struct udev *udev, const char *name, struct ra_member *m) {
        struct ra_facts disk;
        char path[RA_PATH_MAX];
        uint64_t sectors = 0;

        snprintf(m->name, sizeof(m->name), "%s", name);
        snprintf(m->disk, sizeof(m->disk), "%s", name);
        snprintf(path, sizeof(path), "/sys/class/block/%s/size", name);
        if (ra_read_u64_file(path, &sectors) == 0)
                m->size_bytes = sectors * 512;

        struct udev_device *dev = udev ? udev_device_new_from_subsystem_sysname(udev, "block", name) : NULL;
        if (!dev)
                return; /* gone, or no udev: class unknown */
        struct udev_device *whole = dev;
        const char *type = udev_device_get_devtype(dev);
        if (type && strcmp(type, "partition") == 0)
                whole = udev_device_get_parent_with_subsystem_devtype(dev, "block", "disk");
        ra_facts_init(&disk);
        if (whole && ra_gather_block(whole, &disk) == 0) {
                snprintf(m->disk, sizeof(m->disk), "%s", disk.name);
                m->class = disk.class;
                m->transport = disk.transport;
                m->rotational = disk.rotational;
                m->removable = disk.removable;
                m->stripe_bytes = disk.stripe_bytes;
                m->chunk_bytes = disk.chunk_bytes;
                m->data_disks = disk.data_disks;
        }
        ra_facts_done(&disk);
        udev_device_unref(dev); /* the parent belongs to dev */
}

/* Counts the entries of a directory that are not dot files (and not "0",
 * devinfo's replace target). */
static unsigned count_entries(const char *path) {
        DIR *d = opendir(path);
        unsigned n = 0;

        if (!d)
                return 0;
        for (struct dirent *de; (de = readdir(d));)
                if (de->d_name[0] != '.' && strcmp(de->d_name, "0") != 0)
                        n++;
        closedir(d);
        return n;
}

/* The data profile holding the most bytes (two are in use while a balance
 * converts one into the other). */
static void gather_data_profile(const char *fsid, char *buf, size_t size) {
        static const char *const profiles[] = { "single",  "dup",    "raid0", "raid1", "raid1c3",
                                                "raid1c4", "raid10", "raid5", "raid6" };
        uint64_t best = 0;
        bool found = false;

        buf[0] = 0;
        for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
                char path[RA_PATH_MAX];
                uint64_t bytes = 0;
                snprintf(path, sizeof(path), SYS_FS_BTRFS "/%s/allocation/data/%s/total_bytes", fsid,
                         profiles[i]);
                if (ra_read_u64_file(path, &bytes) < 0)
                        continue;
                if (!found || bytes > best) {
                        snprintf(buf, size, "%s", profiles[i]);
                        best = bytes;
                        found = true;
                }
        }
}

struct mount_ctx {
        const char *fsid;
        unsigned major, minor;
        bool found;
};

static int find_btrfs_mount_cb(const struct ra_mount *m, void *userdata) {
        struct mount_ctx *ctx = userdata;

        if (strcmp(ra_str(m->fstype), "btrfs") != 0 || !fsid_has_source(ctx->fsid, ra_str(m->source)))
                return 0;
        /* m lives only during the callback: keep its superblock's number. */
        ctx->major = m->major;
        ctx->minor = m->minor;
        ctx->found = true;
        return 1;
}

/* The first mount of fsid, with every mount of its superblock counted; a copy
 * the caller frees with ra_mount_done(). */
static int find_mount(const char *fsid, struct ra_mount *ret) {
        struct mount_ctx ctx = { .fsid = fsid };
        char *text = NULL;
        size_t len = 0;
        int r = ra_read_mountinfo(&text, &len);

        if (r < 0)
                return r;
        r = ra_mountinfo_foreach(text, len, find_btrfs_mount_cb, &ctx);
        if (r >= 0 && ctx.found)
                r = ra_mountinfo_find(text, len, ctx.major, ctx.minor, ret);
        free(text);
        if (r < 0)
                return r;
        return ctx.found && r > 0 ? 0 : -ENOENT;
}

static int member_cmp(const void *a, const void *b) {
        return strcmp(((const struct ra_member *) a)->name, ((const struct ra_member *) b)->name);
}

int ra_gather_btrfs(struct udev *udev, const char *bdi_name, struct ra_facts *f) {
        char path[RA_PATH_MAX + 64];
        struct ra_mount m;
        int r;

        if (!ra_bdi_is_btrfs(bdi_name))
                return -EINVAL;
        r = ra_gather_bdi_current(bdi_name, f);
        if (r < 0)
                return r;

        /* btrfs links its sysfs directory to the bdi late in mount(2), after
         * it has set its own readahead. */
        r = find_fsid(bdi_name, f->btrfs_fsid, sizeof(f->btrfs_fsid));
        if (r < 0)
                return r;
        r = find_mount(f->btrfs_fsid, &m);
        if (r < 0)
                return r;

        snprintf(path, sizeof(path), SYS_FS_BTRFS "/%s/devices", f->btrfs_fsid);
        DIR *d = opendir(path);
        if (!d) {
                ra_mount_done(&m);
                return -ENOENT; /* unmounted meanwhile */
        }
        f->n_members = 0;
        f->size_bytes = 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (de->d_name[0] == '.')
                        continue;
                f->n_devices++;
                if (f->n_members >= RA_MEMBERS_MAX)
                        continue;
                struct ra_member *mb = &f->members[f->n_members++];
                gather_member(udev, de->d_name, mb);
                f->size_bytes += mb->size_bytes;
        }
        closedir(d);
        qsort(f->members, f->n_members, sizeof(f->members[0]), member_cmp);
        /* devinfo/ also holds missing devices: a stripe still spans them. */
        snprintf(path, sizeof(path), SYS_FS_BTRFS "/%s/devinfo", f->btrfs_fsid);
        unsigned all = count_entries(path);
        if (all > f->n_devices)
                f->n_devices = all;
        gather_data_profile(f->btrfs_fsid, f->data_profile, sizeof(f->data_profile));

        ra_gather_host(f);
        r = ra_facts_from_mount(f, bdi_name, &m); /* classifies, see ra_btrfs_classify() */
        ra_mount_done(&m);
        return r;
}

int ra_btrfs_bdi_of_mount(const struct ra_mount *m, char *bdi, size_t size) {
        DIR *d;
        int r = -ENOENT;

        if (strcmp(ra_str(m->fstype), "btrfs") != 0 || !(d = opendir(SYS_FS_BTRFS)))
                return -ENOENT;
        for (struct dirent *de; (de = readdir(d));) {
                char path[RA_PATH_MAX];
                if (!valid_fsid(de->d_name) || !fsid_has_source(de->d_name, ra_str(m->source)))
                        continue;
                snprintf(path, sizeof(path), SYS_FS_BTRFS "/%s/bdi", de->d_name);
                r = ra_read_link_basename(path, bdi, size);
                break;
        }
        closedir(d);
        return r;
}
