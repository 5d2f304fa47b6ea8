/* SPDX-License-Identifier: MIT */
/*
 * ra_decide with hand-built facts and the vendor profiles read from the
 * source tree. Every expected number is the one design.md gives.
 */

#include "config.h"
#include "decide.h"
#include "gather.h"
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
static char *replace(char *text, const char *from, const char *to)
{
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
static void prof_parse_text(struct prof *pr, const char *path, const char *text)
{
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
static void prof_vendor(struct prof *pr, const char *name, const char *extra)
{
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

static void prof_done(struct prof *pr)
{
        ra_profile_done(&pr->p);
        ra_config_free(pr->c);
}

/* ---- facts ------------------------------------------------------------------ */

static void base(struct ra_facts *f, const char *name)
{
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

static void hdd(struct ra_facts *f, const char *name)
{
        base(f, name);
        f->class = RA_CLASS_HDD;
        f->transport = RA_TRANSPORT_ATA;
        f->rotational = true;
        f->size_bytes = DISK_1TB;
        f->io_min_bytes = 4096;
        f->physical_block_bytes = 4096;
}

static void ssd(struct ra_facts *f, const char *name)
{
        base(f, name);
        f->class = RA_CLASS_SSD;
        f->transport = RA_TRANSPORT_NVME;
        f->size_bytes = DISK_1TB;
        f->major = 259;
}

static void md_raid5(struct ra_facts *f)
{
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

static void md_raid1(struct ra_facts *f)
{
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

static void nfs(struct ra_facts *f, uint64_t rsize_bytes)
{
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

/* ---- running decide ------------------------------------------------------- */

#define TRACE_MAX 64

struct run {
        struct ra_decision d;
        struct ra_rule_trace trace[TRACE_MAX];
        int r;
};

static const char *section_of(const struct ra_rule *rule)
{
        return rule ? rule->section : "(none)";
}

static void decide(struct run *run, const struct prof *pr, const struct ra_facts *f)
{
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
static const struct ra_rule_trace *traced(const struct run *run, const char *section)
{
        for (size_t i = 0; i < TRACE_MAX; i++)
                if (run->trace[i].rule && strcmp(run->trace[i].rule->section, section) == 0)
                        return &run->trace[i];
        return NULL;
}

#define CHECK_VERDICT(run, section, v)                                                  \
        do {                                                                            \
                const struct ra_rule_trace *t_ = traced((run), (section));              \
                if (!t_)                                                                \
                        test_fail(__FILE__, __LINE__, "rule traced: " section);         \
                else                                                                    \
                        CHECK_STR(ra_verdict_to_string(v),                              \
                                  ra_verdict_to_string(t_->verdict));                   \
        } while (0)

#define CHECK_TARGET(run, kb, section)                                                  \
        do {                                                                            \
                CHECK_INT(0, (run)->d.error);                                           \
                CHECK(!(run)->d.keep);                                                  \
                CHECK_U64((kb), (run)->d.target_kb);                                    \
                CHECK_STR((section), section_of((run)->d.rule));                        \
        } while (0)

#define CHECK_KEEP(run, section)                                                        \
        do {                                                                            \
                CHECK_INT(0, (run)->d.error);                                           \
                CHECK((run)->d.keep);                                                   \
                CHECK_STR((section), section_of((run)->d.rule));                        \
        } while (0)

/* ---- the default profile ---------------------------------------------------- */

static void test_hdd(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        CHECK_U64(512, run.d.rule_kb);
        CHECK_U64(512, run.d.clamped_kb);
        CHECK(run.d.reason[0] != '\0');
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_ssd(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        ssd(&f, "nvme0n1");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_md_raid5(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        md_raid5(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 3072, "raid");
        CHECK_U64(3072, run.d.rule_kb);
        CHECK_VERDICT(&run, "disk", RA_VERDICT_OVERRIDDEN);
        CHECK_VERDICT(&run, "raid", RA_VERDICT_MATCHED);
        if (traced(&run, "raid"))
                CHECK_U64(3072, traced(&run, "raid")->value_kb);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_md_raid1_no_stripe(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        md_raid1(&f);
        decide(&run, &pr, &f);
        CHECK_INT(0, run.d.error);
        CHECK(!run.d.keep);
        CHECK_U64(512, run.d.target_kb);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_missing_fact_falls_back_to_earlier_rule(void)
{
        /* "2 * stripe" on a device without a stripe is not 0: the rule does
         * not apply, and the last rule that does apply decides. */
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "[Rule stripes]\nClass=raid\nSize=2 * stripe\n");
        md_raid1(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        CHECK_VERDICT(&run, "disk", RA_VERDICT_MATCHED);
        CHECK_VERDICT(&run, "stripes", RA_VERDICT_NOT_APPLICABLE);
        ra_facts_done(&f);

        md_raid5(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 3072, "stripes");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_zram_keep(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        base(&f, "zram0");
        f.major = 252;
        f.class = RA_CLASS_MEMORY;
        f.transport = RA_TRANSPORT_ZRAM;
        f.size_bytes = GIB_BYTES(4);
        decide(&run, &pr, &f);
        CHECK_KEEP(&run, "memory");
        CHECK_VERDICT(&run, "disk", RA_VERDICT_OVERRIDDEN);
        CHECK_VERDICT(&run, "memory", RA_VERDICT_MATCHED);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_optical_keep(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        base(&f, "sr0");
        f.major = 11;
        f.class = RA_CLASS_OPTICAL;
        f.transport = RA_TRANSPORT_ATA;
        f.removable = true;
        f.rotational = true;
        f.size_bytes = MIB_BYTES(700);
        decide(&run, &pr, &f);
        CHECK_KEEP(&run, "optical");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_removable_small_device_cap(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        base(&f, "sdb");
        f.class = RA_CLASS_REMOVABLE;
        f.transport = RA_TRANSPORT_USB;
        f.removable = true;
        f.size_bytes = GIB_BYTES(1);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 256, "disk");
        CHECK_U64(512, run.d.rule_kb);
        CHECK_U64(256, run.d.device_cap_kb);
        ra_facts_done(&f);

        /* Linus' 505 KB key: one page. */
        base(&f, "sdc");
        f.class = RA_CLASS_REMOVABLE;
        f.transport = RA_TRANSPORT_USB;
        f.removable = true;
        f.size_bytes = 505000;
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 4, "disk");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_small_memory_host(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        hdd(&f, "sda");
        f.mem_total_kb = MIB_KB(256);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 256, "disk");
        CHECK_U64(256, run.d.memory_cap_kb);

        f.mem_total_kb = MIB_KB(16);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 32, "disk");
        CHECK_U64(32, run.d.memory_cap_kb);

        f.mem_total_kb = MIB_KB(512);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_caps_switched_off(void)
{
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

        base(&f, "sdb");
        f.class = RA_CLASS_REMOVABLE;
        f.removable = true;
        f.size_bytes = GIB_BYTES(1);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        CHECK_U64(0, run.d.device_cap_kb);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_nfs(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        nfs(&f, MIB_BYTES(1));
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 4096, "nfs");
        CHECK_VERDICT(&run, "disk", RA_VERDICT_NO_MATCH); /* Kind=block */
        CHECK_VERDICT(&run, "nfs", RA_VERDICT_MATCHED);
        ra_facts_done(&f);

        nfs(&f, KIB_BYTES(32));
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "nfs");
        ra_facts_done(&f);

        /* On a 1 GiB host the memory cap holds 4 MiB down to 1 MiB. */
        nfs(&f, MIB_BYTES(1));
        f.mem_total_kb = MIB_KB(1024);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "nfs");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_other_network_keep(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        nfs(&f, MIB_BYTES(1));
        f.class = RA_CLASS_FUSE;
        ra_facts_set(&f.fstype, "fuse.sshfs");
        decide(&run, &pr, &f);
        CHECK_KEEP(&run, "other-network");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_name_rule_overrides_class_rule(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "[Rule sda]\nName=sda\nSize=2M\n");
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 2048, "sda");
        CHECK_VERDICT(&run, "disk", RA_VERDICT_OVERRIDDEN);
        CHECK_VERDICT(&run, "sda", RA_VERDICT_MATCHED);
        CHECK_VERDICT(&run, "raid", RA_VERDICT_NO_MATCH);
        ra_facts_done(&f);

        hdd(&f, "sdb");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        CHECK_VERDICT(&run, "sda", RA_VERDICT_NO_MATCH);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_earlier_specific_rule_loses(void)
{
        /* Order matters, not specificity: a class rule after a name rule wins. */
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_parse_text(&pr, "/test/order.conf",
                        "[Profile]\nDefault=512K\n"
                        "[Rule sda]\nName=sda\nSize=2M\n"
                        "[Rule hdd]\nClass=hdd\nSize=1M\n");
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "hdd");
        CHECK_VERDICT(&run, "sda", RA_VERDICT_OVERRIDDEN);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_globs_and_properties(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default",
                    "[Rule nvme]\nName=vd* nvme*n1\nSize=1M\n"
                    "[Rule wd]\nProperty=ID_SERIAL=WD-*\nSize=768K\n"
                    "[Rule usb-flash]\nTransport=usb\nRotational=no\nSize=128K\n");

        ssd(&f, "nvme0n1");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "nvme");
        ra_facts_done(&f);

        ssd(&f, "nvme0n2");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        ra_facts_done(&f);

        hdd(&f, "sda");
        CHECK_INT(0, ra_facts_add_prop(&f, "ID_BUS", "ata"));
        CHECK_INT(0, ra_facts_add_prop(&f, "ID_SERIAL", "WD-WCC4E1234567"));
        CHECK_STR("WD-WCC4E1234567", ra_facts_get_prop(&f, "ID_SERIAL"));
        CHECK(ra_facts_get_prop(&f, "ID_WWN") == NULL);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 768, "wd");
        ra_facts_done(&f);

        hdd(&f, "sdb");
        CHECK_INT(0, ra_facts_add_prop(&f, "ID_SERIAL", "ST4000-Z1Z"));
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        ra_facts_done(&f);

        /* A USB stick (not rotational) gets 128K; a USB disk does not. */
        base(&f, "sdc");
        f.class = RA_CLASS_REMOVABLE;
        f.transport = RA_TRANSPORT_USB;
        f.removable = true;
        f.size_bytes = GIB_BYTES(32);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 128, "usb-flash");
        ra_facts_done(&f);

        hdd(&f, "sdd");
        f.transport = RA_TRANSPORT_USB;
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_mount_rules(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default",
                    "[Rule media]\nKind=mount\nMountPoint=/srv/*\nFsType=nfs4\nSize=8M\n"
                    "[Rule v3]\nKind=mount\nNfsVersion=3\nSize=64K\n"
                    "[Rule backup]\nKind=mount\nServer=backup*\nSize=16M\n");
        nfs(&f, MIB_BYTES(1));
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 8192, "media");
        CHECK_VERDICT(&run, "nfs", RA_VERDICT_OVERRIDDEN);
        CHECK_VERDICT(&run, "v3", RA_VERDICT_NO_MATCH);
        CHECK_VERDICT(&run, "backup", RA_VERDICT_NO_MATCH);
        ra_facts_done(&f);

        nfs(&f, MIB_BYTES(1));
        ra_facts_set(&f.mount_point, "/home");
        ra_facts_set(&f.server, "backup2.example");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 16384, "backup");
        ra_facts_done(&f);

        nfs(&f, MIB_BYTES(1));
        ra_facts_set(&f.fstype, "nfs");
        ra_facts_set(&f.nfs_version, "3");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 64, "v3");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_failed_size_means_no_target(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        /* 16 GiB^3 in KiB overflows 64 bits. */
        prof_vendor(&pr, "default", "[Rule huge]\nName=sda\nSize=memory * memory * memory\n");
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK(run.d.error < 0);
        CHECK_INT(-ERANGE, run.d.error);
        CHECK_U64(0, run.d.target_kb);
        CHECK_STR("huge", section_of(run.d.rule));
        CHECK_VERDICT(&run, "huge", RA_VERDICT_FAILED);
        ra_facts_done(&f);

        hdd(&f, "sdb");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        ra_facts_done(&f);
        prof_done(&pr);

        prof_vendor(&pr, "default", "[Rule div]\nClass=raid\nSize=stripe / (data_disks - 3)\n");
        md_raid5(&f);
        decide(&run, &pr, &f);
        CHECK_INT(-EDOM, run.d.error);
        CHECK_U64(0, run.d.target_kb);
        CHECK_VERDICT(&run, "div", RA_VERDICT_FAILED);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_failed_rule_then_later_rule(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default",
                    "[Rule huge]\nName=sda\nSize=memory * memory * memory\n"
                    "[Rule fixed]\nName=sda\nSize=1M\n");
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "fixed");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_rule_clamps(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        /* database: raid gets max(default, chunk), at most 512K. */
        prof_vendor(&pr, "database", "");
        md_raid5(&f);
        f.chunk_bytes = MIB_BYTES(1);
        f.stripe_bytes = MIB_BYTES(3);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "raid");
        CHECK_U64(1024, run.d.rule_kb);
        CHECK_U64(512, run.d.clamped_kb);
        ra_facts_done(&f);

        ssd(&f, "nvme0n1");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 64, "ssd");
        ra_facts_done(&f);

        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 32, "disk");
        ra_facts_done(&f);
        prof_done(&pr);

        /* Rule Minimum raises a small value. */
        prof_vendor(&pr, "default", "[Rule tiny]\nName=sda\nSize=4K\nMinimum=64K\n");
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 64, "tiny");
        CHECK_U64(4, run.d.rule_kb);
        CHECK_U64(64, run.d.clamped_kb);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_profile_maximum(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        /* throughput: 4 x a 128 MiB stripe is 512 MiB; the profile stops at 128M. */
        prof_vendor(&pr, "throughput", "");
        md_raid5(&f);
        f.chunk_bytes = MIB_BYTES(32);
        f.data_disks = 4;
        f.stripe_bytes = MIB_BYTES(128);
        f.size_bytes = 1ULL << 60;     /* small-device cap 8388608 */
        f.mem_total_kb = 1ULL << 30;   /* 1 TiB: memory cap 1048576 */
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 131072, "raid");
        CHECK_U64(524288, run.d.rule_kb);
        ra_facts_done(&f);

        ssd(&f, "nvme0n1");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 4096, "ssd");
        ra_facts_done(&f);

        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "disk");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_embedded(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        /* "a 64 MiB board reads ahead 64 KiB, a 16 MiB one 32 KiB" */
        prof_vendor(&pr, "embedded", "");
        ssd(&f, "mmcblk0");
        f.transport = RA_TRANSPORT_MMC;
        f.size_bytes = GIB_BYTES(8);
        f.mem_total_kb = MIB_KB(64);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 64, "disk");
        f.mem_total_kb = MIB_KB(16);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 32, "disk");
        f.mem_total_kb = MIB_KB(1024);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 128, "disk");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_whole_pages(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "[Rule odd]\nName=sda\nSize=1234\n");
        hdd(&f, "sda");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1232, "odd");
        CHECK_U64(1234, run.d.rule_kb);

        f.page_kb = 64;
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1216, "odd");
        ra_facts_done(&f);

        /* 64 KiB pages on a tiny key: still one whole page. */
        base(&f, "sdb");
        f.page_kb = 64;
        f.class = RA_CLASS_REMOVABLE;
        f.removable = true;
        f.size_bytes = MIB_BYTES(16);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 64, "disk");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_current_variable(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "[Rule more]\nName=sda\nSize=max(current, 256K)\n");
        hdd(&f, "sda");
        f.current_kb = 1024;
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "more");

        f.current_known = false;
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "disk");
        CHECK_VERDICT(&run, "more", RA_VERDICT_NOT_APPLICABLE);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_trace_verdicts(void)
{
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

static void test_trace_small_or_absent(void)
{
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

static void test_no_rules_leaves_device_alone(void)
{
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

static void test_strings(void)
{
        CHECK_STR("no-match", ra_verdict_to_string(RA_VERDICT_NO_MATCH));
        CHECK_STR("not-applicable", ra_verdict_to_string(RA_VERDICT_NOT_APPLICABLE));
        CHECK_STR("matched", ra_verdict_to_string(RA_VERDICT_MATCHED));
        CHECK_STR("overridden", ra_verdict_to_string(RA_VERDICT_OVERRIDDEN));
        CHECK_STR("failed", ra_verdict_to_string(RA_VERDICT_FAILED));
}

/* ---- btrfs: its own bdi, decided like the disks below it -------------------- */

static void test_btrfs_default(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        btrfs_fs(&f, "single", 1, RA_CLASS_SSD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "btrfs");
        CHECK_VERDICT(&run, "disk", RA_VERDICT_NO_MATCH); /* Kind=block */
        CHECK_VERDICT(&run, "raid", RA_VERDICT_NO_MATCH);
        ra_facts_done(&f);

        /* raid10 over 8: stripe 4 x 64K = 256K, two stripes = the default. */
        btrfs_fs(&f, "raid10", 8, RA_CLASS_SSD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "raid");
        CHECK_VERDICT(&run, "btrfs", RA_VERDICT_OVERRIDDEN);
        ra_facts_done(&f);

        /* raid0 over 8: stripe 512K, 1024. */
        btrfs_fs(&f, "raid0", 8, RA_CLASS_HDD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "raid");
        ra_facts_done(&f);

        /* raid1: no stripe, the raid rule does not apply (class hdd anyway). */
        btrfs_fs(&f, "raid1", 2, RA_CLASS_HDD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "btrfs");
        ra_facts_done(&f);

        /* On RAM-backed members: left alone, like them. */
        btrfs_fs(&f, "single", 1, RA_CLASS_MEMORY);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_KEEP(&run, "memory");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_btrfs_caps(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "default", "");
        /* Small-device cap by total size, like a disk: 1 GiB -> 256. */
        btrfs_fs(&f, "single", 1, RA_CLASS_REMOVABLE);
        f.size_bytes = GIB_BYTES(1);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 256, "btrfs");
        CHECK_U64(256, run.d.device_cap_kb);
        ra_facts_done(&f);

        /* A 256 MiB host: the memory cap, 256. */
        btrfs_fs(&f, "raid0", 8, RA_CLASS_SSD);
        f.mem_total_kb = 250000;
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 256, "raid");
        CHECK_U64(1024, run.d.rule_kb);
        CHECK_U64(256, run.d.memory_cap_kb);
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_btrfs_other_profiles(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        prof_vendor(&pr, "throughput", "");
        btrfs_fs(&f, "single", 1, RA_CLASS_SSD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 4096, "ssd"); /* the members' class */
        ra_facts_done(&f);
        btrfs_fs(&f, "dup", 1, RA_CLASS_HDD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "btrfs");
        ra_facts_done(&f);
        btrfs_fs(&f, "raid10", 8, RA_CLASS_SSD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 1024, "raid"); /* max(1M, 4 x 256K) */
        ra_facts_done(&f);
        prof_done(&pr);

        prof_vendor(&pr, "database", "");
        btrfs_fs(&f, "single", 1, RA_CLASS_SSD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 64, "ssd");
        ra_facts_done(&f);
        btrfs_fs(&f, "single", 1, RA_CLASS_HDD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 32, "btrfs");
        ra_facts_done(&f);
        btrfs_fs(&f, "raid0", 4, RA_CLASS_HDD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 64, "raid"); /* max(32K, chunk 64K) */
        ra_facts_done(&f);
        prof_done(&pr);

        prof_vendor(&pr, "embedded", "");
        btrfs_fs(&f, "single", 1, RA_CLASS_SSD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 128, "btrfs");
        ra_facts_done(&f);
        prof_done(&pr);
}

static void test_btrfs_rules_by_member(void)
{
        struct prof pr;
        struct ra_facts f;
        struct run run;

        /* Rotational= and Transport= look at the members; MountPoint= and
         * FsType= at the mount. */
        prof_vendor(&pr, "default",
                    "[Rule spinning-btrfs]\nFsType=btrfs\nRotational=yes\nSize=2M\n"
                    "[Rule sata]\nKind=mount\nTransport=ata\nMountPoint=/srv/other\nSize=3M\n");
        btrfs_fs(&f, "single", 2, RA_CLASS_HDD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 2048, "spinning-btrfs");
        CHECK_VERDICT(&run, "sata", RA_VERDICT_NO_MATCH);
        (void) ra_facts_set(&f.mount_point, "/srv/other");
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 3072, "sata");
        ra_facts_done(&f);

        btrfs_fs(&f, "single", 2, RA_CLASS_SSD);
        ra_facts_classify(&f);
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 512, "btrfs");
        CHECK_VERDICT(&run, "spinning-btrfs", RA_VERDICT_NO_MATCH);
        ra_facts_done(&f);

        /* A network mount has no members: Rotational= never matches it. */
        nfs(&f, MIB_BYTES(1));
        decide(&run, &pr, &f);
        CHECK_TARGET(&run, 4096, "nfs");
        ra_facts_done(&f);
        prof_done(&pr);
}

int main(void)
{
        TEST_MAIN_BEGIN;
        RUN(test_hdd);
        RUN(test_ssd);
        RUN(test_md_raid5);
        RUN(test_md_raid1_no_stripe);
        RUN(test_missing_fact_falls_back_to_earlier_rule);
        RUN(test_zram_keep);
        RUN(test_optical_keep);
        RUN(test_removable_small_device_cap);
        RUN(test_small_memory_host);
        RUN(test_caps_switched_off);
        RUN(test_nfs);
        RUN(test_other_network_keep);
        RUN(test_name_rule_overrides_class_rule);
        RUN(test_earlier_specific_rule_loses);
        RUN(test_globs_and_properties);
        RUN(test_mount_rules);
        RUN(test_failed_size_means_no_target);
        RUN(test_failed_rule_then_later_rule);
        RUN(test_rule_clamps);
        RUN(test_profile_maximum);
        RUN(test_embedded);
        RUN(test_whole_pages);
        RUN(test_current_variable);
        RUN(test_trace_verdicts);
        RUN(test_trace_small_or_absent);
        RUN(test_no_rules_leaves_device_alone);
        RUN(test_strings);
        RUN(test_btrfs_default);
        RUN(test_btrfs_caps);
        RUN(test_btrfs_other_profiles);
        RUN(test_btrfs_rules_by_member);
        TEST_MAIN_END;
}
