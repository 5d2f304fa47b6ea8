/* SPDX-License-Identifier: MIT */
/*
 * The tuning states' file (advise-tune.h): one line per device, fields
 * separated by tabs: key, tuned KiB, previous KiB, direction, stepped back
 * (0/1), changed, windows, measure, measure before, the recent changes'
 * times (comma-separated), avoid KiB, avoid until, hand KiB, boot id ("-"
 * for none), reason, worse windows, raise windows.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise-tune.h"
#include "fileio.h"
#include "state-file.h"
#include "text.h"

#define FIELDS 17
/* Bounds of what the agent writes: KiB as a profile may give (1G), times
 * until the year 36812, windows of a year at one a second. */
#define KB_MAX      (UINT64_C(1) << 20)
#define TIME_MAX    (INT64_C(1) << 40)
#define WINDOWS_MAX (1U << 25)

static int tune_path(const char *root, char *buf, size_t size, const char *suffix) {
        int n = snprintf(buf, size, "%s/var/lib/readahead-agent/tune%s", root, suffix);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static bool u64_field(const char *s, uint64_t max, uint64_t *ret) {
        uint64_t v;
        if (ra_parse_u64(s, &v) < 0 || v > max)
                return false;
        *ret = v;
        return true;
}

static bool time_field(const char *s, int64_t *ret) {
        uint64_t v;
        if (!u64_field(s, (uint64_t) TIME_MAX, &v))
                return false;
        *ret = (int64_t) v;
        return true;
}

static bool text_field(const char *s, char *dst, size_t size) {
        size_t len = strlen(s);
        if (len >= size || !ra_text_is_clean_field(s))
                return false;
        memcpy(dst, s, len + 1);
        return true;
}

static bool boot_id_field(const char *s, char *dst, size_t size) {
        if (strcmp(s, "-") == 0) {
                dst[0] = 0;
                return true;
        }
        if (strspn(s, "0123456789abcdef-") != strlen(s))
                return false;
        return text_field(s, dst, size);
}

bool ra_tune_state_parse(char *line, struct ra_tune_state *ret) {
        char *field[FIELDS + 1], *save = NULL, *end;
        struct ra_tune_state s = {};
        uint64_t v;
        size_t n = 0;

        for (char *t = strtok_r(line, "\t", &save); t && n <= FIELDS; t = strtok_r(NULL, "\t", &save))
                field[n++] = t;
        if (n != FIELDS)
                return false;
        if (!text_field(field[0], s.key, sizeof(s.key)) || !u64_field(field[1], KB_MAX, &s.tuned_kb) ||
            !u64_field(field[2], KB_MAX, &s.previous_kb))
                return false;
        if (strcmp(field[3], "-1") == 0)
                s.direction = -1;
        else if (!u64_field(field[3], 1, &v))
                return false;
        else
                s.direction = (int) v;
        if (!u64_field(field[4], 1, &v))
                return false;
        s.stepped_back = v;
        if (!time_field(field[5], &s.changed) || !u64_field(field[6], WINDOWS_MAX, &v))
                return false;
        s.windows = (unsigned) v;
        if (!u64_field(field[7], _RA_TUNE_MEASURE_MAX - 1, &v))
                return false;
        s.measure = (enum ra_tune_measure) v;
        errno = 0;
        s.measure_before = strtod(field[8], &end);
        if (*end || errno || field[8][0] < '0' || field[8][0] > '9' || !isfinite(s.measure_before) ||
            s.measure_before > 1e15)
                return false;
        size_t k = 0;
        char *times_save = NULL;
        for (char *t = strtok_r(field[9], ",", &times_save); t; t = strtok_r(NULL, ",", &times_save)) {
                if (k >= RA_TUNE_CHANGES_PER_HOUR || !time_field(t, &s.recent[k]))
                        return false;
                k++;
        }
        if (!u64_field(field[10], KB_MAX, &s.avoid_kb) || !time_field(field[11], &s.avoid_until) ||
            !u64_field(field[12], KB_MAX, &s.hand_kb) || !boot_id_field(field[13], s.boot_id, sizeof(s.boot_id)) ||
            !text_field(field[14], s.reason, sizeof(s.reason)))
                return false;
        if (!u64_field(field[15], RA_TUNE_JUDGE_WINDOWS, &v))
                return false;
        s.worse_windows = (unsigned) v;
        if (!u64_field(field[16], RA_TUNE_JUDGE_WINDOWS, &v))
                return false;
        s.raise_windows = (unsigned) v;
        /* a step has a value and a direction, and nothing is held without a boot */
        if ((s.direction != 0) != (s.tuned_kb != 0) || (s.hand_kb && !s.boot_id[0]))
                return false;
        *ret = s;
        return true;
}

int ra_tune_lock(const char *root) {
        char lock[RA_PATH_MAX];

        if (tune_path(root, lock, sizeof(lock), ".lock") < 0)
                return -ENAMETOOLONG;
        return ra_state_lock(lock);
}

void ra_tune_unlock(int fd) {
        if (fd >= 0)
                close(fd); /* releases the lock */
}

struct ra_tune_state *ra_tune_state_find(struct ra_tune_state *s, size_t n, const char *key) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(s[i].key, key) == 0)
                        return &s[i];
        return NULL;
}

int ra_tune_states_load(const char *root, struct ra_tune_state **ret, size_t *ret_n) {
        char path[RA_PATH_MAX], *text = NULL;
        size_t len = 0, n = 0;
        int r;

        *ret = NULL;
        *ret_n = 0;
        if (tune_path(root, path, sizeof(path), "") < 0)
                return -ENAMETOOLONG;
        r = ra_state_read(path, RA_TUNE_STATE_BYTES_MAX, &text, &len);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        struct ra_tune_state *s = calloc(RA_TUNE_STATES_MAX, sizeof(*s));
        if (!s) {
                free(text);
                return -ENOMEM;
        }
        for (char *line = text, *next; line && *line && n < RA_TUNE_STATES_MAX; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                struct ra_tune_state one;
                if (!ra_tune_state_parse(line, &one))
                        continue;
                /* of two lines for one key, the later */
                struct ra_tune_state *known = ra_tune_state_find(s, n, one.key);
                *(known ? known : &s[n++]) = one;
        }
        free(text);
        *ret = s;
        *ret_n = n;
        return 0;
}

/* The states to save, for ra_state_replace(). */
struct state_list {
        const struct ra_tune_state *s;
        size_t n;
};

static int print_states(FILE *f, const void *data) {
        const struct state_list *l = data;
        for (size_t i = 0; i < l->n; i++) {
                const struct ra_tune_state *s = &l->s[i];
                if (!ra_text_is_clean_field(s->key))
                        continue;
                fprintf(f, "%s\t%" PRIu64 "\t%" PRIu64 "\t%d\t%d\t%" PRId64 "\t%u\t%d\t%.6g\t", s->key, s->tuned_kb,
                        s->previous_kb, s->direction, s->stepped_back, s->changed, s->windows, (int) s->measure,
                        s->measure_before);
                for (size_t k = 0; k < RA_TUNE_CHANGES_PER_HOUR; k++)
                        fprintf(f, "%s%" PRId64, k ? "," : "", s->recent[k]);
                /* the reason is the advice's own text: never a tab or a line break */
                fprintf(f, "\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%s\t%s\t%u\t%u\n", s->avoid_kb,
                        s->avoid_until, s->hand_kb, s->boot_id[0] ? s->boot_id : "-",
                        ra_text_is_clean_field(s->reason) ? s->reason : "-", s->worse_windows, s->raise_windows);
        }
        return 0;
}

int ra_tune_states_save(const char *root, const struct ra_tune_state *s, size_t n) {
        char path[RA_PATH_MAX];

        if (tune_path(root, path, sizeof(path), "") < 0)
                return -ENAMETOOLONG;
        return ra_state_replace(path, print_states,
                                &(struct state_list){ s, n < RA_TUNE_STATES_MAX ? n : RA_TUNE_STATES_MAX });
}

int ra_tune_states_forget(const char *root, const char *const *keys, size_t n_keys) {
        struct ra_tune_state *s = NULL;
        size_t n = 0, kept = 0;
        int lock = ra_tune_lock(root), r;

        if (lock < 0)
                return lock;
        r = ra_tune_states_load(root, &s, &n);
        if (r == 0 && n > 0) {
                for (size_t i = 0; i < n; i++) {
                        bool forget = false;
                        for (size_t k = 0; k < n_keys && !forget; k++)
                                forget = strcmp(s[i].key, keys[k]) == 0;
                        if (!forget)
                                s[kept++] = s[i];
                }
                if (kept < n)
                        r = ra_tune_states_save(root, s, kept);
        }
        free(s);
        ra_tune_unlock(lock);
        return r;
}
