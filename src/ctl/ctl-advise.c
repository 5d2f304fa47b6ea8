/* SPDX-License-Identifier: MIT */
/*
 * readahead-ctl advise [DEV...]: watch what the machine reads for a window
 * and say, per device, whether read_ahead_kb should go up, down or stay.
 *
 * Stable interfaces only, sampled once a second: /proc/diskstats (reads,
 * sectors, merges, busy time), /proc/vmstat (major faults, refaults, file
 * reclaim, pinned pages) and /proc/pressure/{memory,io}. The decision is
 * src/core/advise.c. Nothing is written without --write; with it, the
 * suggestion becomes a drop-in rule for the device (dropin.c) and is applied.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "advice-record.h"
#include "advise-nfs-sample.h"
#include "advise.h"
#include "ctl.h"
#include "decide.h"
#include "devices.h"
#include "dropin.h"
#include "measure.h"
#include "output.h"
#include "prometheus.h"
#include "size.h"
#include "text.h"

/* The options of advise, as given. */
struct advise_options {
        const char *seconds;
        bool write;
};

static struct advise_options options;

enum {
        ARG_TIME = 0x100,
        ARG_WRITE,
};

const struct option verb_advise_options[] = {
        { "time", required_argument, NULL, ARG_TIME },
        { "write", no_argument, NULL, ARG_WRITE },
        {},
};

int verb_advise_parse(struct ctl *ctl, int argc, char **argv) {
        int c;

        while ((c = ctl_getopt(ctl, argc, argv)) >= 0) {
                if (c == ARG_TIME)
                        options.seconds = optarg;
                else if (c == ARG_WRITE)
                        options.write = true;
                else
                        return -1;
        }
        return optind;
}

#define DEFAULT_SECONDS 30
#define SECONDS_MAX (24 * 3600)
#define SAMPLE_SECONDS 1.0
#define DISKS_MAX 4096
#define LINE_MAX_ 512
#define ADVISE_ORDER 81 /* after calibrate's 80: the workload's evidence wins over the device's knee */

struct watched {
        struct ctl_device dev;
        struct ra_disk_counters last;
        bool seen; /* in /proc/diskstats */
        struct ra_observed obs;
        struct ra_advice advice;
        struct stable_id id;
        bool have_id;
        char written[RA_PATH_MAX + 80];
        uint64_t after_kb;
        struct advise_nfs nfs; /* an NFS mount's own counters */
};

struct host_sample {
        struct ra_host_counters c;
        bool psi;
};

/* ---- reading the counters ------------------------------------------------- */

static int read_psi_some_us(const char *path, uint64_t *ret) {
        char line[LINE_MAX_];
        FILE *f = fopen(path, "re");
        int r = -ENODATA;
        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                const char *t = strstr(line, " total=");
                if (strncmp(line, "some ", 5) == 0 && t && sscanf(t, " total=%" SCNu64, ret) == 1) {
                        r = 0;
                        break;
                }
        }
        fclose(f);
        return r;
}

static int read_host(struct host_sample *s) {
        static const struct {
                const char *key;
                size_t offset;
        } keys[] = {
                { "pgmajfault", offsetof(struct ra_host_counters, majfaults) },
                { "workingset_refault_file", offsetof(struct ra_host_counters, refault_file_pages) },
                { "pgsteal_file", offsetof(struct ra_host_counters, steal_file_pages) },
                { "nr_foll_pin_acquired", offsetof(struct ra_host_counters, pinned_pages) },
        };
        char key[64], line[LINE_MAX_];
        uint64_t v;
        FILE *f = fopen("/proc/vmstat", "re");
        if (!f)
                return -errno;
        *s = (struct host_sample){};
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "%63s %" SCNu64, key, &v) == 2)
                        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                                if (strcmp(key, keys[i].key) == 0)
                                        *(uint64_t *) ((char *) &s->c + keys[i].offset) = v;
        fclose(f);
        s->psi = read_psi_some_us("/proc/pressure/memory", &s->c.mem_some_us) >= 0 &&
                 read_psi_some_us("/proc/pressure/io", &s->c.io_some_us) >= 0;
        return 0;
}

static uint64_t delta(uint64_t now, uint64_t before) {
        return now >= before ? now - before : 0; /* a counter that wrapped or was reset: nothing */
}

static struct ra_host_counters host_delta(const struct host_sample *now, const struct host_sample *before) {
        return (struct ra_host_counters){
                .majfaults = delta(now->c.majfaults, before->c.majfaults),
                .refault_file_pages = delta(now->c.refault_file_pages, before->c.refault_file_pages),
                .steal_file_pages = delta(now->c.steal_file_pages, before->c.steal_file_pages),
                .pinned_pages = delta(now->c.pinned_pages, before->c.pinned_pages),
                .mem_some_us = delta(now->c.mem_some_us, before->c.mem_some_us),
                .io_some_us = delta(now->c.io_some_us, before->c.io_some_us),
        };
}

/* Whole disks only: a partition's reads are its disk's too. */
static bool is_whole_disk(const char *name) {
        char path[RA_NAME_MAX + 16];
        struct stat st;
        snprintf(path, sizeof(path), "/sys/block/%s", name);
        return stat(path, &st) == 0;
}

/* Sectors read so far by the whole disks nobody asked about: their reads
 * share the host's events too. */
struct others {
        struct {
                unsigned major, minor;
                uint64_t read_sectors;
        } disk[DISKS_MAX];
        size_t n;
};

static uint64_t others_delta(struct others *o, unsigned major, unsigned minor, uint64_t sectors, bool first) {
        for (size_t i = 0; i < o->n; i++)
                if (o->disk[i].major == major && o->disk[i].minor == minor) {
                        uint64_t d = delta(sectors, o->disk[i].read_sectors);
                        o->disk[i].read_sectors = sectors;
                        return first ? 0 : d;
                }
        if (o->n < DISKS_MAX)
                o->disk[o->n++] = (typeof(o->disk[0])){ major, minor, sectors };
        return 0; /* new: from now on */
}

/* One pass over /proc/diskstats: each watched device's deltas since the last
 * pass (the first only records), and the sectors all whole disks read. */
static int read_disks(struct watched *w, size_t n, struct others *others, bool first,
                      struct ra_disk_counters *deltas, uint64_t *ret_all_sectors) {
        char line[LINE_MAX_], name[RA_NAME_MAX];
        unsigned major, minor;
        struct ra_disk_counters c;
        uint64_t skip, all = 0;
        FILE *f = fopen("/proc/diskstats", "re");
        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                /* reads, merged, sectors, ms; writes, merged, sectors, ms; in flight; io_ticks */
                if (sscanf(line,
                           " %u %u %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                           " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                           &major, &minor, name, &c.read_ios, &c.read_merges, &c.read_sectors, &c.read_ticks_ms,
                           &skip, &skip, &skip, &skip, &skip, &c.io_ticks_ms) != 13)
                        continue;
                size_t i;
                for (i = 0; i < n; i++)
                        if (w[i].dev.facts.major == major && w[i].dev.facts.minor == minor)
                                break;
                if (i < n) {
                        deltas[i] = (struct ra_disk_counters){
                                .read_ios = delta(c.read_ios, w[i].last.read_ios),
                                .read_merges = delta(c.read_merges, w[i].last.read_merges),
                                .read_sectors = delta(c.read_sectors, w[i].last.read_sectors),
                                .read_ticks_ms = delta(c.read_ticks_ms, w[i].last.read_ticks_ms),
                                .io_ticks_ms = delta(c.io_ticks_ms, w[i].last.io_ticks_ms),
                        };
                        if (first || !w[i].seen)
                                deltas[i] = (struct ra_disk_counters){};
                        w[i].last = c;
                        w[i].seen = true;
                        all += deltas[i].read_sectors;
                } else if (is_whole_disk(name))
                        all += others_delta(others, major, minor, c.read_sectors, first);
        }
        fclose(f);
        *ret_all_sectors = all;
        return 0;
}

/* NFS mounts: one read of /proc/self/mountstats a sample for all of them. */
static int sample_nfs(struct watched *w, size_t n, double seconds, bool first) {
        char *text = NULL;
        size_t len = 0, i;
        for (i = 0; i < n && !advise_nfs_wants(&w[i].dev.facts); i++)
                ;
        int r = i < n ? advise_nfs_read(&text, &len) : 0;
        for (; r >= 0 && i < n; i++)
                advise_nfs_sample(&w[i].nfs, &w[i].dev.facts, text, len, seconds, first);
        free(text);
        return r;
}

/* ---- observing ------------------------------------------------------------ */

static void sleep_until(double t) {
        double left = t - ra_now_seconds();
        if (left > 0) {
                struct timespec ts = { (time_t) left, (long) ((left - (double) (time_t) left) * 1e9) };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
        }
}

static int observe(struct watched *w, size_t n, unsigned seconds) {
        struct ra_disk_counters *deltas = calloc(n ? n : 1, sizeof(*deltas));
        struct others *others = calloc(1, sizeof(*others));
        struct host_sample before, now;
        uint64_t all;
        int r;

        if (!deltas || !others) {
                free(deltas);
                free(others);
                return -ENOMEM;
        }
        double start = ra_now_seconds(), last = start;
        r = read_host(&before);
        if (r >= 0)
                r = read_disks(w, n, others, true, deltas, &all);
        if (r >= 0)
                r = sample_nfs(w, n, 0, true);
        for (unsigned step = 1; r >= 0; step++) {
                double next = start + step * SAMPLE_SECONDS;
                if (next > start + seconds)
                        next = start + seconds;
                sleep_until(next);
                r = read_host(&now);
                if (r < 0)
                        break;
                r = read_disks(w, n, others, false, deltas, &all);
                if (r < 0)
                        break;
                double t = ra_now_seconds();
                r = sample_nfs(w, n, t - last, false);
                if (r < 0)
                        break;
                struct ra_host_counters h = host_delta(&now, &before);
                for (size_t i = 0; i < n; i++)
                        ra_observe_interval(&w[i].obs, &deltas[i], all, &h, now.psi, t - last,
                                            w[i].dev.facts.page_kb ? w[i].dev.facts.page_kb : 4);
                before = now;
                last = t;
                if (t >= start + seconds - 1e-3)
                        break;
        }
        free(deltas);
        free(others);
        return r;
}

/* ---- deciding and saying ---------------------------------------------------- */

static void decide(const struct ctl *ctl, struct watched *w) {
        const struct ra_facts *f = &w->dev.facts;
        const struct ra_profile *p = &ctl->config->profile;
        struct ra_advise_limits l = {
                .read_ahead_kb = f->current_kb,
                .max_sectors_kb = f->max_sectors_kb,
                .minimum_kb = p->minimum_kb,
                .maximum_kb = p->maximum_kb,
                /* the design's cap: 1 KiB per MiB of RAM, never below 32 KiB */
                .memory_cap_kb = f->mem_total_kb ? ra_memory_cap_kb(f->mem_total_kb, 32) : 0,
                .page_kb = f->page_kb,
                .network = f->kind != RA_KIND_BLOCK,
        };
        if (advise_nfs_wants(f))
                advise_nfs_decide(&w->nfs, &l, &w->advice, &w->obs);
        else
                ra_advise(&w->obs, &l, &w->advice);
}

static void advice_cell(const struct watched *w, char *buf, size_t size) {
        char a[24];
        const struct ra_advice *v = &w->advice;
        if (v->kind == RA_ADVICE_RAISE || v->kind == RA_ADVICE_LOWER)
                snprintf(buf, size, "%s to %s", ra_advice_to_string(v->kind), ra_format_size_kb(v->suggested_kb, a));
        else
                snprintf(buf, size, "%s", ra_advice_to_string(v->kind));
}

static void print_table(struct watched *w, size_t n, unsigned seconds, bool named) {
        size_t shown = 0, quiet = 0;
        char a[24], cell[48];

        for (size_t i = 0; i < n; i++)
                if (named || w[i].obs.disk.read_sectors > 0)
                        shown++;
                else
                        quiet++;
        if (shown == 0) {
                printf("No reads in %u s on any of %zu disks: no signal.\n", seconds, n);
                return;
        }
        printf("DEVICE       READ MiB/s  REQUEST  READ_AHEAD  BUSY  IO STALL  ADVICE\n");
        for (size_t i = 0; i < n; i++) {
                const struct ra_advice *v = &w[i].advice;
                if (!named && w[i].obs.disk.read_sectors == 0)
                        continue;
                advice_cell(&w[i], cell, sizeof(cell));
                fputs("", stdout);
                ra_fputs_people(stdout, w[i].dev.facts.name);
                int pad = 12 - (int) strlen(w[i].dev.facts.name);
                printf("%*s %11.1f %7.0fK %11s %4.0f%% %8s  %s\n", pad > 0 ? pad : 0, "",
                       v->read_bytes_per_s / (1 << 20), v->request_kb,
                       ra_format_size_kb(w[i].dev.facts.current_kb, a), v->busy * 100,
                       v->io_stall < 0 ? "-" : (snprintf(a, sizeof(a), "%.0f%%", v->io_stall * 100), a), cell);
        }
        putchar('\n');
        for (size_t i = 0; i < n; i++) {
                if (!named && w[i].obs.disk.read_sectors == 0)
                        continue;
                char text[sizeof(w[i].advice.reason) + RA_NAME_MAX + 64];
                advice_cell(&w[i], cell, sizeof(cell));
                /* the name is escaped on its own line start, the reason is ours */
                ra_fputs_people(stdout, w[i].dev.facts.name);
                snprintf(text, sizeof(text), "%s: %s.", cell, w[i].advice.reason);
                fputs(": ", stdout);
                print_wrapped(text);
                if (w[i].written[0])
                        printf("  Wrote %s and applied it: read_ahead_kb %s now.\n", w[i].written,
                               ra_format_size_kb(w[i].after_kb, a));
        }
        if (quiet)
                printf("No reads on %zu other disk%s: no signal.\n", quiet, quiet == 1 ? "" : "s");
}

static int print_json(struct watched *w, size_t n, unsigned seconds, double cpu_seconds) {
        struct json j = { .f = stdout };
        char idbuf[STABLE_ID_MAX + 32];

        json_begin_object(&j, NULL);
        json_uint(&j, "seconds", seconds);
        json_double(&j, "cpu_seconds", cpu_seconds, 3);
        json_begin_array(&j, "devices");
        for (size_t i = 0; i < n; i++) {
                const struct ra_advice *v = &w[i].advice;
                json_begin_object(&j, NULL);
                json_string(&j, "device", w[i].dev.facts.name);
                json_string(&j, "advice", ra_advice_to_string(v->kind));
                json_uint(&j, "read_ahead_kb", w[i].dev.facts.current_kb);
                json_uint(&j, "suggested_kb", v->suggested_kb);
                json_string(&j, "reason", v->reason);
                json_uint(&j, "read_bytes", w[i].obs.disk.read_sectors * 512);
                json_uint(&j, "read_ios", w[i].obs.disk.read_ios);
                json_double(&j, "read_mib_per_s", v->read_bytes_per_s / (1 << 20), 3);
                json_double(&j, "request_kb", v->request_kb, 1);
                json_double(&j, "busy", v->busy, 3);
                json_double(&j, "io_stall", v->io_stall, 3);
                json_double(&j, "memory_stall", v->mem_stall, 4);
                json_double(&j, "major_faults_per_s", v->majfaults_per_s, 2);
                json_double(&j, "read_per_fault_kb", v->read_per_fault_kb, 1);
                json_double(&j, "fault_share", v->fault_share, 3);
                json_double(&j, "refault_share", v->refault_share, 3);
                json_double(&j, "reclaim_share", v->reclaim_share, 3);
                json_double(&j, "direct_share", v->direct_share, 3);
                if (advise_nfs_wants(&w[i].dev.facts))
                        advise_nfs_json(&j, v);
                if (w[i].have_id)
                        snprintf(idbuf, sizeof(idbuf), "%s=%s", w[i].id.key, w[i].id.value);
                json_string(&j, "stable_id", w[i].have_id ? idbuf : NULL);
                json_string(&j, "written", w[i].written[0] ? w[i].written : NULL);
                if (w[i].written[0])
                        json_uint(&j, "read_ahead_kb_after", w[i].after_kb);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_end_object(&j);
        return json_finish(&j);
}

/* The advice of this run as records: what --format=prometheus prints, and
 * what `status --format=prometheus` shows until the next run. */
static size_t advice_records(const struct watched *w, size_t n, struct advice_record *r) {
        size_t k = 0;
        int64_t now = (int64_t) time(NULL);

        for (size_t i = 0; i < n; i++) {
                int v;
                if (!ra_advice_to_gauge(w[i].advice.kind, &v))
                        continue;
                const struct ra_facts *f = &w[i].dev.facts;
                r[k] = (struct advice_record){ .gauge = v, .suggested_kb = w[i].advice.suggested_kb, .made = now };
                snprintf(r[k].name, sizeof(r[k].name), "%s", f->name);
                snprintf(r[k].kind, sizeof(r[k].kind), "%s", prometheus_kind(f));
                snprintf(r[k].class, sizeof(r[k].class), "%s", ra_class_to_string(f->class));
                k++;
        }
        return k;
}

/* ---- --write ------------------------------------------------------------- */

static int write_advice(struct ctl *ctl, struct watched *w) {
        const struct ra_advice *v = &w->advice;
        char comment[600], section[64], a[24], b[24];

        snprintf(comment, sizeof(comment), "# For %s, from %s to %s: %.400s.\n", w->dev.facts.name,
                 ra_format_size_kb(w->dev.facts.current_kb, a), ra_format_size_kb(v->suggested_kb, b),
                 ra_advice_to_string(v->kind));
        /* The reason, wrapped: a profile line holds at most 199 characters. */
        size_t len = strlen(comment);
        const char *r = v->reason;
        while (*r && len + 80 < sizeof(comment)) {
                size_t take = strlen(r) > 72 ? 72 : strlen(r);
                if (take == 72)
                        while (take > 20 && r[take] != ' ')
                                take--;
                len += (size_t) snprintf(comment + len, sizeof(comment) - len, "# %.*s\n", (int) take, r);
                r += take;
                r += strspn(r, " ");
        }
        int ret = dropin_write(ctl, "advise", ADVISE_ORDER, &w->id, comment, v->suggested_kb, section,
                               sizeof(section), w->written, sizeof(w->written));
        if (ret < 0) {
                w->written[0] = 0;
                return ret;
        }
        w->after_kb = w->dev.facts.current_kb;
        /* apply's line on stderr: keep the table and the JSON clean */
        return dropin_apply(ctl, "advise", w->dev.facts.name, w->written, section, true, &w->after_kb);
}

/* ---- the verb ------------------------------------------------------------ */

static int parse_seconds(const char *s, unsigned *ret) {
        char *end;
        errno = 0;
        unsigned long v = s ? strtoul(s, &end, 10) : 0;
        if (!s || errno || end == s || *end || s[0] == '-' || v < 1 || v > SECONDS_MAX) {
                ctl_error("advise", "--time=%s: expected a whole number of seconds from 1 to %u",
                          s ? s : "", SECONDS_MAX);
                return -EINVAL;
        }
        *ret = (unsigned) v;
        return 0;
}

int verb_advise(struct ctl *ctl, int argc, char **argv) {
        const struct advise_options *o = &options;
        unsigned seconds = DEFAULT_SECONDS;
        struct watched *w = NULL;
        struct ctl_device *list = NULL;
        size_t n = 0, n_list = 0, n_records = 0;
        struct advice_record *records = NULL;
        int r, exit_code = EXIT_OK;

        /* Usage first, before anything is looked at. */
        if (o->seconds && parse_seconds(o->seconds, &seconds) < 0)
                return EXIT_USAGE;
        if (o->write && geteuid() != 0) {
                ctl_error("advise", "--write needs root: it writes a rule in /etc and applies it");
                return EXIT_FAILURE_;
        }

        if (argc > 0) {
                w = calloc((size_t) argc, sizeof(*w));
                if (!w)
                        goto oom;
                for (int i = 0; i < argc; i++) {
                        r = device_find(ctl->udev, ctl->config, argv[i], &w[n].dev);
                        if (r < 0) {
                                ctl_error("advise", "%s: %s", argv[i], device_find_strerror(r));
                                exit_code = EXIT_FAILURE_;
                                goto out;
                        }
                        n++;
                }
        } else {
                r = devices_enumerate(ctl->udev, ctl->config, &list, &n_list);
                if (r < 0) {
                        ctl_error("advise", "cannot list devices: %s", strerror(-r));
                        return EXIT_FAILURE_;
                }
                w = calloc(n_list ? n_list : 1, sizeof(*w));
                if (!w)
                        goto oom;
                /* whole disks and NFS mounts: other mounts have no read counters of their own */
                for (size_t i = 0; i < n_list; i++)
                        if (list[i].facts.kind == RA_KIND_BLOCK || advise_nfs_wants(&list[i].facts)) {
                                w[n++].dev = list[i];
                                list[i] = (struct ctl_device){};
                        }
        }
        for (size_t i = 0; i < n; i++)
                w[i].have_id = find_stable_id(&w[i].dev.facts, &w[i].id);
        if (o->write && argc > 0)
                for (size_t i = 0; i < n; i++)
                        if (!w[i].have_id && w[i].dev.facts.kind == RA_KIND_BLOCK) {
                                stable_id_missing("advise", w[i].dev.facts.name);
                                exit_code = EXIT_FAILURE_;
                                goto out;
                        }

        struct rusage ru0, ru1;
        getrusage(RUSAGE_SELF, &ru0);
        r = observe(w, n, seconds);
        getrusage(RUSAGE_SELF, &ru1);
        if (r < 0) {
                ctl_error("advise", "cannot read the counters: %s", strerror(-r));
                exit_code = EXIT_FAILURE_;
                goto out;
        }
        double cpu = (double) (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                     (double) (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) /
                             1e6;
        for (size_t i = 0; i < n; i++)
                decide(ctl, &w[i]);

        if (o->write)
                for (size_t i = 0; i < n; i++) {
                        enum ra_advice_kind k = w[i].advice.kind;
                        if (k != RA_ADVICE_RAISE && k != RA_ADVICE_LOWER)
                                continue;
                        if (advise_nfs_wants(&w[i].dev.facts)) {
                                char kb[24];
                                ctl_error("advise",
                                          "%s: --write writes rules for disks; for this NFS mount, a rule "
                                          "with MountPoint=%s and Size=%s, ignoring",
                                          w[i].dev.facts.name, w[i].dev.facts.mount_point,
                                          ra_format_size_kb(w[i].advice.suggested_kb, kb));
                                continue;
                        }
                        if (!w[i].have_id) {
                                ctl_error("advise", "%s has no stable id: not written",
                                          w[i].dev.facts.name);
                                exit_code = EXIT_FAILURE_;
                        } else if (write_advice(ctl, &w[i]) < 0)
                                exit_code = EXIT_FAILURE_;
                }

        records = calloc(n, sizeof(*records));
        if (!records)
                goto oom;
        n_records = advice_records(w, n, records);
        /* Only root may keep it; the advice printed below stands without. */
        r = advice_records_save(ctl->config->root, records, n_records);
        if (r < 0 && r != -EACCES && r != -EPERM && r != -EROFS)
                ctl_error("advise", "cannot keep the advice for status in %s/run/readahead-agent: %s, ignoring",
                          ctl->config->root, strerror(-r));

        if (ctl->json) {
                if (print_json(w, n, seconds, cpu) < 0)
                        exit_code = EXIT_FAILURE_;
        } else if (ctl->format == FORMAT_PROMETHEUS)
                advice_prometheus(stdout, records, n_records);
        else
                print_table(w, n, seconds, argc > 0);
        goto out;
oom:
        ctl_error("advise", "out of memory");
        exit_code = EXIT_FAILURE_;
out:
        for (size_t i = 0; i < n; i++)
                device_done(&w[i].dev);
        free(w);
        free(records);
        if (list)
                devices_free(list, n_list);
        return exit_code;
}
