/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "enum-name.h"
#include "size.h"
#include "text.h"

static const char *const verdict_names[] = {
        [RA_VERDICT_NO_MATCH] = "no-match",   [RA_VERDICT_NOT_APPLICABLE] = "not-applicable",
        [RA_VERDICT_MATCHED] = "matched",     [RA_VERDICT_OVERRIDDEN] = "overridden",
        [RA_VERDICT_FAILED] = "failed",
};

const char *ra_verdict_to_string(enum ra_verdict v) {
        return RA_ENUM_NAME(verdict_names, v);
}

uint64_t ra_memory_cap_kb(uint64_t mem_total_kb, uint64_t floor_kb) {
        uint64_t per_mib = mem_total_kb / 1024 + (mem_total_kb % 1024 != 0), cap = 1;

        while (cap < per_mib)
                cap <<= 1; /* per_mib <= 2^54: no overflow */
        if (floor_kb < RA_MEMORY_CAP_MIN_KB)
                floor_kb = RA_MEMORY_CAP_MIN_KB;
        return cap < floor_kb ? floor_kb : cap;
}

uint64_t ra_small_device_cap_kb(uint64_t size_bytes) {
        uint64_t units = size_bytes / (256 * 1024); /* 256 KiB units */
        unsigned log2 = 0;

        if (size_bytes == 0)
                return 0;
        if (units == 0)
                return 4;
        while (units >> (log2 + 1))
                log2++;
        return UINT64_C(4) << (log2 / 2);
}

uint64_t ra_round_to_pages_kb(uint64_t kb, unsigned page_kb) {
        if (page_kb == 0)
                page_kb = 4;
        kb -= kb % page_kb;
        return kb < page_kb ? page_kb : kb;
}

static bool glob_list_match(const char *globs, const char *s) {
        char buf[RA_MATCH_MAX], *save = NULL;

        ra_str_join(buf, sizeof(buf), globs, NULL);
        for (char *g = strtok_r(buf, " \t", &save); g; g = strtok_r(NULL, " \t", &save))
                if (fnmatch(g, s, 0) == 0)
                        return true;
        return false;
}

/* Returns true when r matches f; otherwise why says what did not. */
static bool rule_matches(const struct ra_rule *r, const struct ra_facts *f, char *why, size_t size) {
        const bool is_block = f->kind == RA_KIND_BLOCK;
        /* A btrfs filesystem rotates or is removable when a member is; a
         * mount on no disk (a network mount) is neither. */
        const bool has_disks = is_block || f->n_members > 0;
        const bool rotational = has_disks && f->rotational, removable = has_disks && f->removable;

        if (r->kind >= 0 && r->kind != (int) f->kind) {
                ra_str_join(why, size, "kind is ", ra_kind_to_string(f->kind), NULL);
                return false;
        }
        if (r->classes && !(r->classes & (1u << f->class))) {
                ra_str_join(why, size, "class is ", ra_class_to_string(f->class), NULL);
                return false;
        }
        if (r->transports && !(r->transports & (1u << f->transport))) {
                ra_str_join(why, size, "transport is ", ra_transport_to_string(f->transport), NULL);
                return false;
        }
        if (r->rotational >= 0 && r->rotational != rotational) {
                ra_str_join(why, size, "rotational is ", rotational ? "yes" : "no", NULL);
                return false;
        }
        if (r->removable >= 0 && r->removable != removable) {
                ra_str_join(why, size, "removable is ", removable ? "yes" : "no", NULL);
                return false;
        }
        if (r->virtual_disk >= 0 && r->virtual_disk != (f->virtual_by != NULL)) {
                ra_str_join(why, size, "virtual is ", f->virtual_by ? "yes" : "no", NULL);
                return false;
        }
        if (r->names[0] && !glob_list_match(r->names, f->name)) {
                ra_str_join(why, size, "name ", f->name, " is not ", r->names, NULL);
                return false;
        }

        const struct {
                const char *key, *globs, *value;
        } mount_keys[] = {
                { "mount point", r->mount_points, ra_str(f->mount_point) },
                { "fstype", r->fstypes, ra_str(f->fstype) },
                { "server", r->servers, ra_str(f->server) },
                { "NFS version", r->nfs_versions, ra_str(f->nfs_version) },
        };
        for (size_t i = 0; i < sizeof(mount_keys) / sizeof(mount_keys[0]); i++) {
                if (!mount_keys[i].globs[0])
                        continue;
                if (!mount_keys[i].value[0]) {
                        ra_str_join(why, size, "no ", mount_keys[i].key, NULL);
                        return false;
                }
                if (!glob_list_match(mount_keys[i].globs, mount_keys[i].value)) {
                        ra_str_join(why, size, mount_keys[i].key, " ", mount_keys[i].value, " is not ",
                                    mount_keys[i].globs, NULL);
                        return false;
                }
        }

        for (unsigned i = 0; i < r->n_props; i++) {
                const char *v = ra_facts_get_prop(f, r->props[i].key);
                if (!v) {
                        ra_str_join(why, size, "property ", r->props[i].key, " is not set", NULL);
                        return false;
                }
                if (fnmatch(r->props[i].glob, v, 0) != 0) {
                        ra_str_join(why, size, r->props[i].key, "=", v, " is not ", r->props[i].glob, NULL);
                        return false;
                }
        }
        return true;
}

static void vars_for(const struct ra_profile *p, const struct ra_facts *f, struct ra_vars *v) {
        *v = (struct ra_vars){};
#define SET(var, val)                                                                              \
        do {                                                                                       \
                v->value[var] = (val);                                                             \
                v->known |= 1u << (var);                                                           \
        } while (0)
        SET(RA_VAR_DEFAULT, p->default_kb);
        SET(RA_VAR_MINIMUM, p->minimum_kb);
        if (f->stripe_bytes > 0) {
                SET(RA_VAR_STRIPE, f->stripe_bytes / 1024);
                if (f->data_disks > 0)
                        SET(RA_VAR_DATA_DISKS, f->data_disks);
        }
        if (f->chunk_bytes > 0)
                SET(RA_VAR_CHUNK, f->chunk_bytes / 1024);
        if (f->io_opt_bytes > 0 && !f->io_opt_ignored)
                SET(RA_VAR_IO_OPT, f->io_opt_bytes / 1024);
        if (f->io_min_bytes > 0)
                SET(RA_VAR_IO_MIN, f->io_min_bytes / 1024);
        if (f->rsize_bytes > 0)
                SET(RA_VAR_RSIZE, f->rsize_bytes / 1024);
        if (f->size_bytes > 0)
                SET(RA_VAR_SIZE, f->size_bytes / 1024);
        if (f->mem_total_kb > 0)
                SET(RA_VAR_MEMORY, f->mem_total_kb);
        if (f->current_known)
                SET(RA_VAR_CURRENT, f->current_kb);
#undef SET
}

/*
 * A rule that matched: what its Size= gives this device, as the verdict,
 * value and why in t. Returns the evaluation error when the verdict is
 * FAILED, else 0.
 */
static int rule_size(const struct ra_rule *r, const struct ra_vars *vars, struct ra_rule_trace *t) {
        enum ra_var missing = 0;
        char size[24];

        if (r->keep) {
                t->verdict = RA_VERDICT_MATCHED;
                ra_str_join(t->why, sizeof(t->why), "Size=keep: leave the kernel's value", NULL);
                return 0;
        }
        int e = ra_expr_eval(&r->size, vars, &t->value_kb, &missing);
        if (e == -ENODATA) {
                t->verdict = RA_VERDICT_NOT_APPLICABLE;
                snprintf(t->why, sizeof(t->why), "needs %s, unknown for this device",
                         ra_var_to_string(missing));
                return 0;
        }
        if (e < 0) {
                /* Blame the file that set Size=, often a drop-in. */
                const char *slash = strrchr(r->size_file, '/');
                t->verdict = RA_VERDICT_FAILED;
                snprintf(t->why, sizeof(t->why), "Size=%s (%s:%u): %s", r->size_text,
                         slash ? slash + 1 : r->size_file, r->size_line,
                         e == -EDOM ? "division by zero" : "value out of range");
                return e;
        }
        t->verdict = RA_VERDICT_MATCHED;
        ra_str_join(t->why, sizeof(t->why), "Size=", r->size_text, " = ",
                    ra_format_size_kb(t->value_kb, size), NULL);
        return 0;
}

/* Tries every rule in order, each traced (in trace[i], or in scratch past
 * trace_size); the last that matches and applies decides d. */
static void pick_rule(const struct ra_profile *p, const struct ra_facts *f, const struct ra_vars *vars,
                      struct ra_decision *d, struct ra_rule_trace *trace, size_t trace_size) {
        struct ra_rule_trace *winner_trace = NULL, scratch;

        for (size_t i = 0; i < p->n_rules; i++) {
                const struct ra_rule *r = &p->rules[i];
                struct ra_rule_trace *t = i < trace_size ? &trace[i] : &scratch;

                *t = (struct ra_rule_trace){ .rule = r, .verdict = RA_VERDICT_NO_MATCH };
                if (!rule_matches(r, f, t->why, sizeof(t->why))) {
                        /* Values quoted from devices may be cut mid-character. */
                        ra_utf8_trim_cut(t->why);
                        continue;
                }
                int e = rule_size(r, vars, t);
                if (t->verdict == RA_VERDICT_NOT_APPLICABLE)
                        continue;

                if (winner_trace)
                        winner_trace->verdict = RA_VERDICT_OVERRIDDEN;
                winner_trace = t == &scratch ? NULL : t;
                d->rule = r;
                d->keep = r->keep;
                d->error = e;
                d->rule_kb = t->value_kb;
                ra_utf8_trim_cut(t->why);
                ra_str_join(d->reason, sizeof(d->reason), t->why, NULL);
        }
        ra_utf8_trim_cut(d->reason);
}

/* Each limit that changes the value adds its clause to the reason. */
static void reason_add(struct ra_decision *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason_add(struct ra_decision *d, const char *fmt, ...) {
        size_t l = strlen(d->reason);
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(d->reason + l, sizeof(d->reason) - l, fmt, ap);
        va_end(ap);
}

/* The winning rule's value through its limits, the profile's and the caps,
 * to whole pages: the target. */
static void limit_value(const struct ra_profile *p, const struct ra_facts *f, struct ra_decision *d) {
        const struct ra_rule *r = d->rule;
        uint64_t v = d->rule_kb;
        char a[24];

        if (r->min_kb && v < r->min_kb)
                v = r->min_kb;
        if (r->max_kb && v > r->max_kb)
                v = r->max_kb;
        if (v < p->minimum_kb)
                v = p->minimum_kb;
        if (v > p->maximum_kb)
                v = p->maximum_kb;
        d->clamped_kb = v;
        if (v != d->rule_kb)
                reason_add(d, ", clamped to %s", ra_format_size_kb(v, a));

        if (p->memory_cap && f->mem_total_kb > 0) {
                d->memory_cap_kb = ra_memory_cap_kb(f->mem_total_kb, p->minimum_kb);
                if (d->memory_cap_kb < v) {
                        v = d->memory_cap_kb;
                        reason_add(d, ", memory cap %s", ra_format_size_kb(v, a));
                }
        }
        /* Disks, and filesystems on disks (btrfs: its total size); a network
         * mount has no size. */
        if (p->small_device_cap && f->size_bytes > 0) {
                d->device_cap_kb = ra_small_device_cap_kb(f->size_bytes);
                if (d->device_cap_kb < v) {
                        v = d->device_cap_kb;
                        reason_add(d, ", small-device cap %s", ra_format_size_kb(v, a));
                }
        }

        d->target_kb = ra_round_to_pages_kb(v, f->page_kb);
        if (d->target_kb != v)
                reason_add(d, ", %s in whole %uK pages", ra_format_size_kb(d->target_kb, a), f->page_kb);
}

int ra_decide(const struct ra_profile *p, const struct ra_facts *f, struct ra_decision *ret,
              struct ra_rule_trace *trace, size_t trace_size) {
        struct ra_decision d = { .keep = true };
        struct ra_vars vars;

        vars_for(p, f, &vars);
        ra_str_join(d.reason, sizeof(d.reason), "no rule matched", NULL);
        pick_rule(p, f, &vars, &d, trace, trace_size);

        if (d.error < 0 || d.keep || !d.rule) {
                d.keep = d.error == 0;
                *ret = d;
                return d.error;
        }
        limit_value(p, f, &d);
        d.deferred = f->write_blocked;
        *ret = d;
        return 0;
}
