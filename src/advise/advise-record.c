/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise-record.h"
#include "config.h"
#include "fileio.h"
#include "state-file.h"
#include "text.h"

static int record_path(const char *root, char *buf, size_t size, const char *suffix) {
        int n = snprintf(buf, size, "%s/run/readahead-agent/advice%s", root, suffix);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static bool known_class(const char *s) {
        for (int c = 0; c < _RA_CLASS_MAX; c++)
                if (strcmp(s, ra_class_to_string((enum ra_class) c)) == 0)
                        return true;
        return false;
}

static bool copy_field(char *dst, size_t size, const char *src) {
        size_t len = strlen(src);
        if (len == 0 || len >= size)
                return false;
        memcpy(dst, src, len + 1);
        return true;
}

static bool parse_line(char *line, struct ra_advice_record *ret) {
        char *field[8], *save = NULL, *end;
        size_t n = 0;
        struct ra_advice_record r = {};

        /* six fields, the seventh (held_kb) and eighth (raise_base_kib_s)
         * since each was added */
        char *t = strtok_r(line, "\t", &save);
        for (; t && n < 8; t = strtok_r(NULL, "\t", &save))
                field[n++] = t;
        if (n < 6 || t) /* t: a field past the last */
                return false;
        if (!copy_field(r.name, sizeof(r.name), field[0]) || !copy_field(r.kind, sizeof(r.kind), field[1]) ||
            !copy_field(r.class, sizeof(r.class), field[2]))
                return false;
        if (!ra_text_is_clean_field(r.name) || ra_kind_from_string(r.kind) < 0 ||
            !known_class(r.class))
                return false;
        long g = strtol(field[3], &end, 10);
        if (*end || g < -1 || g > 1)
                return false;
        r.gauge = (int) g;
        if (ra_parse_u64(field[4], &r.suggested_kb) < 0 || r.suggested_kb > UINT64_MAX / 1024)
                return false;
        uint64_t made;
        if (ra_parse_u64(field[5], &made) < 0 || made > INT64_MAX)
                return false;
        r.made = (int64_t) made;
        if (n >= 7 && ra_parse_u64(field[6], &r.held_kb) < 0)
                return false;
        if (n == 8 && ra_parse_u64(field[7], &r.raise_base_kib_s) < 0)
                return false;
        *ret = r;
        return true;
}

/* Adds r, or replaces the record of its device: one series per device. */
static void records_put(struct ra_advice_record *list, size_t *n, const struct ra_advice_record *r) {
        for (size_t i = 0; i < *n; i++)
                if (strcmp(list[i].name, r->name) == 0) {
                        list[i] = *r;
                        return;
                }
        if (*n < RA_ADVICE_RECORDS_MAX)
                list[(*n)++] = *r;
}

static int load_path(const char *path, struct ra_advice_record **ret, size_t *ret_n) {
        char *text = NULL;
        size_t len, n = 0;
        int r = ra_state_read(path, RA_ADVICE_RECORD_BYTES_MAX, &text, &len);

        *ret = NULL;
        *ret_n = 0;
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        struct ra_advice_record *list = calloc(RA_ADVICE_RECORDS_MAX, sizeof(*list));
        if (!list) {
                free(text);
                return -ENOMEM;
        }
        /* A NUL inside ends the text there: what follows is not ours. */
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                struct ra_advice_record rec;
                if (parse_line(line, &rec))
                        records_put(list, &n, &rec);
        }
        free(text);
        *ret = list;
        *ret_n = n;
        return 0;
}

int ra_advice_records_load(const char *root, struct ra_advice_record **ret, size_t *ret_n) {
        char path[RA_PATH_MAX];
        int r = record_path(root, path, sizeof(path), "");

        *ret = NULL;
        *ret_n = 0;
        return r < 0 ? r : load_path(path, ret, ret_n);
}

/* The list to save, for ra_state_replace(). */
struct record_list {
        const struct ra_advice_record *r;
        size_t n;
};

static int print_records(FILE *f, const void *data) {
        const struct record_list *l = data;
        for (size_t i = 0; i < l->n; i++)
                fprintf(f, "%s\t%s\t%s\t%d\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\n", l->r[i].name,
                        l->r[i].kind, l->r[i].class, l->r[i].gauge, l->r[i].suggested_kb, l->r[i].made,
                        l->r[i].held_kb, l->r[i].raise_base_kib_s);
        return 0;
}

int ra_advice_records_save(const struct ra_config *c, const struct ra_advice_record *r, size_t n,
                           const char *const *watched, size_t n_watched) {
        char path[RA_PATH_MAX], lock[RA_PATH_MAX];
        struct ra_advice_record *list = NULL;
        size_t n_list = 0;
        int lock_fd, ret;

        if (c->root_refused)
                return -ENAMETOOLONG;
        if (record_path(c->root, path, sizeof(path), "") < 0 ||
            record_path(c->root, lock, sizeof(lock), ".lock") < 0)
                return -ENAMETOOLONG;
        /* One run at a time reads, merges and replaces the record; each
         * writes its own temporary file. */
        lock_fd = ra_state_lock(lock);
        if (lock_fd < 0)
                return lock_fd;
        /* The devices this run did not watch keep their advice. An unreadable
         * old record is replaced. */
        if (load_path(path, &list, &n_list) < 0 || !list) {
                free(list);
                n_list = 0;
                list = calloc(RA_ADVICE_RECORDS_MAX, sizeof(*list));
                if (!list) {
                        close(lock_fd);
                        return -ENOMEM;
                }
        }
        size_t kept = 0;
        for (size_t i = 0; i < n_list; i++) {
                bool mine = false;
                for (size_t k = 0; k < n_watched && !mine; k++)
                        mine = strcmp(list[i].name, watched[k]) == 0;
                if (!mine)
                        list[kept++] = list[i];
        }
        n_list = kept;
        for (size_t i = 0; i < n; i++)
                if (ra_text_is_clean_field(r[i].name))
                        records_put(list, &n_list, &r[i]);
        ret = ra_state_replace(path, print_records, &(struct record_list){ list, n_list });
        free(list);
        close(lock_fd); /* releases the lock */
        return ret;
}

bool ra_advice_record_of(const struct ra_facts *f, const struct ra_advice *a, bool held, int64_t now,
                         struct ra_advice_record *ret) {
        int v;

        if (!ra_advice_to_gauge(a->kind, &v))
                return false;
        *ret = (struct ra_advice_record){ .gauge = v, .suggested_kb = a->suggested_kb, .made = now };
        /* a lower holds its value; a keep there goes on holding it */
        if (a->kind == RA_ADVICE_LOWER)
                ret->held_kb = a->suggested_kb;
        else if (a->kind == RA_ADVICE_KEEP && held)
                ret->held_kb = f->current_kb;
        /* a raise and the keeps at its value: the rate before the raise */
        if (a->kind == RA_ADVICE_RAISE || a->kind == RA_ADVICE_KEEP)
                ret->raise_base_kib_s = a->raise_base_kib_s;
        snprintf(ret->name, sizeof(ret->name), "%s", f->name);
        snprintf(ret->kind, sizeof(ret->kind), "%s", ra_kind_to_string(f->kind));
        snprintf(ret->class, sizeof(ret->class), "%s", ra_class_to_string(f->class));
        return true;
}

/* f's record, or NULL: one per device (records_put). */
static const struct ra_advice_record *record_of_device(const struct ra_advice_record *r, size_t n,
                                                       const struct ra_facts *f) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(r[i].name, f->name) == 0)
                        return &r[i];
        return NULL;
}

bool ra_advice_records_held(const struct ra_advice_record *r, size_t n, const struct ra_facts *f) {
        const struct ra_advice_record *d = record_of_device(r, n, f);
        return d && d->held_kb && d->held_kb == f->current_kb;
}

uint64_t ra_advice_records_raised_from(const struct ra_advice_record *r, size_t n, const struct ra_facts *f) {
        const struct ra_advice_record *d = record_of_device(r, n, f);
        return d && d->suggested_kb == f->current_kb ? d->raise_base_kib_s : 0;
}
