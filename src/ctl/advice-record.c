/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advice-record.h"
#include "config.h"
#include "dropin.h"
#include "prometheus.h"

static int record_path(const char *root, char *buf, size_t size, const char *suffix) {
        int n = snprintf(buf, size, "%s/run/readahead-agent/advice%s", root, suffix);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

/* A name the line format can carry: no tab, no line break, not empty. */
static bool fits_line(const char *s) {
        return *s && !strpbrk(s, "\t\r\n");
}

int advice_records_save(const char *root, const struct advice_record *r, size_t n) {
        char path[RA_PATH_MAX], tmp[RA_PATH_MAX];
        int fd, ret;

        if (record_path(root, path, sizeof(path), "") < 0 || record_path(root, tmp, sizeof(tmp), ".new") < 0)
                return -ENAMETOOLONG;
        ret = mkdir_parents(tmp);
        if (ret < 0)
                return ret;
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        FILE *f = fdopen(fd, "w");
        if (!f) {
                ret = -errno;
                close(fd);
                unlink(tmp);
                return ret;
        }
        for (size_t i = 0; i < n; i++)
                if (fits_line(r[i].name))
                        fprintf(f, "%s\t%s\t%s\t%d\t%" PRIu64 "\t%" PRId64 "\n", r[i].name, r[i].kind, r[i].class,
                                r[i].gauge, r[i].suggested_kb, r[i].made);
        if (fflush(f) != 0 || ferror(f))
                ret = -errno ?: -EIO;
        if (fclose(f) != 0 && ret == 0)
                ret = -errno;
        if (ret == 0 && rename(tmp, path) < 0)
                ret = -errno;
        if (ret < 0)
                unlink(tmp);
        return ret;
}

static bool copy_field(char *dst, size_t size, const char *src) {
        size_t len = strlen(src);
        if (len == 0 || len >= size)
                return false;
        memcpy(dst, src, len + 1);
        return true;
}

static bool parse_line(char *line, struct advice_record *ret) {
        char *field[6], *save = NULL, *end;
        size_t n = 0;
        struct advice_record r = {};

        for (char *t = strtok_r(line, "\t", &save); t && n < 6; t = strtok_r(NULL, "\t", &save))
                field[n++] = t;
        if (n != 6 || strtok_r(NULL, "\t", &save))
                return false;
        if (!copy_field(r.name, sizeof(r.name), field[0]) || !copy_field(r.kind, sizeof(r.kind), field[1]) ||
            !copy_field(r.class, sizeof(r.class), field[2]))
                return false;
        long g = strtol(field[3], &end, 10);
        if (*end || g < -1 || g > 1)
                return false;
        r.gauge = (int) g;
        errno = 0;
        r.suggested_kb = strtoull(field[4], &end, 10);
        if (*end || errno || field[4][0] == '-')
                return false;
        r.made = strtoll(field[5], &end, 10);
        if (*end || errno)
                return false;
        *ret = r;
        return true;
}

int advice_records_load(const char *root, struct advice_record **ret, size_t *ret_n) {
        char path[RA_PATH_MAX], *line = NULL;
        size_t cap = 0, n = 0;
        struct advice_record *r = NULL;
        int err = record_path(root, path, sizeof(path), "");

        *ret = NULL;
        *ret_n = 0;
        if (err < 0)
                return err;
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        r = calloc(ADVICE_RECORDS_MAX, sizeof(*r));
        if (!r) {
                fclose(f);
                return -ENOMEM;
        }
        ssize_t len;
        while (n < ADVICE_RECORDS_MAX && (len = getline(&line, &cap, f)) >= 0) {
                if (len > 0 && line[len - 1] == '\n')
                        line[len - 1] = 0;
                if (parse_line(line, &r[n]))
                        n++;
        }
        free(line);
        fclose(f);
        *ret = r;
        *ret_n = n;
        return 0;
}

void advice_prometheus(FILE *out, const struct advice_record *r, size_t n) {
        static const struct {
                const char *name, *help;
        } metrics[] = {
                { "readahead_advice", "readahead-ctl advise's last advice: 1 raise, 0 keep, -1 lower (absent: no signal)" },
                { "readahead_advice_suggested_bytes", "read_ahead_kb that advice suggests, in bytes" },
                { "readahead_advice_timestamp_seconds", "when that advice was made, seconds since the epoch" },
        };

        for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
                fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", metrics[m].name, metrics[m].help, metrics[m].name);
                for (size_t i = 0; i < n; i++) {
                        fputs(metrics[m].name, out);
                        prometheus_put_labels(out, r[i].name, r[i].kind, r[i].class);
                        if (m == 0)
                                fprintf(out, " %d\n", r[i].gauge);
                        else if (m == 1)
                                fprintf(out, " %" PRIu64 "\n", r[i].suggested_kb * 1024);
                        else
                                fprintf(out, " %" PRId64 "\n", r[i].made);
                }
        }
}
