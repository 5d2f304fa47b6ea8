/* SPDX-License-Identifier: MIT */
/*
 * readahead-ctl advise [DEV...]: watch what the machine reads for a window
 * and say, per device, whether read_ahead_kb should go up, down or stay.
 *
 * The verb only: its options, the devices, the window's clock, the table,
 * the JSON and --write. Sampling, attribution, the decisions and the record
 * are src/advise/ (advise-sample.h opens it). Nothing is written without
 * --write; with it, the suggestion becomes a drop-in rule for the device
 * (dropin.c) and is applied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "advise-prometheus.h"
#include "advise-record.h"
#include "advise-sample.h"
#include "ctl.h"
#include "devices.h"
#include "dropin.h"
#include "measure.h"
#include "mountinfo.h"
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

#define DEFAULT_SECONDS 30

enum {
        ARG_TIME = 0x100,
        ARG_WRITE,
};

const struct ctl_option verb_advise_options[] = {
        { .getopt = { "time", required_argument, NULL, ARG_TIME },
          .arg = "SECONDS",
          .help = "observing time (default " RA_STRINGIFY(DEFAULT_SECONDS) ")" },
        { .getopt = { "write", no_argument, NULL, ARG_WRITE },
          .help = "make the suggestion a rule for the device by the\n"
                  "same ids, and apply it" },
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

#define SECONDS_MAX (24 * 3600)
#define SAMPLE_SECONDS 1.0
#define ADVISE_ORDER 81 /* after calibrate's 80: the workload's evidence wins over the device's knee */

struct watched {
        struct ctl_device dev;
        bool held; /* lowered here by an earlier advice: kept in the record */
        struct ra_evidence e; /* the window's */
        struct ra_advice advice;
        struct ra_stable_id id;
        bool have_id;
        char written[RA_PATH_MAX + 80]; /* a drop-in that exists and decides the device */
        bool applied;                   /* ...and its value is in the kernel */
        uint64_t after_kb;
        const char *refused;            /* a class advise leaves alone (dropin_refused_class) */
};

/* ---- observing ------------------------------------------------------------ */

static void sleep_until(double t) {
        double left = t - ra_now_seconds();
        if (left > 0) {
                struct timespec ts = { (time_t) left, (long) ((left - (double) (time_t) left) * 1e9) };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
        }
}

/* How the window's events were attributed, for --json. */
struct attribution {
        const char *cgroups; /* "v1", "v2", NULL: none to read */
        unsigned with_events, explaining;
};

/* The window: a sample now and one a second for `seconds`, each device's
 * evidence into w. */
static int observe(struct watched *w, size_t n, unsigned seconds, struct attribution *attr) {
        struct ra_advise_target *t = calloc(n ? n : 1, sizeof(*t));
        struct ra_advise_window *win = NULL;
        int r;

        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                t[i] = ra_advise_target_of(&w[i].dev.facts);
        /* the mount namespace of the mount table read ($READAHEAD_MOUNTINFO) */
        r = ra_advise_window_new(t, n, ra_mountinfo_path(), &win);
        free(t);
        if (r < 0)
                return r;
        double start = ra_now_seconds();
        r = ra_advise_window_sample(win, start);
        for (unsigned step = 1; r >= 0; step++) {
                double next = start + step * SAMPLE_SECONDS;
                if (next > start + seconds)
                        next = start + seconds;
                sleep_until(next);
                double now = ra_now_seconds();
                r = ra_advise_window_sample(win, now);
                if (r < 0 || now >= start + seconds - 1e-3)
                        break;
        }
        attr->cgroups = ra_advise_window_cgroups(win, &attr->with_events, &attr->explaining);
        const char *path;
        int e = ra_advise_window_mountstats_error(win, &path);
        if (e == -EFBIG)
                ctl_error("advise", "%s is over %zu MiB: NFS mounts get no evidence, ignoring", path,
                          RA_MOUNTSTATS_MAX_BYTES >> 20);
        else if (e < 0)
                ctl_error("advise", "cannot read %s: %s: NFS mounts get no evidence, ignoring", path,
                          strerror(-e));
        for (size_t i = 0; i < n; i++)
                w[i].e = *ra_advise_window_evidence(win, i);
        ra_advise_window_free(win);
        return r;
}

/* ---- deciding and saying ---------------------------------------------------- */

static void decide(const struct ctl *ctl, struct watched *w, const struct ra_advice_record *last,
                   size_t n_last) {
        const struct ra_facts *f = &w->dev.facts;

        w->held = ra_advice_records_held(last, n_last, f);
        struct ra_advise_limits l = ra_advise_limits_of(f, &ctl->config->profile, w->held,
                                                        ra_advice_records_raised_from(last, n_last, f));
        ra_advise_evidence(&w->e, &l, &w->advice);
        if (w->refused) {
                /* as calibrate: the profile leaves these alone, so does advise */
                w->advice.kind = RA_ADVICE_NO_SIGNAL;
                w->advice.suggested_kb = f->current_kb;
                snprintf(w->advice.reason, sizeof(w->advice.reason), "left alone: %s", w->refused);
        }
}

static void advice_cell(const struct watched *w, char *buf, size_t size) {
        char a[24];
        const struct ra_advice *v = &w->advice;
        if (v->kind == RA_ADVICE_RAISE || v->kind == RA_ADVICE_LOWER)
                snprintf(buf, size, "%s to %s", ra_advice_to_string(v->kind), ra_format_size_kb(v->suggested_kb, a));
        else
                snprintf(buf, size, "%s", ra_advice_to_string(v->kind));
}

/* Where a device's events came from: its cgroups' own events, its
 * processes' own major faults (v1: readers of several blkio cgroups in one
 * memory cgroup), the host's split by share of sectors; "none" without
 * events. Each kind of event (major faults, refaulted bytes, reclaimed
 * bytes) is weighed in its own unit: a source is named when it has 1% or
 * more of one kind. */
static const char *attributed_by(const struct ra_disk_observed *o, char *buf, size_t size) {
        const double all[] = { o->majfaults, o->refault_bytes, o->reclaim_bytes };
        const struct {
                double part[3];
                const char *name;
        } sources[] = {
                { { o->cgroup_majfaults - o->process_majfaults, o->cgroup_refault_bytes, o->cgroup_reclaim_bytes },
                  "cgroups" },
                { { o->process_majfaults, 0, 0 }, "processes" },
                { { o->majfaults - o->cgroup_majfaults, o->refault_bytes - o->cgroup_refault_bytes,
                    o->reclaim_bytes - o->cgroup_reclaim_bytes },
                  "host share" },
        };
        size_t len = 0;

        buf[0] = 0;
        for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
                bool named = false;
                for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
                        named = named || (all[k] > 0 && sources[i].part[k] > all[k] * 0.01);
                if (named && len < size)
                        len += (size_t) snprintf(buf + len, size - len, "%s%s", len ? " and " : "", sources[i].name);
        }
        return buf[0] ? buf : "none";
}

static void print_table(struct watched *w, size_t n, unsigned seconds, bool named) {
        size_t shown = 0, quiet = 0;
        char a[24], stall[24], cell[48];

        for (size_t i = 0; i < n; i++)
                if (named || ra_evidence_read_bytes(&w[i].e) > 0)
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
                if (!named && ra_evidence_read_bytes(&w[i].e) == 0)
                        continue;
                advice_cell(&w[i], cell, sizeof(cell));
                if (v->io_stall < 0)
                        snprintf(stall, sizeof(stall), "-");
                else
                        snprintf(stall, sizeof(stall), "%.0f%%", v->io_stall * 100);
                ra_fputs_people(stdout, w[i].dev.facts.name);
                int pad = 12 - (int) strlen(w[i].dev.facts.name);
                printf("%*s %11.1f %7.0fK %11s %4.0f%% %8s  %s\n", pad > 0 ? pad : 0, "",
                       v->read_bytes_per_s / (1 << 20), v->request_kb,
                       ra_format_size_kb(w[i].dev.facts.current_kb, a), v->busy * 100, stall, cell);
        }
        putchar('\n');
        for (size_t i = 0; i < n; i++) {
                if (!named && ra_evidence_read_bytes(&w[i].e) == 0)
                        continue;
                char text[sizeof(w[i].advice.reason) + RA_NAME_MAX + 64];
                advice_cell(&w[i], cell, sizeof(cell));
                /* the name is escaped on its own line start, the reason is ours */
                ra_fputs_people(stdout, w[i].dev.facts.name);
                snprintf(text, sizeof(text), "%s: %s.", cell, w[i].advice.reason);
                fputs(": ", stdout);
                print_wrapped(text);
                char by[64];
                const char *source = attributed_by(&w[i].e.disk, by, sizeof(by));
                if (w[i].e.source == RA_EVIDENCE_DISK && strcmp(source, "none") != 0)
                        printf("  Events attributed by %s.\n", source);
                if (w[i].written[0] && w[i].applied)
                        printf("  Wrote %s and applied it: read_ahead_kb %s now.\n", w[i].written,
                               ra_format_size_kb(w[i].after_kb, a));
                else if (w[i].written[0])
                        printf("  Wrote %s, but applying it failed: read_ahead_kb %s now.\n", w[i].written,
                               ra_format_size_kb(w[i].after_kb, a));
        }
        if (quiet)
                printf("No reads on %zu other disk%s: no signal.\n", quiet, quiet == 1 ? "" : "s");
}

static void json_attribution(struct json *j, const struct ra_disk_observed *o) {
        char by[64];
        json_begin_object(j, "attribution");
        json_string(j, "by", attributed_by(o, by, sizeof(by)));
        json_double(j, "cgroup_major_faults", o->cgroup_majfaults, 1);
        json_double(j, "process_major_faults", o->process_majfaults, 1);
        json_double(j, "host_share_major_faults", o->majfaults - o->cgroup_majfaults, 1);
        json_double(j, "cgroup_refault_bytes", o->cgroup_refault_bytes, 0);
        json_double(j, "host_share_refault_bytes", o->refault_bytes - o->cgroup_refault_bytes, 0);
        json_double(j, "cgroup_reclaim_bytes", o->cgroup_reclaim_bytes, 0);
        json_double(j, "host_share_reclaim_bytes", o->reclaim_bytes - o->cgroup_reclaim_bytes, 0);
        json_end_object(j);
}

static int print_json(struct watched *w, size_t n, unsigned seconds, double cpu_seconds,
                      const struct attribution *attr) {
        struct json j = { .f = stdout };
        char idbuf[RA_STABLE_ID_MAX + 32];

        json_begin_object(&j, NULL);
        json_uint(&j, "seconds", seconds);
        json_double(&j, "cpu_seconds", cpu_seconds, 3);
        json_begin_object(&j, "cgroups");
        json_string(&j, "version", attr->cgroups);
        json_uint(&j, "with_events", attr->with_events);
        json_uint(&j, "explaining", attr->explaining);
        json_end_object(&j);
        json_begin_array(&j, "devices");
        for (size_t i = 0; i < n; i++) {
                const struct ra_advice *v = &w[i].advice;
                json_begin_object(&j, NULL);
                json_string(&j, "device", w[i].dev.facts.name);
                json_string(&j, "advice", ra_advice_to_string(v->kind));
                json_uint(&j, "read_ahead_kb", w[i].dev.facts.current_kb);
                json_uint(&j, "suggested_kb", v->suggested_kb);
                json_string(&j, "reason", v->reason);
                json_uint(&j, "read_bytes", ra_evidence_read_bytes(&w[i].e));
                json_uint(&j, "read_ios", ra_evidence_read_ios(&w[i].e));
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
                json_attribution(&j, &w[i].e.disk); /* none for NFS */
                if (w[i].e.source == RA_EVIDENCE_NFS) {
                        json_double(&j, "nfs_rtt_ms", v->rtt_ms, 2);
                        json_double(&j, "nfs_in_flight_kb", v->in_flight_kb, 1);
                }
                if (w[i].have_id)
                        snprintf(idbuf, sizeof(idbuf), "%s=%s", w[i].id.key, w[i].id.value);
                json_string(&j, "stable_id", w[i].have_id ? idbuf : NULL);
                json_string(&j, "written", w[i].written[0] ? w[i].written : NULL);
                if (w[i].written[0]) {
                        json_boolean(&j, "applied", w[i].applied);
                        json_uint(&j, "read_ahead_kb_after", w[i].after_kb);
                }
                json_end_object(&j);
        }
        json_end_array(&j);
        json_end_object(&j);
        return json_finish(&j);
}

/* The advice of this run as records: what --format=prometheus prints, and
 * what `status --format=prometheus` shows until the next run. */
static size_t advice_records(const struct watched *w, size_t n, struct ra_advice_record *r) {
        size_t k = 0;
        int64_t now = (int64_t) time(NULL);

        for (size_t i = 0; i < n; i++)
                k += ra_advice_record_of(&w[i].dev.facts, &w[i].advice, w[i].held, now, &r[k]);
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
        ret = dropin_apply(ctl, "advise", w->dev.facts.name, w->written, section, true, &w->after_kb);
        w->applied = ret >= 0;
        /* `written` names a file that exists and decides the device: a file
         * apply removed again, or one that another rule overrides, is not. */
        if (ret == -EEXIST) {
                if (unlink(w->written) == 0)
                        ctl_error("advise", "removed %s again: it would decide nothing", w->written);
                w->written[0] = 0;
        } else if (ret < 0 && access(w->written, F_OK) < 0)
                w->written[0] = 0;
        return ret;
}

/* ---- the verb ------------------------------------------------------------ */

/* The same device named twice (by name and by path) is watched once. */
static bool named_before(const struct watched *w, size_t n, const struct ra_facts *f) {
        for (size_t i = 0; i < n; i++)
                if (w[i].dev.facts.kind == f->kind && strcmp(w[i].dev.facts.name, f->name) == 0)
                        return true;
        return false;
}

static int parse_seconds(const char *s, unsigned *ret) {
        if (ra_parse_uint(s, 1, SECONDS_MAX, ret) < 0) {
                ctl_error("advise", "--time=%s: expected a whole number of seconds from 1 to %u",
                          s ? s : "", SECONDS_MAX);
                return -EINVAL;
        }
        return 0;
}

/* The devices named, each once, into w; n counts those found so far, for
 * the caller to free. -1 when one is not found, said. */
static int find_named(struct ctl *ctl, int argc, char **argv, struct watched *w, size_t *n) {
        for (int i = 0; i < argc; i++) {
                int r = device_find(ctl->udev, ctl->config, argv[i], &w[*n].dev);
                if (r < 0) {
                        ctl_error("advise", "%s: %s", argv[i], device_find_strerror(r));
                        return -1;
                }
                if (named_before(w, *n, &w[*n].dev.facts))
                        device_done(&w[*n].dev); /* "sda /dev/sda": one row */
                else
                        (*n)++;
        }
        return 0;
}

/* Whole disks and NFS mounts, moved from list into w: other mounts have no
 * read counters of their own. Returns how many. */
static size_t take_watchable(struct ctl_device *list, size_t n_list, struct watched *w) {
        size_t n = 0;

        for (size_t i = 0; i < n_list; i++)
                if (list[i].facts.kind == RA_KIND_BLOCK || ra_advise_is_nfs(&list[i].facts)) {
                        w[n++].dev = list[i];
                        list[i] = (struct ctl_device){};
                }
        return n;
}

/* A device named for --write that no rule can be written for is refused
 * before the window, as calibrate does. -1 when one is, said. */
static int refuse_unwritable(struct ctl *ctl, const struct watched *w, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const struct ra_facts *f = &w[i].dev.facts;
                if (f->kind != RA_KIND_BLOCK && !ra_advise_is_nfs(f))
                        continue;
                if (w[i].refused) {
                        ctl_error("advise", "%s is %s; no rule written for it", f->name, w[i].refused);
                        return -1;
                }
                if (!w[i].have_id) {
                        stable_id_missing("advise", f);
                        return -1;
                }
                if (dropin_check_unique(ctl, "advise", f, &w[i].id) < 0)
                        return -1;
        }
        return 0;
}

/* The user and system CPU time between two getrusage() samples. */
static double cpu_seconds_between(const struct rusage *ru0, const struct rusage *ru1) {
        return (double) (ru1->ru_utime.tv_sec - ru0->ru_utime.tv_sec + ru1->ru_stime.tv_sec -
                         ru0->ru_stime.tv_sec) +
               (double) (ru1->ru_utime.tv_usec - ru0->ru_utime.tv_usec + ru1->ru_stime.tv_usec -
                         ru0->ru_stime.tv_usec) /
                       1e6;
}

/* Each device's advice, from what it read; the last run's advice: no
 * raise back to where it lowered from. */
static void decide_all(const struct ctl *ctl, struct watched *w, size_t n) {
        struct ra_advice_record *last = NULL;
        size_t n_last = 0;

        if (ra_advice_records_load(ctl->config->root, &last, &n_last) < 0)
                n_last = 0;
        for (size_t i = 0; i < n; i++)
                decide(ctl, &w[i], last, n_last);
        free(last);
}

/* --write: a rule for each disk and NFS mount advised to raise or lower.
 * Every device is tried; -1 when one was not written, said. */
static int write_all(struct ctl *ctl, struct watched *w, size_t n, bool enumerated) {
        int ret = 0;

        for (size_t i = 0; i < n; i++) {
                enum ra_advice_kind k = w[i].advice.kind;
                if (k != RA_ADVICE_RAISE && k != RA_ADVICE_LOWER)
                        continue;
                if (!w[i].have_id) {
                        stable_id_missing("advise", &w[i].dev.facts);
                        ret = -1;
                } else if ((enumerated &&
                            dropin_check_unique(ctl, "advise", &w[i].dev.facts, &w[i].id) < 0) ||
                           write_advice(ctl, &w[i]) < 0)
                        ret = -1;
        }
        return ret;
}

/* The advice as records in records[], kept for status where root may keep
 * it; watched[] has room for n names. Returns how many records. */
static size_t keep_advice(const struct ctl *ctl, const struct watched *w, size_t n,
                          struct ra_advice_record *records, const char **watched) {
        size_t n_records = advice_records(w, n, records);

        for (size_t i = 0; i < n; i++)
                watched[i] = w[i].dev.facts.name;
        /* Only root may keep it; the advice printed below stands without. */
        int r = ra_advice_records_save(ctl->config, records, n_records, watched, n);
        if (r < 0 && r != -EACCES && r != -EPERM && r != -EROFS)
                ctl_error("advise",
                          "cannot keep the advice for status in %s/run/readahead-agent: %s, ignoring",
                          ctl->config->root, strerror(-r));
        return n_records;
}

/* The devices advise watches in *ret (n of them): those named, or every
 * watchable one of the enumeration in *list; with their stable ids and
 * whether their class is refused. Returns 0, or -1 when said; the caller
 * frees what was set either way. */
static int watch_list(struct ctl *ctl, int argc, char **argv, struct watched **ret, size_t *n,
                      struct ctl_device **list, size_t *n_list) {
        struct watched *w;

        if (argc == 0) {
                int r = devices_enumerate(ctl->udev, ctl->config, list, n_list);
                if (r < 0) {
                        ctl_error("advise", DEVICES_LIST_FAILED ": %s", strerror(-r));
                        return -1;
                }
        }
        w = calloc(argc > 0 ? (size_t) argc : *n_list ? *n_list : 1, sizeof(*w));
        if (!w) {
                ctl_error("advise", "out of memory");
                return -1;
        }
        *ret = w;
        if (argc > 0 && find_named(ctl, argc, argv, w, n) < 0)
                return -1;
        if (argc == 0)
                *n = take_watchable(*list, *n_list, w);
        for (size_t i = 0; i < *n; i++) {
                w[i].have_id = ra_find_stable_id(&w[i].dev.facts, &w[i].id);
                w[i].refused = dropin_refused_class(&w[i].dev.facts);
        }
        return 0;
}

int verb_advise(struct ctl *ctl, int argc, char **argv) {
        const struct advise_options *o = &options;
        unsigned seconds = DEFAULT_SECONDS;
        struct watched *w = NULL;
        struct ctl_device *list = NULL;
        size_t n = 0, n_list = 0, n_records = 0;
        struct ra_advice_record *records = NULL;
        const char **watched = NULL;
        int r, exit_code = EXIT_OK;

        /* Usage first, before anything is looked at. */
        if (o->seconds && parse_seconds(o->seconds, &seconds) < 0)
                return EXIT_USAGE;
        if (o->write && geteuid() != 0) {
                ctl_error("advise", "--write needs root: it writes a rule in /etc and applies it");
                return EXIT_FAILURE;
        }

        if (watch_list(ctl, argc, argv, &w, &n, &list, &n_list) < 0 ||
            (o->write && argc > 0 && refuse_unwritable(ctl, w, n) < 0)) {
                exit_code = EXIT_FAILURE;
                goto out;
        }

        struct rusage ru0, ru1;
        getrusage(RUSAGE_SELF, &ru0);
        struct attribution attr;
        r = observe(w, n, seconds, &attr);
        getrusage(RUSAGE_SELF, &ru1);
        if (r < 0) {
                ctl_error("advise", "cannot read the counters: %s", strerror(-r));
                exit_code = EXIT_FAILURE;
                goto out;
        }
        double cpu = cpu_seconds_between(&ru0, &ru1);
        decide_all(ctl, w, n);
        if (o->write && write_all(ctl, w, n, argc == 0) < 0)
                exit_code = EXIT_FAILURE;

        records = calloc(n ? n : 1, sizeof(*records));
        watched = calloc(n ? n : 1, sizeof(*watched));
        if (!records || !watched)
                goto oom;
        n_records = keep_advice(ctl, w, n, records, watched);

        if (ctl->json) {
                if (print_json(w, n, seconds, cpu, &attr) < 0)
                        exit_code = EXIT_FAILURE;
        } else if (ctl->format == FORMAT_PROMETHEUS)
                ra_advice_prometheus(stdout, records, n_records);
        else
                print_table(w, n, seconds, argc > 0);
        goto out;
oom:
        ctl_error("advise", "out of memory");
        exit_code = EXIT_FAILURE;
out:
        for (size_t i = 0; i < n; i++)
                device_done(&w[i].dev);
        free(w);
        free(records);
        free(watched);
        if (list)
                devices_free(list, n_list);
        return exit_code;
}
