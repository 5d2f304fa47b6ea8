/* SPDX-License-Identifier: MIT */
#include "device-json.h"
#include "status-columns.h"

void json_device_fields(struct json *j, const struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;

        json_string(j, status_columns[COL_NAME].json, f->name);
        json_string(j, status_columns[COL_KIND].json, ra_kind_to_string(f->kind));
        json_string(j, status_columns[COL_CLASS].json, ra_class_to_string(f->class));
        json_string(j, status_columns[COL_TRANSPORT].json, ra_transport_to_string(f->transport));
        json_uint(j, "major", f->major);
        json_uint(j, "minor", f->minor);
        json_boolean(j, "rotational", f->rotational);
        json_boolean(j, "removable", f->removable);
        json_boolean(j, "virtual", f->virtual_by != NULL);
        json_uint(j, status_columns[COL_SIZE].json, f->size_bytes);
        json_uint_or_null(j, status_columns[COL_STRIPE].json, f->stripe_bytes > 0, f->stripe_bytes / 1024);
        json_boolean(j, "io_opt_ignored", f->io_opt_ignored);
        status_columns_json(j, d);
        json_string(j, "deferred", d->plan.decision.deferred);
        if (f->kind == RA_KIND_MOUNT) {
                json_string(j, status_columns[COL_MOUNTPOINT].json, ra_str(f->mount_point));
                json_uint(j, "mount_points", f->n_mount_points);
                json_string(j, status_columns[COL_FSTYPE].json, ra_str(f->fstype));
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
        json_string(j, status_columns[COL_RULE].json, d->plan.rule[0] ? d->plan.rule : NULL);
        json_string(j, "rule_file", d->plan.decision.rule ? d->plan.decision.rule->file : NULL);
        json_string(j, "rule_section", d->plan.decision.rule ? d->plan.decision.rule->section : NULL);
        json_string(j, status_columns[COL_REASON].json, d->plan.decision.reason);
        json_boolean(j, "error", d->plan.error < 0);
}
