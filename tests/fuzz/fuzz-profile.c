/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to ra_profile_parse_buffer as one profile file, then decides a
 * few typical devices with whatever rules survived, checking invariants that
 * must hold for any input.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "decide.h"
#include "fuzz.h"
#include "size.h"

static struct ra_config *config;

static void check_string(const char *s, size_t size)
{
        FUZZ_ASSERT(memchr(s, '\0', size) != NULL);
}

static void check_profile(const struct ra_profile *p)
{
        check_string(p->name, sizeof(p->name));
        check_string(p->description, sizeof(p->description));
        FUZZ_ASSERT(p->n_rules <= RA_RULES_MAX);
        FUZZ_ASSERT(p->n_rules == 0 || p->rules != NULL);
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct ra_rule *r = &p->rules[i];

                check_string(r->section, sizeof(r->section));
                check_string(r->file, sizeof(r->file));
                check_string(r->names, sizeof(r->names));
                check_string(r->mount_points, sizeof(r->mount_points));
                check_string(r->fstypes, sizeof(r->fstypes));
                check_string(r->servers, sizeof(r->servers));
                check_string(r->nfs_versions, sizeof(r->nfs_versions));
                check_string(r->size_text, sizeof(r->size_text));
                FUZZ_ASSERT(r->n_props <= RA_RULE_PROPS_MAX);
                for (unsigned j = 0; j < r->n_props; j++) {
                        check_string(r->props[j].key, sizeof(r->props[j].key));
                        check_string(r->props[j].glob, sizeof(r->props[j].glob));
                }
                FUZZ_ASSERT(r->size.n_ops <= RA_EXPR_MAX_OPS);
                FUZZ_ASSERT(r->line > 0);
        }
}

static void facts_common(struct ra_facts *f, const char *name)
{
        ra_facts_init(f);
        snprintf(f->name, sizeof(f->name), "%s", name);
        f->page_kb = 4;
        f->mem_total_kb = 16777216;
        f->current_kb = 128;
        f->current_known = true;
}

static void decide_and_check(const struct ra_profile *p, const struct ra_facts *f)
{
        struct ra_rule_trace trace[8];
        struct ra_decision d;
        int r;

        r = ra_decide(p, f, &d, trace, sizeof(trace) / sizeof(trace[0]));
        if (r < 0)
                return;
        check_string(d.reason, sizeof(d.reason));
        if (d.error < 0 || d.keep || !d.rule)
                return;
        /* Whatever the rules say, the result is whole pages within bounds. */
        FUZZ_ASSERT(d.target_kb >= f->page_kb);
        FUZZ_ASSERT(d.target_kb % f->page_kb == 0);
        FUZZ_ASSERT(d.target_kb <= RA_SIZE_MAX_KB);
        /* 16 GiB of RAM: the memory cap is 16384 unless the floor is higher. */
        if (p->memory_cap && p->minimum_kb <= 16384)
                FUZZ_ASSERT(d.target_kb <= 16384);
        FUZZ_ASSERT(d.rule >= p->rules && d.rule < p->rules + p->n_rules);
}

static void decide_some(const struct ra_profile *p)
{
        struct ra_facts f;

        facts_common(&f, "sda");
        f.kind = RA_KIND_BLOCK;
        f.class = RA_CLASS_HDD;
        f.transport = RA_TRANSPORT_ATA;
        f.rotational = true;
        f.size_bytes = 1000204886016ULL;
        ra_facts_add_prop(&f, "ID_BUS", "ata");
        ra_facts_add_prop(&f, "ID_SERIAL", "WDC_WD10EZEX-00BN5A0_WD-WCC3F1234567");
        decide_and_check(p, &f);
        ra_facts_done(&f);

        facts_common(&f, "md0");
        f.kind = RA_KIND_BLOCK;
        f.class = RA_CLASS_RAID;
        f.transport = RA_TRANSPORT_MD;
        f.size_bytes = 3000614658048ULL;
        f.chunk_bytes = 512 * 1024;
        f.data_disks = 3;
        f.stripe_bytes = 1536 * 1024;
        f.stripe_source = "md";
        decide_and_check(p, &f);
        ra_facts_done(&f);

        facts_common(&f, "sdb");
        f.kind = RA_KIND_BLOCK;
        f.class = RA_CLASS_REMOVABLE;
        f.transport = RA_TRANSPORT_USB;
        f.removable = true;
        f.size_bytes = 505000;
        f.page_kb = 64;
        decide_and_check(p, &f);
        ra_facts_done(&f);

        facts_common(&f, "0:53");
        f.kind = RA_KIND_MOUNT;
        f.class = RA_CLASS_NFS;
        f.transport = RA_TRANSPORT_NETWORK;
        f.rsize_bytes = 1024 * 1024;
        f.current_known = false;
        ra_facts_set(&f.mount_point, "/srv/media");
        ra_facts_set(&f.fstype, "nfs4");
        ra_facts_set(&f.server, "nas.example");
        ra_facts_set(&f.nfs_version, "4.2");
        decide_and_check(p, &f);
        ra_facts_done(&f);
}

/* The vendor default profile, as the file a drop-in amends. */
static const char base[] = "[Profile]\n"
                           "Default=512K\n"
                           "Minimum=32K\n"
                           "Maximum=128M\n"
                           "[Rule disk]\n"
                           "Kind=block\n"
                           "Size=default\n"
                           "[Rule raid]\n"
                           "Class=raid\n"
                           "Size=max(default, 2 * stripe)\n"
                           "[Rule memory]\n"
                           "Class=memory\n"
                           "Size=keep\n"
                           "[Rule nfs]\n"
                           "Class=nfs\n"
                           "Size=max(default, 4 * rsize)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct ra_profile p;
        size_t n_base;
        int r;

        /* A fresh configuration each time; ra_config_free releases what
         * parse_buffer grew (diagnostics). */
        config = calloc(1, sizeof(*config));
        if (!config)
                abort();

        ra_profile_init(&p);
        (void)ra_profile_parse_buffer(config, &p, "/fuzz/profiles/fuzz.conf", (const char *)data,
                                      size);

        FUZZ_ASSERT(config->n_diags <= RA_DIAGS_MAX);
        for (size_t i = 0; i < config->n_diags; i++) {
                check_string(config->diags[i].file, sizeof(config->diags[i].file));
                check_string(config->diags[i].message, sizeof(config->diags[i].message));
        }
        check_profile(&p);
        decide_some(&p);

        ra_profile_done(&p);

        /* The same bytes as a drop-in over the base profile: a file dropped
         * whole must leave the base exactly as it was; one whose rules were
         * dropped keeps every base rule (amended ones as they were). */
        ra_profile_init(&p);
        FUZZ_ASSERT(ra_profile_parse_buffer(config, &p, "/fuzz/profiles/base.conf", base,
                                            sizeof(base) - 1) == 0);
        n_base = p.n_rules;
        r = ra_profile_parse_buffer(config, &p, "/fuzz/profiles/base.conf.d/fuzz.conf",
                                    (const char *)data, size);
        if (r < 0) {
                FUZZ_ASSERT(p.n_rules == n_base);
                FUZZ_ASSERT(p.default_kb == 512);
                FUZZ_ASSERT(strcmp(p.rules[1].size_text, "max(default, 2 * stripe)") == 0);
        } else {
                FUZZ_ASSERT(p.n_rules >= n_base);
        }
        check_profile(&p);
        decide_some(&p);
        ra_profile_done(&p);

        config = ra_config_free(config);
        return 0;
}
