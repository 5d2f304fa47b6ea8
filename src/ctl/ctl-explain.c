/* SPDX-License-Identifier: MIT */
#include <blkid.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "advise-tune.h"
#include "ctl.h"
#include "decide.h"
#include "device-json.h"
#include "devices.h"
#include "drift.h"
#include "nfsrahead.h"
#include "output.h"
#include "size.h"
#include "text.h"

/*
 * What is on the disk, from libblkid: sysfs cannot say. Opened read-only
 * (a write-close would make udev synthesize a change event).
 */
static void probe_content(const char *devnode, char *type, size_t type_size, char *pttype,
                          size_t pttype_size) {
        const char *v;

        type[0] = pttype[0] = 0;
        blkid_probe pr = blkid_new_probe_from_filename(devnode);
        if (!pr)
                return;
        blkid_probe_enable_superblocks(pr, 1);
        blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
        blkid_probe_enable_partitions(pr, 1);
        if (blkid_do_safeprobe(pr) == 0) {
                if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
                        snprintf(type, type_size, "%s", v);
                if (blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) == 0)
                        snprintf(pttype, pttype_size, "%s", v);
        }
        blkid_free_probe(pr);
}

static const char *yes_no(bool b) {
        return b ? "yes" : "no";
}

/* "  label          value", the value escaped for the terminal. */
static void fact_line(const char *label, const char *value, const char *suffix) {
        printf("  %-14s ", label);
        ra_fputs_people(stdout, value);
        printf("%s\n", suffix);
}

/* A btrfs filesystem: what it is made of. */
static void explain_btrfs(const struct ra_facts *f) {
        char a[24], b[24], sz[16];

        printf("  %-14s %s\n", "fsid", f->btrfs_fsid);
        printf("  %-14s %s over %u device(s)\n", "data profile",
               f->data_profile[0] ? f->data_profile : "unknown", f->n_devices);
        printf("  %-14s %s (%" PRIu64 " bytes, all members)\n", "size",
               format_bytes_short(f->size_bytes, sz), f->size_bytes);
        for (unsigned i = 0; i < f->n_members; i++) {
                const struct ra_member *m = &f->members[i];
                char disk[48] = "";
                if (strcmp(m->disk, m->name) != 0)
                        snprintf(disk, sizeof(disk), " on %s", m->disk);
                printf("  %-14s %s%s: %s, %s, %s\n", i == 0 ? "members" : "", m->name, disk,
                       ra_class_to_string(m->class), ra_transport_to_string(m->transport),
                       format_bytes_short(m->size_bytes, sz));
        }
        if (f->n_devices > f->n_members)
                printf("  %-14s and %u more\n", "", f->n_devices - f->n_members);
        if (f->stripe_bytes > 0)
                printf("  %-14s %s = %s x %u data disks (%s)\n", "stripe",
                       ra_format_size_kb(f->stripe_bytes / 1024, a),
                       ra_format_size_kb(f->chunk_bytes / 1024, b), f->data_disks, f->stripe_source);
}

/* Which mechanism explains a current value other than the target. */
static void drift_of(struct ctl *ctl, const struct ctl_device *d, struct ra_drift *ret) {
        const struct ra_facts *f = &d->facts;
        const bool has_target = ra_plan_has_target(&d->plan);
        uint64_t nfs_kb = f->class == RA_CLASS_NFS ? nfsrahead_kb(ctl->root, f->fstype) : 0;

        ra_drift_explain(f, has_target ? d->plan.decision.target_kb : 0, nfs_kb, ret);
}

/* A mount's facts: where, what, from where. */
static void explain_mount_facts(const struct ra_facts *f) {
        char a[24];

        fact_line("mount point", ra_str(f->mount_point),
                  f->n_mount_points > 1 ? " (and more, same superblock)" : "");
        fact_line("fstype", ra_str(f->fstype), "");
        fact_line("source", ra_str(f->source), "");
        if (f->server)
                fact_line("server", f->server, "");
        if (f->nfs_version)
                fact_line("NFS version", f->nfs_version, "");
        if (f->btrfs_fsid[0])
                explain_btrfs(f);
        else
                printf("  %-14s %s\n", "rsize",
                       f->rsize_bytes ? ra_format_size_kb(f->rsize_bytes / 1024, a) : "unknown");
}

/* A disk's facts: its queue, what it is stacked on, what is on it. */
static void explain_block_facts(const struct ra_facts *f, const char *content, const char *pttype) {
        char a[24], b[24], sz[16];

        printf("  %-14s %s\n", "rotational", yes_no(f->rotational));
        printf("  %-14s %s\n", "removable", yes_no(f->removable));
        if (f->virtual_by)
                printf("  %-14s yes (%s: rotational is the hypervisor's default, not the medium's)\n",
                       "virtual", f->virtual_by);
        else
                printf("  %-14s no\n", "virtual");
        printf("  %-14s %s (%" PRIu64 " bytes)\n", "size", format_bytes_short(f->size_bytes, sz),
               f->size_bytes);
        printf("  %-14s %" PRIu64 " / %" PRIu64 " bytes%s\n", "io_min/io_opt", f->io_min_bytes,
               f->io_opt_bytes,
               f->io_opt_one_unit  ? " (io_opt one block: no stripe)"
               : f->io_opt_ignored ? " (io_opt ignored: not a stripe)"
                                   : "");
        if (f->md_level[0]) {
                printf("  %-14s ", "md");
                ra_fputs_people(stdout, f->md_level);
                printf(", %u disks, layout %u\n", f->md_raid_disks, f->md_layout);
        }
        if (f->dm_target[0])
                printf("  %-14s %s\n", "dm", f->dm_target);
        if (f->slaves)
                fact_line("stacked on", f->slaves, "");
        if (f->stripe_bytes > 0)
                printf("  %-14s %s = chunk %s x %u data disks (%s)\n", "stripe",
                       ra_format_size_kb(f->stripe_bytes / 1024, a),
                       ra_format_size_kb(f->chunk_bytes / 1024, b), f->data_disks, f->stripe_source);
        if (content[0] || pttype[0]) {
                printf("  %-14s ", "content");
                ra_fputs_people(stdout, content);
                printf("%s", content[0] && pttype[0] ? ", " : "");
                ra_fputs_people(stdout, pttype);
                printf("\n");
        }
}

/* "Facts:": what decide() is given. */
static void explain_facts(const struct ra_facts *f, const char *content, const char *pttype) {
        char a[24], sz[16];

        printf("Device ");
        ra_fputs_people(stdout, f->name);
        printf(" (%s, %u:%u)\n\nFacts:\n", ra_kind_to_string(f->kind), f->major,
               f->minor);
        printf("  %-14s %s\n", "class", ra_class_to_string(f->class));
        printf("  %-14s %s\n", "transport", ra_transport_to_string(f->transport));
        if (f->kind == RA_KIND_MOUNT)
                explain_mount_facts(f);
        else
                explain_block_facts(f, content, pttype);
        printf("  %-14s %s\n", "host memory",
               f->mem_total_kb ? format_bytes_short(f->mem_total_kb * 1024, sz) : "unknown");
        printf("  %-14s %s\n", "current", f->current_known ? ra_format_size_kb(f->current_kb, a) : "?");
        if (f->invalid) {
                /* Refused numbers: say which, or "unknown" above would hide them. */
                printf("  %-14s", "refused");
                for (unsigned i = 0; i < _RA_FACT_MAX; i++)
                        if (f->invalid & (1u << i))
                                printf(" %s", ra_fact_to_string((enum ra_fact) i));
                printf(": not a number or out of range, treated as unknown\n");
        }
}

/* The profile and each rule's verdict, in the order decide() tried them. */
static void explain_rules(const struct ra_profile *p, const struct ra_rule_trace *trace) {
        char a[24], b[24], c[24];

        printf("\nProfile %s: default %s, minimum %s, maximum %s\n", p->name,
               ra_format_size_kb(p->default_kb, a), ra_format_size_kb(p->minimum_kb, b),
               ra_format_size_kb(p->maximum_kb, c));
        printf("Rules, in order (the last match wins):\n");
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct ra_rule_trace *t = &trace[i];
                printf("  %-16s %-14s ", t->rule->section, ra_verdict_to_string(t->verdict));
                ra_fputs_people(stdout, short_rule(t->rule->file));
                printf(":%u\n    ", t->rule->line);
                ra_fputs_people(stdout, t->why);
                printf("\n");
        }
}

/* One cap: its value and basis, and whether it lowered the value; "n/a" when
 * the profile has it but it has no value for this device, "off" when not. */
static void cap_line(const char *label, uint64_t cap_kb, const char *basis, bool enabled,
                     uint64_t clamped_kb) {
        char a[24];

        if (cap_kb)
                printf("  %-14s %s (%s)%s\n", label, ra_format_size_kb(cap_kb, a), basis,
                       cap_kb < clamped_kb ? ": applied" : "");
        else
                printf("  %-14s %s\n", label, enabled ? "n/a" : "off");
}

/* The agent's state for a device it tuned (Tune=yes). */
static bool tuned_state(struct ctl *ctl, const struct ctl_device *d, struct ra_tune_state *ret) {
        struct ra_plan again = d->plan;
        again.decision.target_kb = again.profile_kb;
        again.tuned = false;
        return d->plan.tuned &&
               ra_tune_plan(&again, &ctl->config->profile, &d->facts, ctl->config->root, NULL, 0, ret);
}

/* The outcome, and why the kernel holds another value if it does. */
static void explain_result(struct ctl *ctl, const struct ctl_device *d) {
        const struct ra_decision *dec = &d->plan.decision;
        struct ra_drift drift;
        char a[24], b[24];

        printf("\nResult: ");
        if (d->plan.error < 0)
                printf("error, nothing is written (");
        else if (dec->keep)
                printf("left alone (");
        else {
                printf("%s from ", ra_format_size_kb(dec->target_kb, a));
                ra_fputs_people(stdout, d->plan.rule);
                printf(" (");
        }
        ra_fputs_people(stdout, dec->reason);
        printf(")%s\n", !dec->keep && device_drifts(d) ? "; current differs" : "");

        struct ra_tune_state tune;
        bool tuned = tuned_state(ctl, d, &tune);
        if (tuned && tune.hand_kb == dec->target_kb) {
                printf("Held: %s was written by someone else; the agent keeps it (Tune=yes) until the next boot "
                       "or 'readahead-ctl apply', which goes back to the rule's %s.\n",
                       ra_format_size_kb(dec->target_kb, a), ra_format_size_kb(d->plan.profile_kb, b));
        } else if (tuned) {
                char when[64];
                time_t t = (time_t) tune.changed;
                struct tm tm;
                strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime_r(&t, &tm));
                printf("Tuned: %s since %s, by the agent (Tune=yes): ", ra_format_size_kb(dec->target_kb, a), when);
                ra_fputs_people(stdout, tune.reason);
                printf(".\n'readahead-ctl apply' goes back to the rule's %s; tuning then starts again from there.\n",
                       ra_format_size_kb(d->plan.profile_kb, b));
        }

        drift_of(ctl, d, &drift);
        if (drift.cause != RA_DRIFT_NONE)
                printf("Current %s, not %s: %s.\n", ra_format_size_kb(d->facts.current_kb, a),
                       ra_format_size_kb(dec->target_kb, b), drift.why);
        if (dec->deferred && drift.cause != RA_DRIFT_NONE)
                printf("Not written now: %s; the next change event writes it.\n", dec->deferred);
}

static void explain_text(struct ctl *ctl, const struct ctl_device *d, const char *content,
                         const char *pttype) {
        const struct ra_profile *p = &ctl->config->profile;
        const struct ra_decision *dec = &d->plan.decision;

        explain_facts(&d->facts, content, pttype);
        explain_rules(p, d->trace);
        printf("\nCaps:\n");
        cap_line("memory cap", dec->memory_cap_kb, "1K per MiB of RAM", p->memory_cap, dec->clamped_kb);
        cap_line("device cap", dec->device_cap_kb, "small device", p->small_device_cap, dec->clamped_kb);
        explain_result(ctl, d);
}

static int explain_json(struct ctl *ctl, const struct ctl_device *d, const char *content,
                        const char *pttype) {
        const struct ra_facts *f = &d->facts;
        const struct ra_profile *p = &ctl->config->profile;
        struct json j = { .f = stdout };

        json_begin_object(&j, NULL);
        json_begin_object(&j, "device");
        json_device_fields(&j, d);
        json_end_object(&j);

        json_begin_object(&j, "facts");
        json_uint(&j, "io_min_bytes", f->io_min_bytes);
        json_uint(&j, "io_opt_bytes", f->io_opt_bytes);
        json_uint(&j, "physical_block_bytes", f->physical_block_bytes);
        json_uint_or_null(&j, "chunk_kb", f->chunk_bytes > 0, f->chunk_bytes / 1024);
        json_uint_or_null(&j, "data_disks", f->data_disks > 0, f->data_disks);
        json_string(&j, "stripe_source", f->stripe_source);
        json_string(&j, "md_level", f->md_level[0] ? f->md_level : NULL);
        json_uint_or_null(&j, "md_raid_disks", f->md_raid_disks > 0, f->md_raid_disks);
        json_string(&j, "dm_target", f->dm_target[0] ? f->dm_target : NULL);
        json_string(&j, "stacked_on", f->slaves);
        json_string(&j, "content", content[0] ? content : NULL);
        json_string(&j, "partition_table", pttype[0] ? pttype : NULL);
        json_uint(&j, "mem_total_kb", f->mem_total_kb);
        json_uint(&j, "page_kb", f->page_kb);
        json_begin_array(&j, "refused");
        for (unsigned i = 0; i < _RA_FACT_MAX; i++)
                if (f->invalid & (1u << i))
                        json_string(&j, NULL, ra_fact_to_string((enum ra_fact) i));
        json_end_array(&j);
        json_end_object(&j);

        json_string(&j, "profile", p->name);
        json_begin_array(&j, "rules");
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct ra_rule_trace *t = &d->trace[i];
                json_begin_object(&j, NULL);
                json_string(&j, "section", t->rule->section);
                json_string(&j, "file", t->rule->file);
                json_uint(&j, "line", t->rule->line);
                json_string(&j, "verdict", ra_verdict_to_string(t->verdict));
                json_string(&j, "why", t->why);
                json_uint_or_null(&j, "value_kb",
                                  t->verdict == RA_VERDICT_MATCHED || t->verdict == RA_VERDICT_OVERRIDDEN,
                                  t->value_kb);
                json_end_object(&j);
        }
        json_end_array(&j);

        json_begin_object(&j, "caps");
        json_uint_or_null(&j, "memory_cap_kb", d->plan.decision.memory_cap_kb > 0, d->plan.decision.memory_cap_kb);
        json_uint_or_null(&j, "device_cap_kb", d->plan.decision.device_cap_kb > 0, d->plan.decision.device_cap_kb);
        json_end_object(&j);

        const bool has_target = ra_plan_has_target(&d->plan);
        json_uint_or_null(&j, "rule_kb", has_target, d->plan.decision.rule_kb);
        json_uint_or_null(&j, "target_kb", has_target, d->plan.decision.target_kb);
        struct ra_tune_state tune;
        if (tuned_state(ctl, d, &tune)) {
                json_begin_object(&j, "tuned");
                json_uint(&j, "profile_kb", d->plan.profile_kb);
                json_boolean(&j, "by_hand", tune.hand_kb == d->plan.decision.target_kb);
                json_uint(&j, "changed", (uint64_t) tune.changed);
                json_string(&j, "reason", tune.reason);
                json_end_object(&j);
        } else
                json_string(&j, "tuned", NULL);

        struct ra_drift drift;
        drift_of(ctl, d, &drift);
        if (drift.cause == RA_DRIFT_NONE)
                json_string(&j, "drift_cause", NULL);
        else {
                json_begin_object(&j, "drift_cause");
                json_string(&j, "cause", ra_drift_cause_to_string(drift.cause));
                json_uint_or_null(&j, "explained_kb", drift.explained_kb > 0, drift.explained_kb);
                json_string(&j, "why", drift.why);
                json_end_object(&j);
        }
        json_end_object(&j);
        return json_finish(&j);
}

int verb_explain(struct ctl *ctl, int argc, char **argv) {
        struct ctl_device d;
        char content[64], pttype[32], devnode[RA_PATH_MAX];
        int r;

        (void) argc;
        r = device_find(ctl->udev, ctl->config, argv[0], &d);
        if (r < 0) {
                ctl_error("explain", "%s: %s", argv[0], device_find_strerror(r));
                return EXIT_FAILURE;
        }
        snprintf(devnode, sizeof(devnode), "/dev/%s", d.facts.name);
        probe_content(devnode, content, sizeof(content), pttype, sizeof(pttype));

        r = 0;
        if (ctl->json)
                r = explain_json(ctl, &d, content, pttype);
        else
                explain_text(ctl, &d, content, pttype);
        device_done(&d);
        return r < 0 ? EXIT_FAILURE : EXIT_OK;
}
