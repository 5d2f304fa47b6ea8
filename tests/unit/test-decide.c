/* SPDX-License-Identifier: MIT */
/*
 * ra_decide with hand-built facts and the vendor profiles read from the
 * source tree. Every expected number is written out from the rules the
 * profiles encode: Wu's 512 KiB default and 32 KiB minimum, 4 x rsize for NFS
 * (at least 1M),
 * two full stripes for RAID, the memory and small-device caps.
 */

#include "classify.h"
#include "config.h"
#include "decide.h"
#include "test-btrfs.h"
#include "test-util.h"
#include "test.h"

#define KIB_BYTES(n) ((uint64_t)(n) * 1024)
#define MIB_BYTES(n) ((uint64_t)(n) * 1024 * 1024)
#define GIB_BYTES(n) ((uint64_t)(n) * 1024 * 1024 * 1024)
#define MIB_KB(n) ((uint64_t)(n) * 1024)

#define HOST_16G_KB 16777216 /* mem_total_kb of a 16 GiB host: memory cap 16384 */
#define DISK_1TB 1000204886016ULL

struct prof {
        struct ra_config *c;
        struct ra_profile p;
};

/* Replaces the first occurrence of from with to in a malloc'd string. */
static char *replace(char *text, const char *from, const char *to) {
        char *at = strstr(text, from), *out;

        if (!at) {
                fprintf(stderr, "'%s' not in profile text\n", from);
                abort();
        }
        out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
        if (!out)
                abort();
        memcpy(out, text, (size_t)(at - text));
        strcpy(out + (at - text), to);
        strcat(out, at + strlen(from));
        free(text);
        return out;
}

/* Parses text as one profile file; the test fails if it has any diagnostic. */
static void prof_parse_text(struct prof *pr, const char *path, const char *text) {
        int r;

        pr->c = calloc(1, sizeof(*pr->c));
        if (!pr->c)
                abort();
        ra_profile_init(&pr->p);
        r = ra_profile_parse_buffer(pr->c, &pr->p, path, text, strlen(text));
        for (size_t i = 0; i < pr->c->n_diags; i++)
                fprintf(stderr, "    %s:%u: %s\n", pr->c->diags[i].file, pr->c->diags[i].line,
                        pr->c->diags[i].message);
        CHECK_INT(0, r);
        CHECK_INT(0, pr->c->n_diags);
}

/* profiles/NAME.conf from the source tree, with extra text appended. */
static void prof_vendor(struct prof *pr, const char *name, const char *extra) {
        char rel[128], *text, *all;

        snprintf(rel, sizeof(rel), "profiles/%s.conf", name);
        text = test_read_source(rel, NULL);
        all = malloc(strlen(text) + strlen(extra) + 2);
        if (!all)
                abort();
        sprintf(all, "%s\n%s", text, extra);
        prof_parse_text(pr, RA_VENDOR_DIR "/profiles/x.conf", all);
        free(all);
        free(text);
}

static void prof_done(struct prof *pr) {
        ra_profile_done(&pr->p);
        ra_config_free(pr->c);
}

/* ---- facts ------------------------------------------------------------------ */

static void base(struct ra_facts *f, const char *name) {
        ra_facts_init(f);
        f->kind = RA_KIND_BLOCK;
        snprintf(f->name, sizeof(f->name), "%s", name);
        f->major = 8;
        f->minor = 0;
        f->page_kb = 4;
        f->mem_total_kb = HOST_16G_KB;
        f->current_kb = 128;
        f->current_known = true;
}

static void hdd(struct ra_facts *f, const char *name) {
        base(f, name);
        f->class = RA_CLASS_HDD;
        f->transport = RA_TRANSPORT_ATA;
        f->rotational = true;
        f->size_bytes = DISK_1TB;
        f->io_min_bytes = 4096;
        f->physical_block_bytes = 4096;
}

static void ssd(struct ra_facts *f, const char *name) {
        base(f, name);
        f->class = RA_CLASS_SSD;
        f->transport = RA_TRANSPORT_NVME;
        f->size_bytes = DISK_1TB;
        f->major = 259;
}

static void md_raid5(struct ra_facts *f) {
        /* 4 members, 512 KiB chunks: 3 data disks, 1536 KiB stripe. */
        base(f, "md0");
        f->major = 9;
        f->class = RA_CLASS_RAID;
        f->transport = RA_TRANSPORT_MD;
        f->rotational = true;
        f->size_bytes = 3 * DISK_1TB;
        f->io_min_bytes = KIB_BYTES(512);
        f->io_opt_bytes = KIB_BYTES(1536);
        f->chunk_bytes = KIB_BYTES(512);
        f->data_disks = 3;
        f->stripe_bytes = KIB_BYTES(1536);
        f->stripe_source = "md";
        snprintf(f->md_level, sizeof(f->md_level), "raid5");
        f->md_raid_disks = 4;
}

static void md_raid1(struct ra_facts *f) {
        base(f, "md1");
        f->major = 9;
        f->class = RA_CLASS_RAID;
        f->transport = RA_TRANSPORT_MD;
        f->rotational = true;
        f->size_bytes = DISK_1TB;
        f->io_min_bytes = 4096;
        snprintf(f->md_level, sizeof(f->md_level), "raid1");
        f->md_raid_disks = 2;
}

static void nfs(struct ra_facts *f, uint64_t rsize_bytes) {
        base(f, "0:53");
        f->kind = RA_KIND_MOUNT;
        f->major = 0;
        f->minor = 53;
        f->class = RA_CLASS_NFS;
        f->transport = RA_TRANSPORT_NETWORK;
        f->size_bytes = 0;
        f->rsize_bytes = rsize_bytes;
        ra_facts_set(&f->mount_point, "/srv/media");
        ra_facts_set(&f->fstype, "nfs4");
        ra_facts_set(&f->source, "nas.example:/export/media");
        ra_facts_set(&f->server, "nas.example");
        ra_facts_set(&f->nfs_version, "4.2");
}

static void removable(struct ra_facts *f, const char *name) {
        base(f, name);
        f->class = RA_CLASS_REMOVABLE;
        f->removable = true;
        f->size_bytes = GIB_BYTES(1);
}

static void zram(struct ra_facts *f, const char *name) {
        base(f, name);
        f->major = 252;
        f->class = RA_CLASS_MEMORY;
        f->transport = RA_TRANSPORT_ZRAM;
        f->size_bytes = GIB_BYTES(4);
}

static void optical(struct ra_facts *f, const char *name) {
        base(f, name);
        f->major = 11;
        f->class = RA_CLASS_OPTICAL;
        f->transport = RA_TRANSPORT_ATA;
        f->removable = true;
        f->rotational = true;
        f->size_bytes = MIB_BYTES(700);
}

/* ---- running decide ------------------------------------------------------- */

#define TRACE_MAX 64

struct run {
        struct ra_decision d;
        struct ra_rule_trace trace[TRACE_MAX];
        int r;
};

static const char *section_of(const struct ra_rule *rule) {
        return rule ? rule->section : "(none)";
}

static void decide(struct run *run, const struct prof *pr, const struct ra_facts *f) {
        memset(run, 0, sizeof(*run));
        run->r = ra_decide(&pr->p, f, &run->d, run->trace, TRACE_MAX);
        printf("    %s: target %" PRIu64 " keep %d error %d rule %s (%s)\n", f->name,
               run->d.target_kb, run->d.keep, run->d.error, section_of(run->d.rule),
               run->d.reason);
        for (size_t i = 0; i < pr->p.n_rules && i < TRACE_MAX; i++)
                printf("      %-14s %-14s %" PRIu64 " %s\n", section_of(run->trace[i].rule),
                       ra_verdict_to_string(run->trace[i].verdict), run->trace[i].value_kb,
                       run->trace[i].why);
        /* 0, or the deciding rule's error (also in d.error). */
        CHECK(run->r >= 0 || run->r == run->d.error);
}

/* The trace entry for a rule of this section. */
static const struct ra_rule_trace *traced(const struct run *run, const char *section) {
        for (size_t i = 0; i < TRACE_MAX; i++)
                if (run->trace[i].rule && strcmp(run->trace[i].rule->section, section) == 0)
                        return &run->trace[i];
        return NULL;
}

#define CHECK_TARGET(run, kb, section)                                                  \
        do {                                                                            \
                CHECK_INT(0, (run)->d.error);                                           \
                CHECK(!(run)->d.keep);                                                  \
                CHECK_U64((kb), (run)->d.target_kb);                                    \
                CHECK_STR((section), section_of((run)->d.rule));                        \
        } while (0)


/* ---- the table: one device against one profile --------------------------- */

/* Rules added to a vendor profile by several cases. */
#define RULE_STRIPES "[Rule stripes]\nClass=raid\nSize=2 * stripe\n"
#define RULE_SDA "[Rule sda]\nName=sda\nSize=2M\n"
#define RULE_HUGE "[Rule huge]\nName=sda\nSize=memory * memory * memory\n"
#define RULES_GLOBS                                                                     \
        "[Rule nvme]\nName=vd* nvme*n1\nSize=1M\n"                                      \
        "[Rule wd]\nProperty=ID_SERIAL=WD-*\nSize=768K\n"                               \
        "[Rule usb-flash]\nTransport=usb\nRotational=no\nSize=128K\n"
#define RULES_MOUNT                                                                     \
        "[Rule media]\nKind=mount\nMountPoint=/srv/*\nFsType=nfs4\nSize=8M\n"           \
        "[Rule v3]\nKind=mount\nNfsVersion=3\nSize=64K\n"                               \
        "[Rule backup]\nKind=mount\nServer=backup*\nSize=16M\n"
#define RULE_ODD "[Rule odd]\nName=sda\nSize=1234\n"
#define RULE_MORE "[Rule more]\nName=sda\nSize=max(current, 256K)\n"
#define RULES_BTRFS_MEMBER                                                              \
        "[Rule spinning-btrfs]\nFsType=btrfs\nRotational=yes\nSize=2M\n"                \
        "[Rule sata]\nKind=mount\nTransport=ata\nMountPoint=/srv/other\nSize=3M\n"

/* The facts a case starts from (the builders above); BTRFS is btrfs_fs(). */
enum shape { HDD = 1, SSD, MD_RAID5, MD_RAID1, NFS, REMOVABLE, ZRAM, OPTICAL, BTRFS };

struct verdict_want {
        const char *section; /* NULL ends the list */
        enum ra_verdict verdict;
        uint64_t value_kb; /* 0: not checked */
};

struct decide_case {
        const char *name;
        /* The profile: profiles/VENDOR.conf with TEXT appended; without
         * VENDOR, TEXT alone. */
        const char *vendor, *text;
        /* The device: a shape, then what differs from it (0, false and NULL
         * leave the shape's value). */
        enum shape shape;
        const char *dev;                /* kernel name (all but MD_*, NFS, BTRFS) */
        const char *btrfs_profile;      /* BTRFS: data profile, */
        unsigned devices;               /* devices */
        enum ra_class members;          /* and their class */
        uint64_t size_bytes, mem_total_kb, page_kb, rsize_bytes;
        uint64_t chunk_bytes, stripe_bytes, current_kb;
        unsigned data_disks;
        enum ra_transport transport;
        enum ra_class class;
        bool current_unknown;
        const char *fstype, *mount_point, *server, *nfs_version;
        struct {
                const char *key, *value;
        } props[2];
        /* Expected. */
        uint64_t target_kb; /* 0 when left alone or failed */
        bool keep;
        int error;
        const char *rule;   /* section of the deciding rule */
        const char *reason; /* a part of the reason, or NULL */
        uint64_t rule_kb, clamped_kb, memory_cap_kb, device_cap_kb; /* 0: not checked */
        struct verdict_want verdicts[3];
};

static const struct decide_case decide_cases[] = {
        /* ---- the default profile ---- */
        { .name = "default: hdd sda, the disk rule",
          .vendor = "default", .shape = HDD, .dev = "sda",
          .target_kb = 512, .rule = "disk", .reason = "Size=default = 512K",
          .rule_kb = 512, .clamped_kb = 512 },
        { .name = "default: ssd nvme0n1, the disk rule",
          .vendor = "default", .shape = SSD, .dev = "nvme0n1",
          .target_kb = 512, .rule = "disk" },
        { .name = "default: md raid5, two stripes",
          .vendor = "default", .shape = MD_RAID5,
          .target_kb = 3072, .rule = "raid", .rule_kb = 3072,
          .verdicts = { { "disk", RA_VERDICT_OVERRIDDEN, 0 }, { "raid", RA_VERDICT_MATCHED, 3072 } } },
        { .name = "default: md raid1 has no stripe",
          .vendor = "default", .shape = MD_RAID1,
          .target_kb = 512, .rule = "disk" },
        /* "2 * stripe" on a device without a stripe is not 0: the rule does
         * not apply, and the last rule that does apply decides. */
        { .name = "stripes rule: md raid1 falls back to an earlier rule",
          .vendor = "default", .text = RULE_STRIPES, .shape = MD_RAID1,
          .target_kb = 512, .rule = "disk",
          .verdicts = { { "disk", RA_VERDICT_MATCHED, 0 }, { "stripes", RA_VERDICT_NOT_APPLICABLE, 0 } } },
        { .name = "stripes rule: md raid5",
          .vendor = "default", .text = RULE_STRIPES, .shape = MD_RAID5,
          .target_kb = 3072, .rule = "stripes" },
        { .name = "default: zram left alone",
          .vendor = "default", .shape = ZRAM, .dev = "zram0",
          .keep = true, .rule = "memory",
          .verdicts = { { "disk", RA_VERDICT_OVERRIDDEN, 0 }, { "memory", RA_VERDICT_MATCHED, 0 } } },
        { .name = "default: optical left alone",
          .vendor = "default", .shape = OPTICAL, .dev = "sr0",
          .keep = true, .rule = "optical" },
        { .name = "default: 1 GiB removable, small-device cap",
          .vendor = "default", .shape = REMOVABLE, .dev = "sdb", .transport = RA_TRANSPORT_USB,
          .target_kb = 256, .rule = "disk", .reason = "small-device cap 256K",
          .rule_kb = 512, .device_cap_kb = 256 },
        /* Linus' 505 KB key: one page. */
        { .name = "default: 505 KB removable, one page",
          .vendor = "default", .shape = REMOVABLE, .dev = "sdc", .transport = RA_TRANSPORT_USB,
          .size_bytes = 505000,
          .target_kb = 4, .rule = "disk" },
        { .name = "default: hdd on a 256 MiB host, memory cap",
          .vendor = "default", .shape = HDD, .dev = "sda", .mem_total_kb = MIB_KB(256),
          .target_kb = 256, .rule = "disk", .reason = "memory cap 256K", .memory_cap_kb = 256 },
        { .name = "default: hdd on a 16 MiB host, memory cap at the minimum",
          .vendor = "default", .shape = HDD, .dev = "sda", .mem_total_kb = MIB_KB(16),
          .target_kb = 32, .rule = "disk", .memory_cap_kb = 32 },
        { .name = "default: hdd on a 512 MiB host",
          .vendor = "default", .shape = HDD, .dev = "sda", .mem_total_kb = MIB_KB(512),
          .target_kb = 512, .rule = "disk" },
        { .name = "default: nfs rsize=1M",
          .vendor = "default", .shape = NFS,
          .target_kb = 4096, .rule = "nfs",
          .verdicts = { { "disk", RA_VERDICT_NO_MATCH, 0 }, /* Kind=block */
                        { "nfs", RA_VERDICT_MATCHED, 0 } } },
        /* 4 x 32K is below the 1M floor (bench/README-nfs.md). */
        { .name = "default: nfs rsize=32k",
          .vendor = "default", .shape = NFS, .rsize_bytes = KIB_BYTES(32),
          .target_kb = 1024, .rule = "nfs" },
        /* On a 1 GiB host the memory cap holds 4 MiB down to 1 MiB. */
        { .name = "default: nfs rsize=1M on a 1 GiB host",
          .vendor = "default", .shape = NFS, .mem_total_kb = MIB_KB(1024),
          .target_kb = 1024, .rule = "nfs" },
        { .name = "default: fuse.sshfs left alone",
          .vendor = "default", .shape = NFS, .class = RA_CLASS_FUSE, .fstype = "fuse.sshfs",
          .keep = true, .rule = "other-network" },

        /* ---- which rule wins ---- */
        { .name = "sda rule: a name rule overrides the class rule",
          .vendor = "default", .text = RULE_SDA, .shape = HDD, .dev = "sda",
          .target_kb = 2048, .rule = "sda",
          .verdicts = { { "disk", RA_VERDICT_OVERRIDDEN, 0 }, { "sda", RA_VERDICT_MATCHED, 0 },
                        { "raid", RA_VERDICT_NO_MATCH, 0 } } },
        { .name = "sda rule: sdb keeps the class rule",
          .vendor = "default", .text = RULE_SDA, .shape = HDD, .dev = "sdb",
          .target_kb = 512, .rule = "disk",
          .verdicts = { { "sda", RA_VERDICT_NO_MATCH, 0 } } },
        /* Order matters, not specificity: a class rule after a name rule wins. */
        { .name = "order: an earlier specific rule loses",
          .text = "[Profile]\nDefault=512K\n" RULE_SDA "[Rule hdd]\nClass=hdd\nSize=1M\n",
          .shape = HDD, .dev = "sda",
          .target_kb = 1024, .rule = "hdd",
          .verdicts = { { "sda", RA_VERDICT_OVERRIDDEN, 0 } } },
        { .name = "globs: nvme0n1 by name",
          .vendor = "default", .text = RULES_GLOBS, .shape = SSD, .dev = "nvme0n1",
          .target_kb = 1024, .rule = "nvme" },
        { .name = "globs: nvme0n2 matches no name",
          .vendor = "default", .text = RULES_GLOBS, .shape = SSD, .dev = "nvme0n2",
          .target_kb = 512, .rule = "disk" },
        { .name = "globs: a WD disk by ID_SERIAL",
          .vendor = "default", .text = RULES_GLOBS, .shape = HDD, .dev = "sda",
          .props = { { "ID_BUS", "ata" }, { "ID_SERIAL", "WD-WCC4E1234567" } },
          .target_kb = 768, .rule = "wd" },
        { .name = "globs: another ID_SERIAL",
          .vendor = "default", .text = RULES_GLOBS, .shape = HDD, .dev = "sdb",
          .props = { { "ID_SERIAL", "ST4000-Z1Z" } },
          .target_kb = 512, .rule = "disk" },
        /* A USB stick (not rotational) gets 128K; a USB disk does not. */
        { .name = "globs: a USB stick",
          .vendor = "default", .text = RULES_GLOBS, .shape = REMOVABLE, .dev = "sdc",
          .transport = RA_TRANSPORT_USB, .size_bytes = GIB_BYTES(32),
          .target_kb = 128, .rule = "usb-flash" },
        { .name = "globs: a rotational USB disk",
          .vendor = "default", .text = RULES_GLOBS, .shape = HDD, .dev = "sdd",
          .transport = RA_TRANSPORT_USB,
          .target_kb = 512, .rule = "disk" },
        { .name = "mount rules: by mount point and fstype",
          .vendor = "default", .text = RULES_MOUNT, .shape = NFS,
          .target_kb = 8192, .rule = "media",
          .verdicts = { { "nfs", RA_VERDICT_OVERRIDDEN, 0 }, { "v3", RA_VERDICT_NO_MATCH, 0 },
                        { "backup", RA_VERDICT_NO_MATCH, 0 } } },
        { .name = "mount rules: by server",
          .vendor = "default", .text = RULES_MOUNT, .shape = NFS,
          .mount_point = "/home", .server = "backup2.example",
          .target_kb = 16384, .rule = "backup" },
        { .name = "mount rules: by NFS version",
          .vendor = "default", .text = RULES_MOUNT, .shape = NFS,
          .fstype = "nfs", .nfs_version = "3",
          .target_kb = 64, .rule = "v3" },

        /* ---- failures ---- */
        /* 16 GiB^3 in KiB overflows 64 bits. */
        { .name = "huge rule: a failed Size= means no target",
          .vendor = "default", .text = RULE_HUGE, .shape = HDD, .dev = "sda",
          .error = -ERANGE, .rule = "huge", .reason = "value out of range",
          .verdicts = { { "huge", RA_VERDICT_FAILED, 0 } } },
        { .name = "huge rule: sdb does not match it",
          .vendor = "default", .text = RULE_HUGE, .shape = HDD, .dev = "sdb",
          .target_kb = 512, .rule = "disk" },
        { .name = "div rule: division by zero",
          .vendor = "default", .text = "[Rule div]\nClass=raid\nSize=stripe / (data_disks - 3)\n",
          .shape = MD_RAID5,
          .error = -EDOM, .rule = "div", .reason = "division by zero",
          .verdicts = { { "div", RA_VERDICT_FAILED, 0 } } },
        { .name = "huge rule, then a fixed one: the later rule decides",
          .vendor = "default", .text = RULE_HUGE "[Rule fixed]\nName=sda\nSize=1M\n",
          .shape = HDD, .dev = "sda",
          .target_kb = 1024, .rule = "fixed" },

        /* ---- clamps, other profiles, pages ---- */
        /* database: raid gets max(default, chunk), at most 512K. */
        { .name = "database: md raid5 with 1 MiB chunks, clamped",
          .vendor = "database", .shape = MD_RAID5,
          .chunk_bytes = MIB_BYTES(1), .stripe_bytes = MIB_BYTES(3),
          .target_kb = 512, .rule = "raid", .reason = "clamped to 512K",
          .rule_kb = 1024, .clamped_kb = 512 },
        { .name = "database: ssd",
          .vendor = "database", .shape = SSD, .dev = "nvme0n1",
          .target_kb = 64, .rule = "ssd" },
        { .name = "database: hdd",
          .vendor = "database", .shape = HDD, .dev = "sda",
          .target_kb = 32, .rule = "disk" },
        /* Rule Minimum raises a small value. */
        { .name = "tiny rule: the rule's Minimum= raises 4K",
          .vendor = "default", .text = "[Rule tiny]\nName=sda\nSize=4K\nMinimum=64K\n",
          .shape = HDD, .dev = "sda",
          .target_kb = 64, .rule = "tiny", .rule_kb = 4, .clamped_kb = 64 },
        /* throughput: 4 x a 128 MiB stripe is 512 MiB; the profile stops at 128M. */
        { .name = "throughput: md raid5 stops at the profile's Maximum=",
          .vendor = "throughput", .shape = MD_RAID5,
          .chunk_bytes = MIB_BYTES(32), .data_disks = 4, .stripe_bytes = MIB_BYTES(128),
          .size_bytes = 1ULL << 60,   /* small-device cap 8388608 */
          .mem_total_kb = 1ULL << 30, /* 1 TiB: memory cap 1048576 */
          .target_kb = 131072, .rule = "raid", .rule_kb = 524288 },
        { .name = "throughput: ssd",
          .vendor = "throughput", .shape = SSD, .dev = "nvme0n1",
          .target_kb = 4096, .rule = "ssd" },
        { .name = "throughput: hdd",
          .vendor = "throughput", .shape = HDD, .dev = "sda",
          .target_kb = 1024, .rule = "disk" },
        /* "a 64 MiB board reads ahead 64 KiB, a 16 MiB one 32 KiB" */
        { .name = "embedded: 64 MiB board",
          .vendor = "embedded", .shape = SSD, .dev = "mmcblk0", .transport = RA_TRANSPORT_MMC,
          .size_bytes = GIB_BYTES(8), .mem_total_kb = MIB_KB(64),
          .target_kb = 64, .rule = "disk" },
        { .name = "embedded: 16 MiB board",
          .vendor = "embedded", .shape = SSD, .dev = "mmcblk0", .transport = RA_TRANSPORT_MMC,
          .size_bytes = GIB_BYTES(8), .mem_total_kb = MIB_KB(16),
          .target_kb = 32, .rule = "disk" },
        { .name = "embedded: 1 GiB board",
          .vendor = "embedded", .shape = SSD, .dev = "mmcblk0", .transport = RA_TRANSPORT_MMC,
          .size_bytes = GIB_BYTES(8), .mem_total_kb = MIB_KB(1024),
          .target_kb = 128, .rule = "disk" },
        { .name = "odd rule: whole 4K pages",
          .vendor = "default", .text = RULE_ODD, .shape = HDD, .dev = "sda",
          .target_kb = 1232, .rule = "odd", .rule_kb = 1234 },
        { .name = "odd rule: whole 64K pages",
          .vendor = "default", .text = RULE_ODD, .shape = HDD, .dev = "sda", .page_kb = 64,
          .target_kb = 1216, .rule = "odd", .reason = "1216K in whole 64K pages" },
        /* 64 KiB pages on a tiny key: still one whole page. */
        { .name = "odd rule: a 16 MiB key with 64K pages, one page",
          .vendor = "default", .text = RULE_ODD, .shape = REMOVABLE, .dev = "sdb",
          .page_kb = 64, .size_bytes = MIB_BYTES(16),
          .target_kb = 64, .rule = "disk" },
        { .name = "more rule: max(current, 256K)",
          .vendor = "default", .text = RULE_MORE, .shape = HDD, .dev = "sda", .current_kb = 1024,
          .target_kb = 1024, .rule = "more" },
        { .name = "more rule: current unknown, not applicable",
          .vendor = "default", .text = RULE_MORE, .shape = HDD, .dev = "sda", .current_kb = 1024,
          .current_unknown = true,
          .target_kb = 512, .rule = "disk",
          .verdicts = { { "more", RA_VERDICT_NOT_APPLICABLE, 0 } } },

        /* ---- btrfs: its own bdi, decided like the disks below it ---- */
        { .name = "default: btrfs single on an ssd",
          .vendor = "default", .shape = BTRFS, .btrfs_profile = "single", .devices = 1,
          .members = RA_CLASS_SSD,
          .target_kb = 512, .rule = "btrfs",
          .verdicts = { { "disk", RA_VERDICT_NO_MATCH, 0 }, /* Kind=block */
                        { "raid", RA_VERDICT_NO_MATCH, 0 } } },
        /* raid10 over 8: stripe 4 x 64K = 256K, two stripes = the default. */
        { .name = "default: btrfs raid10 over 8 ssds",
          .vendor = "default", .shape = BTRFS, .btrfs_profile = "raid10", .devices = 8,
          .members = RA_CLASS_SSD,
          .target_kb = 512, .rule = "raid",
          .verdicts = { { "btrfs", RA_VERDICT_OVERRIDDEN, 0 } } },
        /* raid0 over 8: stripe 512K, 1024. */
        { .name = "default: btrfs raid0 over 8 hdds",
          .vendor = "default", .shape = BTRFS, .btrfs_profile = "raid0", .devices = 8,
          .members = RA_CLASS_HDD,
          .target_kb = 1024, .rule = "raid" },
        /* raid1: no stripe, the raid rule does not apply (class hdd anyway). */
        { .name = "default: btrfs raid1 over 2 hdds",
          .vendor = "default", .shape = BTRFS, .btrfs_profile = "raid1", .devices = 2,
          .members = RA_CLASS_HDD,
          .target_kb = 512, .rule = "btrfs" },
        /* On RAM-backed members: left alone, like them. */
        { .name = "default: btrfs on memory left alone",
          .vendor = "default", .shape = BTRFS, .btrfs_profile = "single", .devices = 1,
          .members = RA_CLASS_MEMORY,
          .keep = true, .rule = "memory" },
        /* Small-device cap by total size, like a disk: 1 GiB -> 256. */
        { .name = "default: btrfs on a 1 GiB removable, small-device cap",
          .vendor = "default", .shape = BTRFS, .btrfs_profile = "single", .devices = 1,
          .members = RA_CLASS_REMOVABLE, .size_bytes = GIB_BYTES(1),
          .target_kb = 256, .rule = "btrfs", .device_cap_kb = 256 },
        /* A 256 MiB host: the memory cap, 256. */
        { .name = "default: btrfs raid0 on a 256 MiB host, memory cap",
          .vendor = "default", .shape = BTRFS, .btrfs_profile = "raid0", .devices = 8,
          .members = RA_CLASS_SSD, .mem_total_kb = 250000,
          .target_kb = 256, .rule = "raid", .rule_kb = 1024, .memory_cap_kb = 256 },
        { .name = "throughput: btrfs single ssd, the members' class",
          .vendor = "throughput", .shape = BTRFS, .btrfs_profile = "single", .devices = 1,
          .members = RA_CLASS_SSD,
          .target_kb = 4096, .rule = "ssd" },
        { .name = "throughput: btrfs dup hdd",
          .vendor = "throughput", .shape = BTRFS, .btrfs_profile = "dup", .devices = 1,
          .members = RA_CLASS_HDD,
          .target_kb = 1024, .rule = "btrfs" },
        { .name = "throughput: btrfs raid10 over 8, max(1M, 4 x 256K)",
          .vendor = "throughput", .shape = BTRFS, .btrfs_profile = "raid10", .devices = 8,
          .members = RA_CLASS_SSD,
          .target_kb = 1024, .rule = "raid" },
        { .name = "database: btrfs single ssd",
          .vendor = "database", .shape = BTRFS, .btrfs_profile = "single", .devices = 1,
          .members = RA_CLASS_SSD,
          .target_kb = 64, .rule = "ssd" },
        { .name = "database: btrfs single hdd",
          .vendor = "database", .shape = BTRFS, .btrfs_profile = "single", .devices = 1,
          .members = RA_CLASS_HDD,
          .target_kb = 32, .rule = "btrfs" },
        { .name = "database: btrfs raid0 over 4, max(32K, chunk 64K)",
          .vendor = "database", .shape = BTRFS, .btrfs_profile = "raid0", .devices = 4,
          .members = RA_CLASS_HDD,
          .target_kb = 64, .rule = "raid" },
        { .name = "embedded: btrfs single ssd",
          .vendor = "embedded", .shape = BTRFS, .btrfs_profile = "single", .devices = 1,
          .members = RA_CLASS_SSD,
          .target_kb = 128, .rule = "btrfs" },
        /* Rotational= and Transport= look at the members; MountPoint= and
         * FsType= at the mount. */
        { .name = "btrfs member rules: rotational members",
          .vendor = "default", .text = RULES_BTRFS_MEMBER, .shape = BTRFS,
          .btrfs_profile = "single", .devices = 2, .members = RA_CLASS_HDD,
          .target_kb = 2048, .rule = "spinning-btrfs",
          .verdicts = { { "sata", RA_VERDICT_NO_MATCH, 0 } } },
        { .name = "btrfs member rules: ata members on /srv/other",
          .vendor = "default", .text = RULES_BTRFS_MEMBER, .shape = BTRFS,
          .btrfs_profile = "single", .devices = 2, .members = RA_CLASS_HDD,
          .mount_point = "/srv/other",
          .target_kb = 3072, .rule = "sata" },
        { .name = "btrfs member rules: ssd members",
          .vendor = "default", .text = RULES_BTRFS_MEMBER, .shape = BTRFS,
          .btrfs_profile = "single", .devices = 2, .members = RA_CLASS_SSD,
          .target_kb = 512, .rule = "btrfs",
          .verdicts = { { "spinning-btrfs", RA_VERDICT_NO_MATCH, 0 } } },
        /* A network mount has no members: Rotational= never matches it. */
        { .name = "btrfs member rules: nfs has no members",
          .vendor = "default", .text = RULES_BTRFS_MEMBER, .shape = NFS,
          .target_kb = 4096, .rule = "nfs" },
        /* readahead.conf(5): a network mount is neither rotational nor
         * removable, so "no" holds for it. */
        { .name = "network mount: Rotational=no and Removable=no match",
          .vendor = "default", .text = "[Rule solid]\nKind=mount\nRotational=no\nRemovable=no\nSize=2M\n",
          .shape = NFS,
          .target_kb = 2048, .rule = "solid",
          .verdicts = { { "nfs", RA_VERDICT_OVERRIDDEN, 0 }, { "solid", RA_VERDICT_MATCHED, 2048 } } },
};

static void build(struct ra_facts *f, const struct decide_case *c) {
        switch (c->shape) {
        case HDD: hdd(f, c->dev); break;
        case SSD: ssd(f, c->dev); break;
        case MD_RAID5: md_raid5(f); break;
        case MD_RAID1: md_raid1(f); break;
        case NFS: nfs(f, MIB_BYTES(1)); break;
        case REMOVABLE: removable(f, c->dev); break;
        case ZRAM: zram(f, c->dev); break;
        case OPTICAL: optical(f, c->dev); break;
        case BTRFS: btrfs_fs(f, c->btrfs_profile, c->devices, c->members); break;
        default: abort();
        }
        if (c->size_bytes)
                f->size_bytes = c->size_bytes;
        if (c->mem_total_kb)
                f->mem_total_kb = c->mem_total_kb;
        if (c->page_kb)
                f->page_kb = c->page_kb;
        if (c->rsize_bytes)
                f->rsize_bytes = c->rsize_bytes;
        if (c->chunk_bytes)
                f->chunk_bytes = c->chunk_bytes;
        if (c->stripe_bytes)
                f->stripe_bytes = c->stripe_bytes;
        if (c->data_disks)
                f->data_disks = c->data_disks;
        if (c->current_kb)
                f->current_kb = c->current_kb;
        if (c->current_unknown)
                f->current_known = false;
        if (c->transport)
                f->transport = c->transport;
        if (c->class)
                f->class = c->class;
        if (c->fstype)
                ra_facts_set(&f->fstype, c->fstype);
        if (c->mount_point)
                ra_facts_set(&f->mount_point, c->mount_point);
        if (c->server)
                ra_facts_set(&f->server, c->server);
        if (c->nfs_version)
                ra_facts_set(&f->nfs_version, c->nfs_version);
        for (size_t i = 0; i < 2 && c->props[i].key; i++)
                CHECK_INT(0, ra_facts_add_prop(f, c->props[i].key, c->props[i].value));
        if (c->shape == BTRFS)
                ra_facts_classify(f);
}

static void check_verdict(const struct run *run, const struct verdict_want *w) {
        const struct ra_rule_trace *t = traced(run, w->section);

        if (!t) {
                fprintf(stderr, "    rule %s not traced\n", w->section);
                test_fail(__FILE__, __LINE__, "rule traced");
                return;
        }
        CHECK_STR(ra_verdict_to_string(w->verdict), ra_verdict_to_string(t->verdict));
        if (w->value_kb)
                CHECK_U64(w->value_kb, t->value_kb);
}

static void run_decide_case(const void *arg) {
        const struct decide_case *c = arg;
        struct prof pr;
        struct ra_facts f;
        struct run run;

        if (c->vendor)
                prof_vendor(&pr, c->vendor, c->text ? c->text : "");
        else
                prof_parse_text(&pr, "/test/case.conf", c->text);
        build(&f, c);
        decide(&run, &pr, &f);
        CHECK_INT(c->error, run.d.error);
        CHECK_INT(c->keep, run.d.keep);
        CHECK_U64(c->target_kb, run.d.target_kb);
        CHECK_STR(c->rule, section_of(run.d.rule));
        if (c->reason)
                CHECK_CONTAINS(run.d.reason, c->reason);
        if (c->rule_kb)
                CHECK_U64(c->rule_kb, run.d.rule_kb);
        if (c->clamped_kb)
                CHECK_U64(c->clamped_kb, run.d.clamped_kb);
        if (c->memory_cap_kb)
                CHECK_U64(c->memory_cap_kb, run.d.memory_cap_kb);
        if (c->device_cap_kb)
                CHECK_U64(c->device_cap_kb, run.d.device_cap_kb);
        for (size_t i = 0; i < 3 && c->verdicts[i].section; i++)
                check_verdict(&run, &c->verdicts[i]);
        ra_facts_done(&f);
        prof_done(&pr);
}

/* ---- cases of their own ----------------------------------------------------- */

/* What the globs cases' Property= rules rely on: properties read back. */
static void test_props_read_back(void) {
        struct ra_facts f;

        hdd(&f, "sda");
        CHECK_INT(0, ra_facts_add_prop(&f, "ID_BUS", "ata"));
        CHECK_INT(0, ra_facts_add_prop(&f, "ID_SERIAL", "WD-WCC4E1234567"));
        CHECK_STR("WD-WCC4E1234567", ra_facts_get_prop(&f, "ID_SERIAL"));
        CHECK(ra_facts_get_prop(&f, "ID_WWN") == NULL);
        ra_facts_done(&f);
}

static void test_caps_switched_off(void) {
        struct prof pr;
        struct ra_facts f;
        struct run run;
        char *text = test_read_source("profiles/default.conf", NULL);

        text = replace(text, "MemoryCap=yes", "MemoryCap=no");
        text = replace(text, "SmallDeviceCap=yes", "SmallDeviceCap=no");
        prof_parse_text(&pr, "/test/nocaps.conf", text);
        free(text);
        CHECK(!pr.p.memory_cap);
        CHECK(!pr.p.small_device_cap);

        hdd(&f, "sda");
        f.mem_total_kb = MIB_KB(16);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        CHECK_U64(0, run.d.memory_cap_kb);
        ra_facts_done(&f);

        removable(&f, "sdb");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        CHECK_U64(0, run.d.device_cap_kb);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_trace_verdicts(void) {
        static const char *const sections[] = { "disk",    "btrfs", "raid",         "memory",
                                                "optical", "nfs",   "other-network" };
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        REQUIRE(pr.p.n_rules == 7);
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        for (size_t i = 0; i < 7; i++) {
                CHECK(run.trace[i].rule == &pr.p.rules[i]);
                CHECK_STR(sections[i], section_of(run.trace[i].rule));
        }
        CHECK_STR("matched", ra_verdict_to_string(run.trace[0].verdict));
        CHECK_U64(512, run.trace[0].value_kb);
        for (size_t i = 1; i < 7; i++)
                CHECK_STR("no-match", ra_verdict_to_string(run.trace[i].verdict));
        CHECK(run.trace[0].why[0] != '\0');
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_trace_small_or_absent(void) {
        struct prof pr;
        struct ra_facts f;
        struct ra_decision d;
        struct ra_rule_trace trace[3]; /* trace[2] is a canary */
        unsigned char canary[sizeof(trace[2])];

        prof_vendor(&pr, "default", "");
        md_raid5(&f);

        memset(trace, 0xa5, sizeof(trace));
        memset(canary, 0xa5, sizeof(canary));
        CHECK_INT(0, ra_decide(&pr.p, &f, &d, trace, 2));
        CHECK_U64(3072, d.target_kb);
        CHECK(trace[0].rule == &pr.p.rules[0]);
        CHECK(trace[1].rule == &pr.p.rules[1]);
        CHECK(memcmp(&trace[2], canary, sizeof(canary)) == 0);

        CHECK_INT(0, ra_decide(&pr.p, &f, &d, NULL, 0));
        CHECK_U64(3072, d.target_kb);
        CHECK_STR("raid", section_of(d.rule));
        ra_facts_done(&f);
        prof_done(&pr);
}

/* explain's why for a network mount says what it is: not rotational, not removable. */
static void test_network_mount_neither_rotational_nor_removable(void) {
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default",
                    "[Rule spinning]\nRotational=yes\nSize=2M\n"
                    "[Rule stick]\nRemovable=yes\nSize=64K\n");
        nfs(&f, MIB_BYTES(1));
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 4096, "nfs");
        CHECK_STR("no-match", ra_verdict_to_string(traced(&run, "spinning")->verdict));
        CHECK_STR("rotational is no", traced(&run, "spinning")->why);
        CHECK_STR("no-match", ra_verdict_to_string(traced(&run, "stick")->verdict));
        CHECK_STR("removable is no", traced(&run, "stick")->why);
        ra_facts_done(&f);
        prof_done(&pr);
}

/* Virtual=yes picks virtio, xen, storvsc and pvscsi disks, whatever they
 * report as rotational; Virtual=no the others. */
static void test_virtual_rule(void) {
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "[Rule vm]\nVirtual=yes\nSize=1M\n[Rule metal]\nVirtual=no\nKind=block\nSize=2M\n");
        hdd(&f, "vda");
        f.virtual_by = "virtio_blk";
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "vm");
        CHECK_STR("virtual is yes", traced(&run, "metal")->why);
        ra_facts_done(&f);
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 2048, "metal");
        CHECK_STR("virtual is no", traced(&run, "vm")->why);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_no_rules_leaves_device_alone(void) {
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_parse_text(&pr, "/test/empty.conf", "[Profile]\nDefault=512K\n");
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_INT(0, run.d.error);
        CHECK(run.d.rule == NULL);
        CHECK_U64(0, run.d.target_kb);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_strings(void) {
        CHECK_STR("no-match", ra_verdict_to_string(RA_VERDICT_NO_MATCH));
        CHECK_STR("not-applicable", ra_verdict_to_string(RA_VERDICT_NOT_APPLICABLE));
        CHECK_STR("matched", ra_verdict_to_string(RA_VERDICT_MATCHED));
        CHECK_STR("overridden", ra_verdict_to_string(RA_VERDICT_OVERRIDDEN));
        CHECK_STR("failed", ra_verdict_to_string(RA_VERDICT_FAILED));
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN_TABLE(decide_cases, run_decide_case);
        RUN(test_props_read_back);
        RUN(test_caps_switched_off);
        RUN(test_trace_verdicts);
        RUN(test_trace_small_or_absent);
        RUN(test_network_mount_neither_rotational_nor_removable);
        RUN(test_virtual_rule);
        RUN(test_no_rules_leaves_device_alone);
        RUN(test_strings);
        TEST_MAIN_END;
}
