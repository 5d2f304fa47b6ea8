/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* asprintf */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btrfs.h"
#include "classify.h"
#include "fileio.h"
#include "gather.h"
#include "mountinfo.h"
#include "snapshot.h"
#include "text.h"

/* syspath/attr, allocated: sysfs paths have no length we could rely on. */
static char *attr_path(const char *syspath, const char *attr) {
        size_t sl = strlen(syspath), al = strlen(attr);
        char *path = malloc(sl + al + 2);

        if (path) {
                memcpy(path, syspath, sl);
                path[sl] = '/';
                memcpy(path + sl + 1, attr, al + 1);
        }
        return path;
}

/*
 * An attribute as a number no larger than max. Absent: 0, unknown. Present
 * but not a number, or out of range: 0, and the fact is marked invalid
 * (unless fact is _RA_FACT_MAX, where f may be NULL), so explain can say
 * why it is unknown.
 */
static uint64_t attr_u64_max(struct ra_facts *f, const char *syspath, const char *attr,
                             uint64_t max, enum ra_fact fact) {
        /* On the stack: seven of these per event. A path open() would
         * refuse is refused here the same way. */
        char path[PATH_MAX];
        uint64_t v = 0;
        int r = ra_str_join(path, sizeof(path), syspath, "/", attr, NULL) ? ra_read_u64_file(path, &v)
                                                                           : -ENAMETOOLONG;

        if (r >= 0 && v <= max)
                return v;
        if (r != -ENOENT && fact < _RA_FACT_MAX)
                f->invalid |= 1u << fact;
        return 0;
}

/* Absent or unreadable attributes are simply unknown (0). */
static uint64_t attr_u64(const char *syspath, const char *attr) {
        return attr_u64_max(NULL, syspath, attr, UINT64_MAX, _RA_FACT_MAX);
}

static void attr_string(const char *syspath, const char *attr, char *buf, size_t size) {
        char *path = attr_path(syspath, attr);

        if (!path || ra_read_string_file(path, buf, size) < 0)
                buf[0] = 0;
        free(path);
}

int ra_read_mem_total_kb(uint64_t *ret_kb) {
        char buf[256], num[32];
        int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
        ssize_t n;
        uint64_t kb;

        if (fd < 0)
                return -errno;
        /* MemTotal is the first line; one read is enough. */
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return -EIO;
        buf[n] = 0;

        const char *p = strstr(buf, "MemTotal:");
        if (!p)
                return -EINVAL;
        /* The word after it (as sscanf's " %31s", without sscanf's cost). */
        p += strlen("MemTotal:");
        while (isspace((unsigned char) *p))
                p++;
        size_t n_num = 0;
        while (p[n_num] && !isspace((unsigned char) p[n_num]) && n_num < sizeof(num) - 1)
                n_num++;
        if (n_num == 0)
                return -EINVAL;
        memcpy(num, p, n_num);
        num[n_num] = 0;
        /* A sign, a fraction or a number out of range is no memory size. */
        int r = ra_parse_u64(num, &kb);
        if (r < 0)
                return r;
        if (kb > RA_MEM_TOTAL_KB_MAX)
                return -ERANGE;
        *ret_kb = kb;
        return 0;
}

/* "6.18.0-..." as major and minor: what sscanf("%u.%u") reads, without
 * sscanf's cost on every event. */
static int kernel_release(const char *release, unsigned *ret_major, unsigned *ret_minor) {
        char *end;
        unsigned long major = strtoul(release, &end, 10);
        if (end == release || *end != '.')
                return -EINVAL;
        const char *m = end + 1;
        unsigned long minor = strtoul(m, &end, 10);
        if (end == m)
                return -EINVAL;
        *ret_major = (unsigned) major;
        *ret_minor = (unsigned) minor;
        return 0;
}

void ra_gather_host(struct ra_facts *f) {
        if (ra_snapshot_host(f))
                return;
        long page = sysconf(_SC_PAGESIZE);
        f->page_kb = page >= 1024 ? (unsigned) (page / 1024) : 4;
        int r = ra_read_mem_total_kb(&f->mem_total_kb);
        if (r == -EINVAL || r == -ERANGE) {
                f->mem_total_kb = 0;
                f->invalid |= 1u << RA_FACT_MEM_TOTAL;
        }

        struct utsname u;
        if (uname(&u) == 0 && kernel_release(u.release, &f->kernel_major, &f->kernel_minor) < 0)
                f->kernel_major = f->kernel_minor = 0;
        ra_snapshot_host_keep(f);
}

static bool prop_is(const struct ra_facts *f, const char *key, const char *value) {
        const char *v = ra_facts_get_prop(f, key);
        return v && strcmp(v, value) == 0;
}

/* DM_SUSPENDED and MPATH_DEVICE_READY come from dm's and multipath's own udev
 * rules; sysfs dm/suspended also covers a suspend with no event yet. */
static const char *dm_write_blocked(const char *syspath, const struct ra_facts *f) {
        if (prop_is(f, "DM_SUSPENDED", "1") || attr_u64(syspath, "dm/suspended") == 1)
                return "the dm device is suspended";
        if (prop_is(f, "MPATH_DEVICE_READY", "0"))
                return "the multipath map has no usable path";
        return NULL;
}

static bool has_prefix(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

static enum ra_transport transport_of(const char *name, const struct ra_facts *f) {
        static const struct {
                const char *prefix;
                enum ra_transport transport;
        } by_name[] = {
                { "nvme", RA_TRANSPORT_NVME }, { "mmcblk", RA_TRANSPORT_MMC },
                { "loop", RA_TRANSPORT_LOOP }, { "md", RA_TRANSPORT_MD },
                { "dm-", RA_TRANSPORT_DM },    { "zram", RA_TRANSPORT_ZRAM },
                { "ram", RA_TRANSPORT_BRD },   { "pmem", RA_TRANSPORT_PMEM },
                { "vd", RA_TRANSPORT_VIRTIO }, { "xvd", RA_TRANSPORT_XEN },
                { "sr", RA_TRANSPORT_SCSI },
        };
        for (size_t i = 0; i < sizeof(by_name) / sizeof(by_name[0]); i++)
                if (has_prefix(name, by_name[i].prefix))
                        return by_name[i].transport;

        /* sd*: the bus below SCSI, as 60-persistent-storage.rules found it. */
        const char *bus = ra_facts_get_prop(f, "ID_BUS");
        const char *path = ra_facts_get_prop(f, "ID_PATH");
        if ((bus && strcmp(bus, "usb") == 0) || (path && strstr(path, "-usb-")))
                return RA_TRANSPORT_USB;
        if ((bus && strcmp(bus, "ata") == 0) || (path && strstr(path, "-ata-")))
                return RA_TRANSPORT_ATA;
        if (has_prefix(name, "sd"))
                return RA_TRANSPORT_SCSI;
        return RA_TRANSPORT_UNKNOWN;
}

/* A virtual disk by the driver of its own device or of one above it (the
 * SCSI host of Hyper-V's and VMware's paravirtual controllers). */
static const char *virtual_driver_of(struct udev_device *dev) {
        static const char *const drivers[] = {
                "virtio_blk", "virtio_scsi", "vbd", "hv_storvsc", "vmw_pvscsi",
        };
        /* /devices/virtual/block/NAME (loop, dm, md, zram) has no parent
         * device: /devices/virtual/block is the class's directory. libudev
         * would find that out with three walks from / (26 K instructions,
         * 30 system calls, a quarter of the agent's own cost per event). */
        const char *devpath = udev_device_get_devpath(dev);
        static const char virtual_block[] = "/devices/virtual/block/";
        if (devpath && strncmp(devpath, virtual_block, strlen(virtual_block)) == 0 &&
            !strchr(devpath + strlen(virtual_block), '/'))
                return NULL;
        for (struct udev_device *p = udev_device_get_parent(dev); p; p = udev_device_get_parent(p)) {
                const char *d = udev_device_get_driver(p);
                if (!d) /* the uevent's DRIVER= also names it (and a test tree has no driver link) */
                        d = udev_device_get_property_value(p, "DRIVER");
                for (size_t i = 0; d && i < sizeof(drivers) / sizeof(drivers[0]); i++)
                        if (strcmp(d, drivers[i]) == 0)
                                return drivers[i];
        }
        return NULL;
}

/* Names below syspath/slaves, space-separated, as many as there are. */
static int list_slaves(const char *syspath, char **ret) {
        char *path = attr_path(syspath, "slaves"), *list = NULL;
        size_t used = 0;

        if (!path)
                return -ENOMEM;
        DIR *d = opendir(path);
        free(path);
        if (!d)
                return 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (de->d_name[0] == '.')
                        continue;
                size_t l = strlen(de->d_name);
                char *nl = realloc(list, used + l + 2);
                if (!nl) {
                        free(list);
                        closedir(d);
                        return -ENOMEM;
                }
                list = nl;
                if (used)
                        list[used++] = ' ';
                memcpy(list + used, de->d_name, l + 1);
                used += l;
        }
        closedir(d);
        free(*ret);
        *ret = list;
        return 0;
}

static void dm_target_of(const char *uuid, char *buf, size_t size) {
        static const struct {
                const char *prefix, *name;
        } kinds[] = {
                { "LVM-", "lvm" }, { "CRYPT-", "crypt" }, { "mpath-", "multipath" },
                { "part", "partition" }, { "stratis-", "stratis" },
        };
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
                if (has_prefix(uuid, kinds[i].prefix)) {
                        ra_str_join(buf, size, kinds[i].name, NULL);
                        return;
                }
        ra_str_join(buf, size, "dm", NULL);
}

/* The udev properties gather itself reads (transport_of, dm_write_blocked,
 * ID_CDROM below). */
static const char *const gather_keys[] = {
        "ID_BUS", "ID_PATH", "ID_CDROM", "DM_SUSPENDED", "MPATH_DEVICE_READY",
};

/* Copies the properties named in keys, once each: a lookup per key. */
static int add_props(struct udev_device *dev, ra_prop_fn get, const char *const *keys, size_t n_keys,
                     struct ra_facts *f) {
        for (size_t i = 0; i < n_keys; i++) {
                if (ra_facts_get_prop(f, keys[i]))
                        continue;
                const char *v = get ? get(dev, keys[i]) : udev_device_get_property_value(dev, keys[i]);
                if (!v)
                        continue;
                int r = ra_facts_add_prop(f, keys[i], v);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The device's udev properties: all of them, or gather's own and keys. */
static int gather_props(struct udev_device *dev, bool all_props, ra_prop_fn get, const char *const *keys,
                        size_t n_keys, struct ra_facts *f) {
        struct udev_list_entry *e;
        int r;

        if (!all_props) {
                r = add_props(dev, get, gather_keys, sizeof(gather_keys) / sizeof(gather_keys[0]), f);
                return r < 0 ? r : add_props(dev, get, keys, n_keys, f);
        }
        udev_list_entry_foreach(e, udev_device_get_properties_list_entry(dev)) {
                r = ra_facts_add_prop(f, udev_list_entry_get_name(e), udev_list_entry_get_value(e));
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Size and queue limits, from sysfs. */
static void gather_queue(const char *syspath, struct ra_facts *f) {
        /* Sectors of 512 bytes, whatever the logical block size. */
        f->size_bytes = attr_u64_max(f, syspath, "size", UINT64_MAX / 512, RA_FACT_SIZE) * 512;
        f->removable = attr_u64(syspath, "removable") == 1;
        f->rotational = attr_u64(syspath, "queue/rotational") == 1;
        f->io_min_bytes = attr_u64_max(f, syspath, "queue/minimum_io_size", RA_IO_BYTES_MAX,
                                       RA_FACT_IO_MIN);
        f->io_opt_bytes = attr_u64_max(f, syspath, "queue/optimal_io_size", RA_IO_BYTES_MAX,
                                       RA_FACT_IO_OPT);
        f->physical_block_bytes = attr_u64_max(f, syspath, "queue/physical_block_size",
                                               RA_IO_BYTES_MAX, RA_FACT_PHYSICAL_BLOCK);
        f->max_sectors_kb = attr_u64(syspath, "queue/max_sectors_kb");
}

/* Optical drives, and SD cards whatever sysfs says of removable. */
static void gather_media(const char *syspath, const char *sysname, struct ra_facts *f) {
        const char *cdrom = ra_facts_get_prop(f, "ID_CDROM");
        char type[64];

        attr_string(syspath, "device/type", type, sizeof(type));
        f->optical = (cdrom && strcmp(cdrom, "1") == 0) || has_prefix(sysname, "sr") ||
                     (strcmp(type, "5") == 0 && f->transport != RA_TRANSPORT_MMC);
        if (f->transport == RA_TRANSPORT_MMC && strcmp(type, "SD") == 0)
                f->removable = true; /* SD cards come and go even where sysfs says 0 */
}

/* md and dm: their layout or target, and the devices below them. */
static int gather_stack(const char *syspath, struct ra_facts *f) {
        if (f->transport == RA_TRANSPORT_MD) {
                attr_string(syspath, "md/level", f->md_level, sizeof(f->md_level));
                f->md_raid_disks = (unsigned) attr_u64_max(f, syspath, "md/raid_disks",
                                                           RA_RAID_DISKS_MAX, RA_FACT_RAID_DISKS);
                f->md_layout = (unsigned) attr_u64_max(f, syspath, "md/layout", UINT32_MAX,
                                                       RA_FACT_MD_LAYOUT);
                f->chunk_bytes = attr_u64_max(f, syspath, "md/chunk_size", RA_IO_BYTES_MAX,
                                              RA_FACT_CHUNK);
        } else if (f->transport == RA_TRANSPORT_DM) {
                char uuid[160];
                attr_string(syspath, "dm/uuid", uuid, sizeof(uuid));
                dm_target_of(uuid, f->dm_target, sizeof(f->dm_target));
                f->write_blocked = dm_write_blocked(syspath, f);
        } else
                return 0;
        return list_slaves(syspath, &f->slaves);
}

static int gather_block(struct udev_device *dev, bool all_props, ra_prop_fn get, const char *const *keys,
                        size_t n_keys, struct ra_facts *f) {
        const char *syspath = udev_device_get_syspath(dev);
        const char *sysname = udev_device_get_sysname(dev);
        int r;

        if (!syspath || !sysname)
                return -ENODEV;

        /* The device may be gone by the time we run; say so, not "0 bytes". */
        char *queue = attr_path(syspath, "queue");
        if (!queue)
                return -ENOMEM;
        r = access(queue, F_OK) < 0 ? -ENODEV : 0;
        free(queue);
        if (r < 0)
                return r;

        f->kind = RA_KIND_BLOCK;
        ra_str_join(f->name, sizeof(f->name), sysname, NULL);
        dev_t devnum = udev_device_get_devnum(dev);
        f->major = major(devnum);
        f->minor = minor(devnum);

        r = gather_props(dev, all_props, get, keys, n_keys, f);
        if (r < 0)
                return r;
        f->transport = transport_of(sysname, f);
        f->virtual_by = virtual_driver_of(dev);
        gather_queue(syspath, f);

        /* The disk's bdi holds the same setting as queue/read_ahead_kb, but
         * writing it freezes no queue: on 6.14 to 6.18.2 a queue write waits
         * for a suspended dm device or a multipath map with no path. */
        char major_text[RA_U64_TEXT], minor_text[RA_U64_TEXT];
        size_t attr_size = sizeof("/sys/class/bdi/:/read_ahead_kb") + 2 * RA_U64_TEXT;
        f->attr_path = malloc(attr_size);
        if (!f->attr_path)
                return -ENOMEM;
        ra_str_join(f->attr_path, attr_size, "/sys/class/bdi/", ra_u64_text(major_text, f->major), ":",
                    ra_u64_text(minor_text, f->minor), "/read_ahead_kb", NULL);
        ra_gather_current_kb(f);

        gather_media(syspath, sysname, f);
        r = gather_stack(syspath, f);
        if (r < 0)
                return r;

        ra_gather_host(f);
        ra_facts_classify(f);
        return 0;
}

int ra_gather_block(struct udev_device *dev, struct ra_facts *f) {
        return gather_block(dev, true, NULL, NULL, 0, f);
}

int ra_gather_block_keys(struct udev_device *dev, ra_prop_fn get, const char *const *keys, size_t n_keys,
                         struct ra_facts *f) {
        return gather_block(dev, false, get, keys, n_keys, f);
}

bool ra_gather_current_kb(struct ra_facts *f) {
        f->current_known = f->attr_path && ra_read_u64_file(f->attr_path, &f->current_kb) >= 0;
        return f->current_known;
}

int ra_gather_bdi_current(const char *bdi_name, struct ra_facts *f) {
        if (asprintf(&f->attr_path, "/sys/class/bdi/%s/read_ahead_kb", bdi_name) < 0) {
                f->attr_path = NULL;
                return -ENOMEM;
        }
        ra_gather_current_kb(f);
        if (!f->current_known && access(f->attr_path, F_OK) < 0)
                return -ENODEV;
        return 0;
}

int ra_gather_bdi(const char *bdi_name, struct ra_facts *f) {
        struct ra_mount m;
        unsigned major, minor;
        char *text = NULL;
        size_t len = 0;
        int r;

        r = ra_parse_bdi_name(bdi_name, &major, &minor);
        if (r < 0)
                return r;
        r = ra_gather_bdi_current(bdi_name, f);
        if (r < 0)
                return r;

        r = ra_read_mountinfo(&text, &len);
        if (r < 0)
                return r;
        r = ra_mountinfo_find(text, len, major, minor, &m);
        free(text);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT; /* not mounted (yet) */

        ra_gather_host(f);
        r = ra_facts_from_mount(f, bdi_name, &m);
        ra_mount_done(&m);
        return r;
}

int ra_gather_named_bdi(struct udev *udev, const char *bdi_name, struct ra_facts *f) {
        if (ra_bdi_is_btrfs(bdi_name))
                return ra_gather_btrfs(udev, bdi_name, f);
        return ra_gather_bdi(bdi_name, f);
}

bool ra_bdi_is_ours(const char *bdi_name) {
        unsigned major, minor;
        return ra_bdi_is_btrfs(bdi_name) || ra_parse_bdi_name(bdi_name, &major, &minor) == 0;
}
