/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "decide.h"
#include "devices.h"
#include "gather.h"
#include "output.h"
#include "size.h"
#include "prometheus.h"
#include "status.h"
#include "systemd.h"
#include "text.h"

bool device_drifts(const struct ctl_device *d) {
        return ra_plan_has_target(&d->plan) && d->facts.current_known &&
               d->facts.current_kb != d->plan.decision.target_kb;
}

void json_device_fields(struct json *j, const struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;
        const bool has_target = ra_plan_has_target(&d->plan);

        json_string(j, "name", f->name);
        json_string(j, "kind", f->kind == RA_KIND_BLOCK ? "block" : "mount");
        json_string(j, "class", ra_class_to_string(f->class));
        json_string(j, "transport", ra_transport_to_string(f->transport));
        json_uint(j, "major", f->major);
        json_uint(j, "minor", f->minor);
        json_boolean(j, "rotational", f->rotational);
        json_boolean(j, "removable", f->removable);
        json_uint(j, "size_bytes", f->size_bytes);
        json_uint_or_null(j, "stripe_kb", f->stripe_bytes > 0, f->stripe_bytes / 1024);
        json_boolean(j, "io_opt_ignored", f->io_opt_ignored);
        json_uint_or_null(j, "target_kb", has_target, d->plan.decision.target_kb);
        json_uint_or_null(j, "current_kb", f->current_known, f->current_kb);
        json_boolean(j, "drift", device_drifts(d));
        json_string(j, "deferred", d->plan.decision.deferred);
        if (f->kind == RA_KIND_MOUNT) {
                json_string(j, "mount_point", ra_str(f->mount_point));
                json_uint(j, "mount_points", f->n_mount_points);
                json_string(j, "fstype", ra_str(f->fstype));
                json_string(j, "source", ra_str(f->source));
                json_string(j, "server", f->server);
                json_uint_or_null(j, "rsize_bytes", f->rsize_bytes > 0, f->rsize_bytes);
                json_string(j, "nfs_version", f->nfs_version);
        }
        if (f->btrfs_fsid[0]) {
                json_string(j, "fsid", f->btrfs_fsid);
                json_string(j, "data_profile", f->data_profile[0] ? f->data_profile : NULL);
                json_uint(j, "device_count", f->n_devices);
                json_begin_array(j, "members");
                for (unsigned i = 0; i < f->n_members; i++) {
                        const struct ra_member *m = &f->members[i];
                        json_begin_object(j, NULL);
                        json_string(j, "name", m->name);
                        json_string(j, "disk", m->disk);
                        json_string(j, "class", ra_class_to_string(m->class));
                        json_string(j, "transport", ra_transport_to_string(m->transport));
                        json_uint(j, "size_bytes", m->size_bytes);
                        json_end_object(j);
                }
                json_end_array(j);
        }
        json_string(j, "rule", d->plan.rule[0] ? d->plan.rule : NULL);
        json_string(j, "rule_file", d->plan.decision.rule ? d->plan.decision.rule->file : NULL);
        json_string(j, "rule_section", d->plan.decision.rule ? d->plan.decision.rule->section : NULL);
        json_string(j, "reason", d->plan.decision.reason);
        json_boolean(j, "error", d->plan.error < 0);
}

/* A few words of what decided the class, to fit one table column. */
static void key_facts(const struct ra_facts *f, char *buf, size_t size) {
        char sz[16], st[24];

        format_bytes_short(f->size_bytes, sz);
        if (f->stripe_bytes > 0)
                snprintf(buf, size, "%s stripe %s", sz, ra_format_size_kb(f->stripe_bytes / 1024, st));
        else if (f->transport == RA_TRANSPORT_MD && f->md_level[0])
                snprintf(buf, size, "%s %s", sz, f->md_level);
        else if (f->io_opt_ignored)
                snprintf(buf, size, "%s io_opt bogus", sz);
        else
                snprintf(buf, size, "%s%s", sz, f->rotational ? " rotating" : "");
}

uint64_t host_memory_cap_kb(const struct ra_config *c, uint64_t *ret_mem_kb) {
        uint64_t mem_kb = 0;
        (void) ra_read_mem_total_kb(&mem_kb);
        *ret_mem_kb = mem_kb;
        if (!c->profile.memory_cap || mem_kb == 0)
                return 0;
        return ra_memory_cap_kb(mem_kb, c->profile.minimum_kb);
}

/* One table row; returns true when the device drifts. Strings from devices
 * and mounts are escaped and cut to their column, so a row stays one line. */
static bool print_row(const struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;
        char facts[40], target[24], current[24];
        bool drift = device_drifts(d);

        if (d->plan.error < 0)
                snprintf(target, sizeof(target), "error");
        else if (d->plan.decision.keep)
                snprintf(target, sizeof(target), "-");
        else
                ra_format_size_kb(d->plan.decision.target_kb, target);
        if (f->current_known)
                ra_format_size_kb(f->current_kb, current);
        else
                snprintf(current, sizeof(current), "?");
        if (drift)
                strcat(current, "*");

        ra_fputs_people(stdout, f->name, 8, 8);
        printf(" %-9s ", ra_class_to_string(f->class));
        if (f->kind == RA_KIND_MOUNT) {
                char rsize[24];
                ra_fputs_people(stdout, ra_str(f->fstype), 6, 6);
                fputc(' ', stdout);
                /* The mount point, cut, then rsize or btrfs's data profile:
                 * that must stay visible. */
                size_t cols = 0;
                const char *suffix = NULL;
                if (f->btrfs_fsid[0] && f->data_profile[0])
                        suffix = f->data_profile;
                else if (f->rsize_bytes >= 1024)
                        suffix = ra_format_size_kb(f->rsize_bytes / 1024, rsize);
                if (suffix) {
                        size_t room = 16 - strlen(suffix) - 1;
                        cols = ra_fputs_people(stdout, ra_str(f->mount_point), room, 0);
                        cols += (size_t) printf(" %s", suffix);
                } else
                        cols = ra_fputs_people(stdout, ra_str(f->mount_point), 16, 0);
                printf("%*s", cols < 16 ? (int) (16 - cols) : 0, "");
        } else {
                key_facts(f, facts, sizeof(facts)); /* md/level comes from sysfs */
                printf("%-6.6s ", ra_transport_to_string(f->transport));
                ra_fputs_people(stdout, facts, 16, 16);
        }
        printf(" %6s %7s  ", target, current);
        ra_fputs_people(stdout, d->plan.rule[0] ? short_rule(d->plan.rule) : "-", 21, 0);
        fputc('\n', stdout);
        return drift;
}

int verb_status(struct ctl *ctl, int argc, char **argv) {
        struct ctl_device *list = NULL;
        size_t n = 0;
        uint64_t mem_kb, cap_kb;
        int r;

        (void) argc;
        (void) argv;
        r = devices_enumerate(ctl->udev, ctl->config, &list, &n);
        if (r < 0) {
                fprintf(stderr, "readahead-ctl: cannot list block devices: %s\n", strerror(-r));
                return EXIT_FAILURE_;
        }
        cap_kb = host_memory_cap_kb(ctl->config, &mem_kb);

        /* Mount work that systemd ran for us and that failed (mount never came). */
        char **failed = NULL;
        if (systemd_failed_bdi_units(&failed) < 0)
                failed = NULL; /* status works without systemd's answer */

        if (ctl->format == FORMAT_PROMETHEUS)
                status_prometheus(stdout, list, n);
        else if (ctl->json) {
                struct json j = { .f = stdout };
                json_begin_object(&j, NULL);
                json_string(&j, "profile", ctl->config->profile.name);
                json_uint(&j, "mem_total_kb", mem_kb);
                json_uint_or_null(&j, "memory_cap_kb", cap_kb > 0, cap_kb);
                json_uint(&j, "config_errors", ctl->config->n_errors);
                json_begin_array(&j, "failed_units");
                for (char **u = failed; u && *u; u++)
                        json_string(&j, NULL, *u);
                json_end_array(&j);
                json_begin_array(&j, "devices");
                for (size_t i = 0; i < n; i++) {
                        json_begin_object(&j, NULL);
                        json_device_fields(&j, &list[i]);
                        json_end_object(&j);
                }
                json_end_array(&j);
                json_end_object(&j);
                if (json_finish(&j) < 0)
                        r = -ENOMEM;
        } else {
                char mem[16], cap[24];
                bool any_drift = false;

                printf("Profile: %s   Memory: %s   Memory cap: %s\n", ctl->config->profile.name,
                       mem_kb ? format_bytes_short(mem_kb * 1024, mem) : "unknown",
                       cap_kb ? ra_format_size_kb(cap_kb, cap) : "off");
                if (ctl->config->n_errors > 0)
                        printf("Configuration has %zu error(s): run 'readahead-ctl check'.\n",
                               ctl->config->n_errors);
                printf("\n%-8s %-9s %-6s %-16s %6s %7s  %s\n", "DEVICE", "CLASS", "BUS", "FACTS",
                       "TARGET", "CURRENT", "RULE");
                for (size_t i = 0; i < n; i++)
                        if (list[i].facts.kind == RA_KIND_BLOCK)
                                any_drift |= print_row(&list[i]);

                bool header = false;
                for (size_t i = 0; i < n; i++) {
                        if (list[i].facts.kind != RA_KIND_MOUNT)
                                continue;
                        if (!header)
                                printf("\n%-8s %-9s %-6s %-16s %6s %7s  %s\n", "BDI", "CLASS", "FSTYPE",
                                       "MOUNT", "TARGET", "CURRENT", "RULE");
                        header = true;
                        any_drift |= print_row(&list[i]);
                }
                for (char **u = failed; u && *u; u++)
                        printf("\nFailed: %s (see journalctl -u %s)", *u, *u);
                if (failed && *failed)
                        printf("\n");
                if (any_drift)
                        printf("\n* current differs from target: run 'readahead-ctl apply'.\n");
                printf("\nSizes in KiB (K), MiB (M); read_ahead_kb is kept in whole %uK pages.\n",
                       n > 0 ? list[0].facts.page_kb : 4);
        }
        strv_free(failed);
        devices_free(list, n);
        return EXIT_OK;
}
