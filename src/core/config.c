/* SPDX-License-Identifier: MIT */
/*
 * The configuration: readahead.conf picks a profile, profiles/NAME.conf
 * holds it, each with its drop-ins. conf-files.c finds the files, conf-parse.c
 * reads them; this file puts the two together and keeps the diagnostics.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-files.h"
#include "config-internal.h"
#include "text.h"

#define DEFAULT_PROFILE "default"

/* Arrays grow in small steps because the agent usually needs none at all. */
void *ra_config_append(void **array, size_t *n, size_t max, size_t elem_size) {
        if (*n >= max)
                return NULL;
        if (*n % 8 == 0) {
                void *a = realloc(*array, (*n + 8) * elem_size);
                if (!a)
                        return NULL;
                *array = a;
        }
        void *e = (char *) *array + (*n)++ * elem_size;
        memset(e, 0, elem_size);
        return e;
}

void ra_config_diag(struct ra_config *c, enum ra_diag_level level, const char *file, unsigned line,
                    const char *fmt, ...) {
        if (level == RA_DIAG_ERROR)
                c->n_errors++;
        struct ra_diag *d = ra_config_append((void **) &c->diags, &c->n_diags, RA_DIAGS_MAX, sizeof(*d));
        va_list ap;

        if (!d)
                return;
        d->level = level;
        d->line = line;
        ra_str_join(d->file, sizeof(d->file), file, NULL);
        va_start(ap, fmt);
        vsnprintf(d->message, sizeof(d->message), fmt, ap);
        va_end(ap);
        ra_utf8_trim_cut(d->message); /* a quoted value may be cut mid-character */
}

/* FNV-1a, 64 bits: enough to tell one configuration from the next. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len) {
        const unsigned char *p = data;
        for (size_t i = 0; i < len; i++)
                h = (h ^ p[i]) * UINT64_C(0x100000001b3);
        return h;
}

uint64_t ra_config_fingerprint(const struct ra_config *c) {
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        for (size_t i = 0; i < c->n_files; i++) {
                const struct ra_config_file *f = &c->files[i];
                uint64_t nums[] = { f->state, f->dev, f->ino, f->size, f->mtime_ns };
                h = fnv1a(h, f->path, strlen(f->path) + 1);
                h = fnv1a(h, nums, sizeof(nums));
        }
        for (size_t i = 0; i < c->n_diags; i++) {
                const struct ra_diag *d = &c->diags[i];
                uint64_t nums[] = { d->level, d->line };
                h = fnv1a(h, d->file, strlen(d->file) + 1);
                h = fnv1a(h, d->message, strlen(d->message) + 1);
                h = fnv1a(h, nums, sizeof(nums));
        }
        return fnv1a(h, &c->n_errors, sizeof(c->n_errors));
}

static int parse_profile_cb(struct ra_config *c, void *target, const char *path, const char *buf,
                            size_t len) {
        return ra_profile_parse_buffer(c, target, path, buf, len);
}

static int parse_agent_cb(struct ra_config *c, void *target, const char *path, const char *buf,
                          size_t len) {
        return ra_agent_parse_buffer(c, target, path, buf, len);
}

const char *ra_config_profile_problem(const struct ra_config *c, char *buf, size_t size) {
        const char *what;

        switch (c->profile_state) {
        case RA_PROFILE_MASKED:
                what = "' is masked: devices are left alone";
                break;
        case RA_PROFILE_NOT_FOUND:
                what = "' not found: devices are left alone";
                break;
        case RA_PROFILE_BROKEN:
                what = "' has errors in every file of its name: devices are left alone";
                break;
        default:
                return NULL;
        }
        ra_str_join(buf, size, "profile '", c->profile.name, what, NULL);
        return buf;
}

const char *ra_diag_where(const struct ra_diag *d, char *buf, size_t size) {
        if (d->line == 0)
                ra_str_join(buf, size, d->file, NULL);
        else
                snprintf(buf, size, "%s:%u", d->file, d->line);
        return buf;
}

/* The active profile and its drop-ins, unless it is masked or missing: a
 * profile that is not there switches the agent off, drop-ins and all, as
 * the message says (drop-ins alone would make a profile of built-in
 * defaults that nobody wrote). */
static int load_profile(struct ra_config *c) {
        const char *name = c->agent.profile;
        char rel[RA_PATH_MAX], text[RA_PROFILE_NAME_MAX + 64];

        ra_str_join(c->profile.name, sizeof(c->profile.name), name, NULL);
        ra_str_join(rel, sizeof(rel), "profiles/", name, ".conf", NULL);
        size_t first = c->n_files;
        int r = ra_conf_files_read(c, rel, false, parse_profile_cb, &c->profile);
        if (r < 0)
                return r;
        if (r == RA_CONF_USED) {
                c->profile_state = RA_PROFILE_FOUND;
                return ra_conf_files_read_dropins(c, rel, parse_profile_cb, &c->profile);
        }
        c->profile_state = r == RA_CONF_MASKED ? RA_PROFILE_MASKED : RA_PROFILE_NOT_FOUND;
        if (r == RA_CONF_NONE && c->n_files > first)
                c->profile_state = RA_PROFILE_BROKEN; /* each file's errors are reported already */
        ra_config_profile_problem(c, text, sizeof(text));
        /* Blame the line that named it, if a file did. */
        if (c->profile_state == RA_PROFILE_NOT_FOUND && c->agent.profile_file[0])
                ra_config_diag(c, RA_DIAG_ERROR, c->agent.profile_file, c->agent.profile_line, "%s", text);
        else
                ra_config_diag(c, c->profile_state == RA_PROFILE_MASKED ? RA_DIAG_WARNING : RA_DIAG_ERROR, rel,
                               0, "%s", text);
        return 0;
}

int ra_root_check(const char *root) {
        return root && strlen(root) > RA_ROOT_MAX ? -ENAMETOOLONG : 0;
}

int ra_config_load(const char *root, struct ra_config **ret) {
        struct ra_config *c = calloc(1, sizeof(*c));
        int r;

        if (!c)
                return -ENOMEM;
        ra_profile_init(&c->profile);
        c->profile_state = RA_PROFILE_NOT_FOUND; /* until it is read */
        c->agent = (struct ra_agent_settings){
                .profile = DEFAULT_PROFILE,
                .mount_wait_sec = RA_MOUNT_WAIT_SEC_DEFAULT,
        };
        ra_str_join(c->profile.name, sizeof(c->profile.name), c->agent.profile, NULL);
        if (ra_root_check(root) < 0) {
                /* Configuration paths below it could not be read whole. */
                c->root_refused = true;
                ra_config_diag(c, RA_DIAG_ERROR, root, 0,
                               "configuration root longer than %d bytes: devices are left alone", RA_ROOT_MAX);
                *ret = c;
                return 0;
        }
        if (root && strcmp(root, "/") != 0)
                ra_str_join(c->root, sizeof(c->root), root, NULL);

        r = ra_conf_files_read(c, "readahead.conf", false, parse_agent_cb, &c->agent);
        if (r >= 0)
                r = ra_conf_files_read_dropins(c, "readahead.conf", parse_agent_cb, &c->agent);
        if (r >= 0)
                r = load_profile(c);
        if (r < 0) {
                ra_config_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

struct ra_config *ra_config_free(struct ra_config *c) {
        if (c) {
                ra_profile_done(&c->profile);
                free(c->files);
                free(c->diags);
                free(c);
        }
        return NULL;
}

int ra_profile_property_keys(const struct ra_profile *p, const char ***ret, size_t *ret_n) {
        const char **keys = NULL;
        size_t n = 0, total = 0;

        for (size_t i = 0; i < p->n_rules; i++)
                total += p->rules[i].n_props;
        if (total > 0) {
                keys = malloc(total * sizeof(*keys));
                if (!keys)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < p->n_rules; i++)
                for (unsigned j = 0; j < p->rules[i].n_props; j++) {
                        const char *key = p->rules[i].props[j].key;
                        bool seen = false;
                        for (size_t k = 0; k < n && !seen; k++)
                                seen = strcmp(keys[k], key) == 0;
                        if (!seen)
                                keys[n++] = key;
                }
        *ret = keys;
        *ret_n = n;
        return 0;
}
