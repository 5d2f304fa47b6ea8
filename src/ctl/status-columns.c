/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* asprintf, strncasecmp */
#include <libsmartcols.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ctl.h"
#include "kernel-ra.h"
#include "size.h"
#include "status-columns.h"

/* A column's table part: name, width, flags, shown by default, help. */
#define TEXT(n, w, fl, def, h) .name = n, .width_hint = w, .flags = fl, .in_default = def, .help = h
/* A text column's field of --json's device objects, where it has one. */
#define JSON(j) .json = j
/* A value column's: its type, --json field, Prometheus gauge and its help. */
#define VALUE(type, j, m, h) .value = type, .json = j, .metric = m, .metric_help = h

const struct status_column status_columns[_COL_MAX] = {
        [COL_NAME] = { TEXT("NAME", 8, SCOLS_FL_NOEXTREMES, true,
                            "kernel name of a disk, bdi of a mount (0:53, btrfs-1)"),
                       JSON("name") },
        [COL_KIND] = { TEXT("KIND", 5, 0, false, "block or mount"),
                       JSON("kind") },
        [COL_CLASS] = { TEXT("CLASS", 9, 0, true,
                             "hdd, ssd, raid, removable, memory, optical, nfs, netfs, fuse"),
                        JSON("class") },
        [COL_BUS] = { TEXT("BUS", 6, 0, true, "transport of a disk, filesystem type of a mount") },
        [COL_TRANSPORT] = { TEXT("TRANSPORT", 6, 0, false,
                                 "transport: ata, nvme, usb, md, dm, network, ..."),
                            JSON("transport") },
        [COL_FSTYPE] = { TEXT("FSTYPE", 6, 0, false, "filesystem type of a mount"),
                         JSON("fstype") },
        [COL_FACTS] = { TEXT("FACTS", 16, SCOLS_FL_TRUNC, true,
                             "what decided the class (size, stripe, md level); a mount's mount point "
                             "and rsize or data profile") },
        [COL_MOUNTPOINT] = { TEXT("MOUNTPOINT", 16, SCOLS_FL_TRUNC, false, "first mount point of a mount"),
                             JSON("mount_point") },
        [COL_SIZE] = { TEXT("SIZE", 6, SCOLS_FL_RIGHT, false, "size"),
                       JSON("size_bytes") },
        [COL_STRIPE] = { TEXT("STRIPE", 6, SCOLS_FL_RIGHT, false, "trusted stripe"),
                         JSON("stripe_kb") },
        [COL_TARGET] = { TEXT("TARGET", 6, SCOLS_FL_RIGHT, true,
                              "read_ahead_kb the profile gives (-: left alone)"),
                         VALUE(VALUE_KB, "target_kb", "readahead_target_bytes",
                               "read_ahead_kb the active profile chooses, in bytes (absent: left alone)") },
        [COL_CURRENT] = { TEXT("CURRENT", 7, SCOLS_FL_RIGHT, true,
                               "read_ahead_kb the kernel holds (*: drift, ?: unknown)"),
                          VALUE(VALUE_KB, "current_kb", "readahead_current_bytes",
                                "read_ahead_kb the kernel holds now, in bytes") },
        [COL_DRIFT] = { TEXT("DRIFT", 5, 0, false,
                             "yes when the kernel holds another value than the target"),
                        VALUE(VALUE_BOOL, "drift", "readahead_drift",
                              "1 when the kernel holds another value than the target") },
        [COL_KERNEL] = { TEXT("KERNEL", 6, SCOLS_FL_RIGHT, false,
                              "read_ahead_kb the kernel itself gives (what reset puts back)"),
                         VALUE(VALUE_KB, "kernel_kb", "readahead_kernel_bytes",
                               "read_ahead_kb the kernel itself gives, in bytes (what reset puts back)") },
        [COL_RULE] = { TEXT("RULE", 21, SCOLS_FL_TRUNC, true, "file:section of the rule that decided"),
                       JSON("rule") },
        [COL_REASON] = { TEXT("REASON", 24, SCOLS_FL_TRUNC, false, "why, in words"),
                         JSON("reason") },
        [COL_MAJMIN] = { TEXT("MAJ:MIN", 6, 0, false, "device number") },
};

int status_column_by_name(const char *name, size_t len) {
        for (size_t i = 0; i < _COL_MAX; i++)
                if (strlen(status_columns[i].name) == len &&
                    strncasecmp(status_columns[i].name, name, len) == 0)
                        return (int) i;
        return -1;
}

void status_list_columns(void) {
        for (size_t i = 0; i < _COL_MAX; i++) {
                const struct status_column *c = &status_columns[i];
                printf("%s %s %s\n", c->name, c->json ? c->json : "-", c->metric ? c->metric : "-");
        }
}

const char *status_default_columns(char *buf, size_t size) {
        size_t len = 0;

        buf[0] = 0;
        for (size_t i = 0; i < _COL_MAX && len < size; i++)
                if (status_columns[i].in_default) {
                        int w = snprintf(buf + len, size - len, "%s%s", len ? "," : "",
                                         status_columns[i].name);
                        len = w < 0 ? size : len + (size_t) w;
                }
        return buf;
}

bool status_column_value(const struct ctl_device *d, enum column_id id, uint64_t *ret) {
        switch (id) {
        case COL_TARGET:
                *ret = d->plan.decision.target_kb;
                return ra_plan_has_target(&d->plan);
        case COL_CURRENT:
                *ret = d->facts.current_kb;
                return d->facts.current_known;
        case COL_DRIFT:
                *ret = device_drifts(d);
                return true;
        case COL_KERNEL: {
                struct ra_kernel_value k;
                ra_kernel_value(&d->facts, &k);
                *ret = k.kb;
                return d->facts.attr_path != NULL; /* no bdi of its own: none */
        }
        default:
                return false;
        }
}

void status_columns_json(struct json *j, const struct ctl_device *d) {
        for (size_t i = 0; i < _COL_MAX; i++) {
                const struct status_column *c = &status_columns[i];
                uint64_t v = 0;
                bool known = status_column_value(d, (enum column_id) i, &v);

                if (c->value == VALUE_KB)
                        json_uint_or_null(j, c->json, known, v);
                else if (c->value == VALUE_BOOL)
                        json_boolean(j, c->json, v != 0);
        }
}

/* A few words of what decided the class, to fit one table column. */
static void key_facts(const struct ra_facts *f, char *buf, size_t size) {
        char sz[16], st[24];

        format_bytes_short(f->size_bytes, sz);
        if (f->stripe_bytes > 0)
                snprintf(buf, size, "%s stripe %s", sz, ra_format_size_kb(f->stripe_bytes / 1024, st));
        else if (f->transport == RA_TRANSPORT_MD && f->md_level[0])
                snprintf(buf, size, "%s %s", sz, f->md_level);
        else if (f->io_opt_ignored && !f->io_opt_one_unit)
                snprintf(buf, size, "%s io_opt bogus", sz);
        else
                snprintf(buf, size, "%s%s", sz,
                         f->virtual_by   ? " virtual"
                         : f->rotational ? " rotating"
                                         : "");
}

const char *status_column_text(const struct ctl_device *d, enum column_id id, char *buf, size_t size,
                               char **alloc) {
        const struct ra_facts *f = &d->facts;
        const bool mount = f->kind == RA_KIND_MOUNT;
        char a[24], b[24];

        switch (id) {
        case COL_NAME:
                return f->name;
        case COL_KIND:
                return ra_kind_to_string(f->kind);
        case COL_CLASS:
                return ra_class_to_string(f->class);
        case COL_BUS:
                return mount ? ra_str(f->fstype) : ra_transport_to_string(f->transport);
        case COL_TRANSPORT:
                return ra_transport_to_string(f->transport);
        case COL_FSTYPE:
                return ra_str(f->fstype);
        case COL_FACTS:
                if (!mount) {
                        key_facts(f, buf, size);
                        return buf;
                }
                /* The mount point, then rsize or btrfs's data profile. */
                const char *suffix = NULL;
                if (f->btrfs_fsid[0] && f->data_profile[0])
                        suffix = f->data_profile;
                else if (f->rsize_bytes >= 1024)
                        suffix = ra_format_size_kb(f->rsize_bytes / 1024, a);
                if (!suffix)
                        return ra_str(f->mount_point);
                if (asprintf(alloc, "%s %s", ra_str(f->mount_point), suffix) < 0) {
                        *alloc = NULL;
                        return NULL;
                }
                return *alloc;
        case COL_MOUNTPOINT:
                return ra_str(f->mount_point);
        case COL_SIZE:
                return f->size_bytes > 0 ? format_bytes_short(f->size_bytes, buf) : "";
        case COL_STRIPE:
                return f->stripe_bytes > 0 ? ra_format_size_kb(f->stripe_bytes / 1024, buf) : "";
        case COL_TARGET:
                if (d->plan.error < 0)
                        return "error";
                if (d->plan.decision.keep)
                        return "-";
                return ra_format_size_kb(d->plan.decision.target_kb, buf);
        case COL_CURRENT:
                snprintf(buf, size, "%s%s", f->current_known ? ra_format_size_kb(f->current_kb, b) : "?",
                         device_drifts(d) ? "*" : "");
                return buf;
        case COL_DRIFT:
                return device_drifts(d) ? "yes" : "no";
        case COL_KERNEL: {
                uint64_t kb;
                return status_column_value(d, id, &kb) ? ra_format_size_kb(kb, buf) : "-";
        }
        case COL_RULE:
                return d->plan.rule[0] ? short_rule(d->plan.rule) : "-";
        case COL_REASON:
                return ra_str(d->plan.decision.reason);
        case COL_MAJMIN:
                snprintf(buf, size, "%u:%u", f->major, f->minor);
                return buf;
        case _COL_MAX:
                break;
        }
        return "";
}
