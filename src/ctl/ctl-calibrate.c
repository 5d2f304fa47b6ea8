/* SPDX-License-Identifier: MIT */
/*
 * readahead-ctl calibrate DEV: measure the device's own knee, the smallest
 * read_ahead_kb within 10% of the best sequential throughput.
 *
 * For each power of two in the range, rounds interleaved (ascending, then
 * descending, so that drift hits every size alike), with the page cache of
 * what is read dropped before and after each step:
 *   - one stream of 4 KiB buffered reads from a fresh region of the device;
 *   - several such streams at once, each with its own open file;
 *   - random page faults through a fresh read-only mapping.
 * The device node is only ever opened O_RDONLY: a write-close would make
 * udev synthesize a change event, and the agent would undo our value.
 * read_ahead_kb is put back afterwards, also on SIGINT, SIGTERM and SIGHUP.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "devices.h"
#include "dropin.h"
#include "gather.h"
#include "knee.h"
#include "measure.h"
#include "output.h"
#include "plan.h"
#include "size.h"
#include "write-read-ahead.h"
#include "write.h"

#define DEFAULT_MIN_KB 16
#define DEFAULT_MAX_KB (16 * 1024)
#define DEFAULT_SECONDS 120
#define DEFAULT_ROUNDS 3
#define DEFAULT_STREAMS 4
#define STREAMS_MAX 16
#define STEP_SECONDS_MIN 0.4
#define SECONDS_MAX (24 * 3600)
#define FAULTS_MIN 3               /* per step, even past its time */
/* Time shares of the three steps for one size: several streams need longer
 * to get past their first windows. */
#define ONE_STEP_SHARE 1.0
#define STREAMS_STEP_SHARE 2.0
#define FAULTS_STEP_SHARE 1.0
#define STEP_SHARES (ONE_STEP_SHARE + STREAMS_STEP_SHARE + FAULTS_STEP_SHARE)
/* The readahead window starts at a few pages and doubles: by two windows
 * consumed it runs at full size. The first moments can also see a burst
 * (a drive's cache, a throttle's first slice of 100 ms): left out too. */
#define WARMUP_WINDOWS 2
#define WARMUP_SECONDS 0.15
/* Reads of 16 KiB (never more than the smallest size measured): the same
 * readahead as 4 KiB reads with a quarter of the system calls, so that the
 * CPU of a busy machine does not limit several fast streams. */
#define READ_BYTES_MAX (16 * 1024)
#define DEVICE_BYTES_MIN (UINT64_C(64) << 20)
#define REGION_BYTES_TARGET (UINT64_C(256) << 20)
#define SLOTS_MIN 8
#define SLOTS_MAX 256

enum step_kind {
        STEP_ONE_STREAM,
        STEP_STREAMS,
        STEP_FAULTS,
        _STEP_MAX,
};

struct plan {
        uint64_t sizes_kb[RA_KNEE_SIZES_MAX];
        size_t n_sizes;
        unsigned rounds;
        unsigned streams;
        double seconds;
        double step_seconds;
};

struct calibration {
        const struct ra_facts *f;
        char devnode[RA_NAME_MAX + 8];
        struct plan plan;
        uint64_t before_kb;
        bool tty;
        double started;

        /* [size * rounds + round] */
        double one_mib_s[RA_KNEE_SIZES_MAX * RA_KNEE_ROUNDS_MAX];
        double streams_mib_s[RA_KNEE_SIZES_MAX * RA_KNEE_ROUNDS_MAX];
        double fault_ms[RA_KNEE_SIZES_MAX * RA_KNEE_ROUNDS_MAX];
        uint64_t faults[RA_KNEE_SIZES_MAX * RA_KNEE_ROUNDS_MAX];

        uint64_t slot_bytes;
        unsigned n_slots, next_slot;
        uint64_t seed;

        /* results */
        struct ra_knee_point one[RA_KNEE_SIZES_MAX], multi[RA_KNEE_SIZES_MAX], fault[RA_KNEE_SIZES_MAX];
        struct ra_knee knee_one, knee_multi;
        const struct ra_knee *chosen;               /* the larger knee of the two */
        const struct ra_knee_point *chosen_points;
        uint64_t knee_kb; /* 0: no recommendation */
        char verdict[400];
};

/* ---- signals: put the value back whatever happens ---------------------- */

static atomic_int stop_signal;
static char restore_path[RA_PATH_MAX];
static char restore_text[24];
static size_t restore_len;

static void on_stop_signal(int sig) {
        if (atomic_exchange(&stop_signal, sig) != 0) {
                /* A second signal: the user insists. Put the value back from
                 * here, then go. Only this thread writes read_ahead_kb (the
                 * readers block these signals). */
                int fd = open(restore_path, O_WRONLY | O_CLOEXEC);
                if (fd >= 0) {
                        ssize_t n = write(fd, restore_text, restore_len);
                        (void) n;
                        close(fd);
                }
                _exit(128 + sig);
        }
}

static void catch_stop_signals(const char *attr_path, uint64_t before_kb, bool on) {
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
        struct sigaction sa = { .sa_handler = on ? on_stop_signal : SIG_DFL };

        if (on) {
                snprintf(restore_path, sizeof(restore_path), "%s", attr_path);
                restore_len = (size_t) snprintf(restore_text, sizeof(restore_text), "%" PRIu64 "\n", before_kb);
        }
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
                sigaction(sigs[i], &sa, NULL);
}

/* ---- options ------------------------------------------------------------ */

static int parse_unsigned(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *ret) {
        char *end;
        errno = 0;
        unsigned long v = s ? strtoul(s, &end, 10) : 0;
        if (!s || errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
                ctl_error("calibrate", "%s=%s: expected a whole number from %u to %u", opt,
                          s ? s : "", lo, hi);
                return -EINVAL;
        }
        *ret = (unsigned) v;
        return 0;
}

static int parse_size_option(const char *opt, const char *s, uint64_t *ret_kb) {
        if (ra_parse_size_kb(s, ret_kb) < 0 || *ret_kb == 0) {
                ctl_error("calibrate", "%s=%s: expected a size such as 64K or 4M (at most 1G)",
                          opt, s);
                return -EINVAL;
        }
        return 0;
}

static int make_plan(const struct calibrate_options *o, unsigned page_kb, struct plan *p) {
        uint64_t min_kb = DEFAULT_MIN_KB, max_kb = DEFAULT_MAX_KB;
        unsigned seconds = DEFAULT_SECONDS;
        char a[24], b[24];

        *p = (struct plan){ .rounds = DEFAULT_ROUNDS, .streams = DEFAULT_STREAMS };
        if ((o->min && parse_size_option("--min", o->min, &min_kb) < 0) ||
            (o->max && parse_size_option("--max", o->max, &max_kb) < 0) ||
            (o->seconds && parse_unsigned("--time", o->seconds, 1, SECONDS_MAX, &seconds) < 0) ||
            (o->rounds && parse_unsigned("--rounds", o->rounds, 1, RA_KNEE_ROUNDS_MAX, &p->rounds) < 0) ||
            (o->streams && parse_unsigned("--streams", o->streams, 2, STREAMS_MAX, &p->streams) < 0))
                return -EINVAL;
        /* Powers of two in [min, max], no smaller than a page: the kernel
         * floors read_ahead_kb to whole pages. */
        for (uint64_t kb = page_kb ? page_kb : 4; kb <= max_kb && kb <= RA_SIZE_MAX_KB; kb *= 2)
                if (kb >= min_kb && p->n_sizes < RA_KNEE_SIZES_MAX)
                        p->sizes_kb[p->n_sizes++] = kb;
        if (p->n_sizes < 2) {
                ctl_error("calibrate",
                          "--min %s to --max %s holds fewer than two powers of two "
                          "of at least one page (%uK)",
                          ra_format_size_kb(min_kb, a), ra_format_size_kb(max_kb, b), page_kb);
                return -EINVAL;
        }
        p->seconds = seconds;
        /* step_seconds is one share: the time of the one-stream step */
        p->step_seconds = (double) seconds / (double) (p->rounds * p->n_sizes) / STEP_SHARES;
        if (p->step_seconds < STEP_SECONDS_MIN) {
                ctl_error("calibrate",
                          "--time %u leaves %.2f s for the shortest of %zu steps; give "
                          "at least %.0f s, fewer --rounds or a narrower --min/--max",
                          seconds, p->step_seconds, (size_t) p->rounds * p->n_sizes * _STEP_MAX,
                          ceil(STEP_SECONDS_MIN * STEP_SHARES * (double) (p->rounds * p->n_sizes)));
                return -EINVAL;
        }
        return 0;
}

/* ---- the device ---------------------------------------------------------- */

static int refuse_device(const struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;
        char sz[16];

        if (f->kind != RA_KIND_BLOCK) {
                ctl_error("calibrate", "%s is a network mount: calibrate measures block "
                          "devices", f->name);
                return -EINVAL;
        }
        if (f->class == RA_CLASS_MEMORY) {
                ctl_error("calibrate", "%s is a memory device (zram, brd, pmem): "
                          "readahead would only copy RAM to RAM, there is nothing to calibrate", f->name);
                return -EINVAL;
        }
        if (f->class == RA_CLASS_OPTICAL) {
                ctl_error("calibrate", "%s is an optical drive: its firmware reads "
                          "ahead on its own and a sweep would spin it for many minutes; not calibrated",
                          f->name);
                return -EINVAL;
        }
        if (f->size_bytes == 0) {
                ctl_error("calibrate", "%s has size 0 (no medium?)", f->name);
                return -EINVAL;
        }
        if (f->size_bytes < DEVICE_BYTES_MIN) {
                ctl_error("calibrate", "%s is too small to measure (%s, at least 64M); "
                          "the small-device cap decides its value",
                          f->name, format_bytes_short(f->size_bytes, sz));
                return -EINVAL;
        }
        if (!f->attr_path || !f->current_known) {
                ctl_error("calibrate", "cannot read read_ahead_kb of %s", f->name);
                return -EIO;
        }
        if (strlen(f->attr_path) >= sizeof(restore_path)) {
                /* the signal handler puts the value back through a copy */
                ctl_error("calibrate", "%s: the path of read_ahead_kb is too long", f->name);
                return -ENAMETOOLONG;
        }
        return 0;
}

/* ---- measuring ----------------------------------------------------------- */

static void progress(const struct calibration *c, size_t done, unsigned round, uint64_t size_kb,
                     const char *what) {
        const size_t total = (size_t) c->plan.rounds * c->plan.n_sizes * _STEP_MAX;
        const int width = 24;
        int filled = (int) (done * (size_t) width / total);
        char a[24];

        if (!c->tty)
                return;
        fputs("\r[", stderr);
        for (int i = 0; i < width; i++)
                fputc(i < filled ? '#' : '.', stderr);
        double left = c->plan.seconds - (ra_now_seconds() - c->started);
        fprintf(stderr, "] %3zu%%  round %u/%u  %5s  %-8s ~%.0f s left\033[K", done * 100 / total, round + 1,
                c->plan.rounds, ra_format_size_kb(size_kb, a), what, left > 0 ? left : 0);
        fflush(stderr);
}

static void progress_done(const struct calibration *c) {
        if (c->tty) {
                fputs("\r\033[K", stderr);
                fflush(stderr);
        }
}

/* Regions spread over the device: consecutive steps land far apart. */
static struct ra_region next_region(struct calibration *c) {
        /* golden-ratio stride: visits every slot before any twice, roughly */
        unsigned slot = (unsigned) (fmod((double) c->next_slot++ * 0.6180339887498949, 1.0) * c->n_slots);
        return (struct ra_region){ (uint64_t) slot * c->slot_bytes, c->slot_bytes };
}

static int set_read_ahead(const struct calibration *c, uint64_t kb) {
        uint64_t now_kb = 0;
        char failure[160];
        int r = ra_write_read_ahead(c->f->attr_path, kb, &now_kb);
        if (r < 0) {
                ra_write_failure_text(failure, sizeof(failure), kb, now_kb, r);
                ctl_error("calibrate", "%s: %s", c->f->name, failure);
        }
        return r;
}

/* A step measured with another value than the one set is worthless. */
static int check_unchanged(const struct calibration *c, uint64_t kb) {
        uint64_t now_kb;
        int r = ra_read_u64_file(c->f->attr_path, &now_kb);
        if (r < 0)
                return r;
        if (now_kb != kb) {
                fputc('\n', stderr); /* ends the progress line */
                ctl_error("calibrate",
                          "read_ahead_kb of %s changed from %" PRIu64 " to %" PRIu64
                          " during the measurement (a udev change event, the agent or another tool?); "
                          "no recommendation",
                          c->f->name, kb, now_kb);
                return -EBUSY;
        }
        return 0;
}

static int measure_failed(const struct calibration *c, const char *what, int r) {
        if (r != -EINTR) {
                fputc('\n', stderr); /* ends the progress line */
                ctl_error("calibrate", "%s: %s failed: %s", c->f->name, what, strerror(-r));
        }
        return r;
}

static int measure_size(struct calibration *c, size_t size, unsigned round, size_t *done) {
        const uint64_t kb = c->plan.sizes_kb[size];
        const size_t at = size * c->plan.rounds + round;
        struct ra_sequential how = {
                .read_bytes = c->plan.sizes_kb[0] * 1024 < READ_BYTES_MAX ? (unsigned) c->plan.sizes_kb[0] * 1024
                                                                          : READ_BYTES_MAX,
                .seconds = ONE_STEP_SHARE * c->plan.step_seconds,
                .warmup_bytes = WARMUP_WINDOWS * kb * 1024,
                .warmup_seconds = WARMUP_SECONDS,
        };
        struct ra_region regions[STREAMS_MAX];
        struct ra_measurement m;
        int r;

        r = set_read_ahead(c, kb);
        if (r < 0)
                return r;

        progress(c, (*done)++, round, kb, "1 stream");
        regions[0] = next_region(c);
        r = ra_measure_sequential(c->devnode, regions, 1, &how, &stop_signal, &m);
        if (r < 0)
                return measure_failed(c, "reading", r);
        c->one_mib_s[at] = m.steady_bytes_per_s / (1 << 20);

        progress(c, (*done)++, round, kb, "streams");
        for (unsigned i = 0; i < c->plan.streams; i++)
                regions[i] = next_region(c);
        how.seconds = STREAMS_STEP_SHARE * c->plan.step_seconds;
        r = ra_measure_sequential(c->devnode, regions, c->plan.streams, &how, &stop_signal, &m);
        if (r < 0)
                return measure_failed(c, "reading", r);
        c->streams_mib_s[at] = m.steady_bytes_per_s / (1 << 20);

        progress(c, (*done)++, round, kb, "faults");
        regions[0] = (struct ra_region){ 0, c->slot_bytes * c->n_slots };
        r = ra_measure_faults(c->devnode, &regions[0], FAULTS_STEP_SHARE * c->plan.step_seconds, FAULTS_MIN, 0, &c->seed, &stop_signal,
                              &m);
        if (r < 0)
                return measure_failed(c, "faulting", r);
        c->fault_ms[at] = m.seconds * 1000 / (double) m.ops;
        c->faults[at] = m.ops;

        return check_unchanged(c, kb);
}

static int measure_all(struct calibration *c) {
        size_t done = 0;

        for (unsigned round = 0; round < c->plan.rounds; round++)
                for (size_t i = 0; i < c->plan.n_sizes; i++) {
                        size_t size = round % 2 ? c->plan.n_sizes - 1 - i : i;
                        int r = measure_size(c, size, round, &done);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static void analyse(struct calibration *c) {
        const struct plan *p = &c->plan;
        const struct ra_knee *one = &c->knee_one, *multi = &c->knee_multi;
        char a[24], b[24], d[24];

        /* Both only fail on bad arguments, which make_plan() excludes. */
        (void) ra_knee_find(p->sizes_kb, c->one_mib_s, p->n_sizes, p->rounds, c->one, &c->knee_one);
        (void) ra_knee_find(p->sizes_kb, c->streams_mib_s, p->n_sizes, p->rounds, c->multi, &c->knee_multi);
        (void) ra_knee_summarize(p->sizes_kb, c->fault_ms, p->n_sizes, p->rounds, c->fault);

        /* Several streams need at least what one needs: a disk seeks
         * between them. Recommend the larger knee. */
        const struct ra_knee *k = multi->knee > one->knee ? multi : one;
        const struct ra_knee_point *points = k == one ? c->one : c->multi;
        c->chosen = k;
        c->chosen_points = points;
        const char *which = k == one ? "1 stream" : "streams";
        if (!one->confident || !multi->confident) {
                const struct ra_knee *bad = !one->confident ? one : multi;
                const struct ra_knee_point *bp = bad == one ? c->one : c->multi;
                size_t lo = bad->knee > 0 ? bad->knee - 1 : 0;
                if (bad->knee > 0)
                        snprintf(c->verdict, sizeof(c->verdict),
                                 "the rounds disagree by %.0f%% around %s (%s), more than the %.0f%% gain "
                                 "from %s to %s the knee rests on",
                                 bad->noise * 100, ra_format_size_kb(bp[bad->knee].read_ahead_kb, a),
                                 bad == one ? "1 stream" : "streams", bad->gain * 100,
                                 ra_format_size_kb(bp[lo].read_ahead_kb, d),
                                 ra_format_size_kb(bp[bad->knee].read_ahead_kb, b));
                else
                        snprintf(c->verdict, sizeof(c->verdict),
                                 "the rounds disagree by %.0f%% (%s), more than the %.0f%% tolerance",
                                 bad->noise * 100, bad == one ? "1 stream" : "streams",
                                 RA_KNEE_TOLERANCE * 100);
                return;
        }
        c->knee_kb = points[k->knee].read_ahead_kb;
        snprintf(c->verdict, sizeof(c->verdict),
                 "the smallest size within %.0f%% of the best (%s: %.1f MiB/s at %s); rounds agree within "
                 "%.0f%%, the step up from the size below gains %.0f%%",
                 RA_KNEE_TOLERANCE * 100, which, points[k->best].median,
                 ra_format_size_kb(points[k->best].read_ahead_kb, a), k->noise * 100, k->gain * 100);
}

/* ---- output -------------------------------------------------------------- */

static double spread_of(const struct ra_knee_point *p) {
        return p->median > 0 ? (p->max - p->min) / p->median : 0;
}

static void print_table(const struct calibration *c) {
        const struct plan *p = &c->plan;
        char a[24];

        printf("\nread_ahead_kb   1 stream MiB/s     %2u streams MiB/s   random fault\n", p->streams);
        printf("                median  spread     median  spread     ms (median)\n");
        for (size_t i = 0; i < p->n_sizes; i++)
                printf("%12s %s %9.1f %6.0f%%  %9.1f %6.0f%%  %12.2f\n", ra_format_size_kb(p->sizes_kb[i], a),
                       p->sizes_kb[i] == c->knee_kb ? "*" : " ", c->one[i].median, spread_of(&c->one[i]) * 100,
                       c->multi[i].median, spread_of(&c->multi[i]) * 100, c->fault[i].median);
}

static int print_json(const struct calibration *c, const struct ctl_device *d, const struct stable_id *id,
                      uint64_t after_kb, const char *written_file, const char *written_rule) {
        const struct plan *p = &c->plan;
        struct json j = { .f = stdout };
        char idbuf[STABLE_ID_MAX + 32];

        json_begin_object(&j, NULL);
        json_string(&j, "device", c->f->name);
        json_string(&j, "class", ra_class_to_string(c->f->class));
        json_uint(&j, "size_bytes", c->f->size_bytes);
        if (id)
                snprintf(idbuf, sizeof(idbuf), "%s=%s", id->key, id->value);
        json_string(&j, "stable_id", id ? idbuf : NULL);
        json_uint(&j, "read_ahead_kb_before", c->before_kb);
        json_uint(&j, "read_ahead_kb_after", after_kb);
        json_uint_or_null(&j, "profile_target_kb", ra_plan_has_target(&d->plan),
                          d->plan.decision.target_kb);
        json_uint(&j, "rounds", p->rounds);
        json_uint(&j, "streams", p->streams);
        json_double(&j, "seconds_per_step", p->step_seconds, 3);
        json_double(&j, "elapsed_seconds", ra_now_seconds() - c->started, 1);
        json_uint_or_null(&j, "knee_kb", c->knee_kb > 0, c->knee_kb);
        json_uint(&j, "knee_one_stream_kb", c->one[c->knee_one.knee].read_ahead_kb);
        json_uint(&j, "knee_streams_kb", c->multi[c->knee_multi.knee].read_ahead_kb);
        json_boolean(&j, "confident", c->knee_kb > 0);
        json_boolean(&j, "still_rising", c->knee_one.at_top || c->knee_multi.at_top);
        json_double(&j, "gain", c->chosen->gain, 3);
        json_double(&j, "noise", c->chosen->noise, 3);
        json_string(&j, "verdict", c->verdict);
        if (written_file) {
                json_begin_object(&j, "written");
                json_string(&j, "file", written_file);
                json_string(&j, "rule", written_rule);
                json_end_object(&j);
        } else
                json_string(&j, "written", NULL);

        json_begin_array(&j, "sizes");
        for (size_t i = 0; i < p->n_sizes; i++) {
                json_begin_object(&j, NULL);
                json_uint(&j, "read_ahead_kb", p->sizes_kb[i]);
                json_double(&j, "mib_per_s", c->one[i].median, 2);
                json_double(&j, "mib_per_s_min", c->one[i].min, 2);
                json_double(&j, "mib_per_s_max", c->one[i].max, 2);
                json_double(&j, "streams_mib_per_s", c->multi[i].median, 2);
                json_double(&j, "streams_mib_per_s_min", c->multi[i].min, 2);
                json_double(&j, "streams_mib_per_s_max", c->multi[i].max, 2);
                json_double(&j, "ms_per_fault", c->fault[i].median, 3);
                json_end_object(&j);
        }
        json_end_array(&j);

        json_begin_array(&j, "samples");
        for (unsigned round = 0; round < p->rounds; round++)
                for (size_t i = 0; i < p->n_sizes; i++) {
                        size_t at = i * p->rounds + round;
                        for (int kind = STEP_ONE_STREAM; kind <= STEP_STREAMS; kind++) {
                                json_begin_object(&j, NULL);
                                json_uint(&j, "read_ahead_kb", p->sizes_kb[i]);
                                json_uint(&j, "round", round + 1);
                                json_uint(&j, "streams", kind == STEP_ONE_STREAM ? 1 : p->streams);
                                json_double(&j, "mib_per_s",
                                            kind == STEP_ONE_STREAM ? c->one_mib_s[at] : c->streams_mib_s[at], 2);
                                json_end_object(&j);
                        }
                }
        json_end_array(&j);

        json_begin_array(&j, "faults");
        for (unsigned round = 0; round < p->rounds; round++)
                for (size_t i = 0; i < p->n_sizes; i++) {
                        size_t at = i * p->rounds + round;
                        json_begin_object(&j, NULL);
                        json_uint(&j, "read_ahead_kb", p->sizes_kb[i]);
                        json_uint(&j, "round", round + 1);
                        json_uint(&j, "faults", c->faults[at]);
                        json_double(&j, "ms_per_fault", c->fault_ms[at], 3);
                        json_end_object(&j);
                }
        json_end_array(&j);
        json_end_object(&j);
        return json_finish(&j);
}

/* ---- --write ------------------------------------------------------------- */

/* What the drop-in says about where its value came from. */
static void dropin_comment(const struct calibration *c, char *buf, size_t size) {
        const struct ra_knee_point *best = &c->chosen_points[c->chosen->best];
        size_t k = c->chosen->knee;
        char a[24], b[24];

        snprintf(buf, size,
                 "# For %s (%s). Knee: %s, the smallest read_ahead_kb within %.0f%% of\n"
                 "# the best sequential throughput (1 stream: %.1f MiB/s, %u streams: %.1f MiB/s;\n"
                 "# best %.1f MiB/s at %s).\n",
                 c->f->name, ra_class_to_string(c->f->class), ra_format_size_kb(c->knee_kb, a),
                 RA_KNEE_TOLERANCE * 100, c->one[k].median, c->plan.streams, c->multi[k].median, best->median,
                 ra_format_size_kb(best->read_ahead_kb, b));
}

/* ---- the verb ------------------------------------------------------------ */

static int run(struct ctl *ctl, const struct ctl_device *d, const struct plan *plan, const struct stable_id *id) {
        struct calibration *c = calloc(1, sizeof(*c));
        const struct ra_facts *f = &d->facts;
        char a[24], b[24], sz[16], written[RA_PATH_MAX + 80] = "", section[64] = "", rule[RA_PATH_MAX + 80] = "";
        uint64_t after_kb;
        int r, exit_code = EXIT_OK;

        if (!c) {
                ctl_error("calibrate", "out of memory");
                return EXIT_FAILURE_;
        }
        c->f = f;
        c->before_kb = after_kb = f->current_kb;
        c->tty = isatty(STDERR_FILENO);
        c->started = ra_now_seconds();
        c->seed = (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 32);
        snprintf(c->devnode, sizeof(c->devnode), "/dev/%s", f->name);
        c->plan = *plan;
        c->n_slots = (unsigned) (f->size_bytes / REGION_BYTES_TARGET);
        c->n_slots = c->n_slots < SLOTS_MIN ? SLOTS_MIN : c->n_slots > SLOTS_MAX ? SLOTS_MAX : c->n_slots;
        c->slot_bytes = f->size_bytes / c->n_slots / (1 << 20) * (1 << 20);

        /* Fail now, not after minutes of measuring. */
        int fd = open(c->devnode, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                ctl_error("calibrate", "cannot open %s read-only: %m", c->devnode);
                free(c);
                return EXIT_FAILURE_;
        }
        close(fd);

        const struct plan *p = &c->plan;
        if (!ctl->json) {
                char text[256];
                snprintf(text, sizeof(text), "Calibrating %s (%s, %s%s%s%s): read_ahead_kb %s now, put back afterwards.",
                         f->name, ra_class_to_string(f->class), format_bytes_short(f->size_bytes, sz),
                         id ? ", " : "", id ? id->key : "", id ? "=" : "", ra_format_size_kb(c->before_kb, a));
                print_wrapped(text);
                snprintf(text, sizeof(text),
                         "%u rounds of %zu sizes (%s to %s), 1 stream, %u streams and random faults: about %.0f s.",
                         p->rounds, p->n_sizes, ra_format_size_kb(p->sizes_kb[0], a),
                         ra_format_size_kb(p->sizes_kb[p->n_sizes - 1], b), p->streams, p->seconds);
                print_wrapped(text);
                fflush(stdout);
        }

        catch_stop_signals(f->attr_path, c->before_kb, true);
        r = measure_all(c);
        progress_done(c);
        int restored = set_read_ahead(c, c->before_kb);
        int sig = atomic_load(&stop_signal);
        catch_stop_signals(NULL, 0, false);
        if (restored < 0) {
                ctl_error("calibrate", "could not put read_ahead_kb of %s back to %s", f->name,
                          ra_format_size_kb(c->before_kb, a));
                exit_code = EXIT_FAILURE_;
        }
        if (sig) {
                ctl_error("calibrate", "interrupted by %s%s%s", strsignal(sig),
                          restored < 0 ? "" : "; read_ahead_kb put back to ",
                          restored < 0 ? "" : ra_format_size_kb(c->before_kb, a));
                free(c);
                return 128 + sig;
        }
        if (r < 0) {
                free(c);
                return EXIT_FAILURE_;
        }

        analyse(c);
        if (!ctl->json) {
                print_table(c);
                char text[sizeof(c->verdict) + 128];
                if (c->knee_kb)
                        snprintf(text, sizeof(text), "Knee: %s, %s.", ra_format_size_kb(c->knee_kb, a), c->verdict);
                else
                        snprintf(text, sizeof(text),
                                 "No recommendation: %s. Run again on an idle system, or with a longer --time.",
                                 c->verdict);
                putchar('\n');
                print_wrapped(text);
                if (c->knee_one.at_top || c->knee_multi.at_top)
                        printf("Throughput still rises at %s: the knee may lie above; try a larger --max.\n",
                               ra_format_size_kb(p->sizes_kb[p->n_sizes - 1], a));
                if (ra_plan_has_target(&d->plan))
                        printf("The profile gives %s %s (%s).\n", f->name,
                               ra_format_size_kb(d->plan.decision.target_kb, a), short_rule(d->plan.rule));
                if (restored >= 0)
                        printf("read_ahead_kb put back to %s.\n", ra_format_size_kb(c->before_kb, a));
                fflush(stdout);
        }
        if (!c->knee_kb)
                exit_code = EXIT_FAILURE_;

        if (ctl->calibrate.write && c->knee_kb && exit_code == EXIT_OK) {
                char comment[512];
                dropin_comment(c, comment, sizeof(comment));
                r = dropin_write(ctl, "calibrate", 80, id, comment, c->knee_kb, section, sizeof(section), written,
                                 sizeof(written));
                if (r >= 0) {
                        if (!ctl->json)
                                printf("Wrote %s: [Rule %s] %s=%s, Size=%s.\n", written, section, id->key, id->value,
                                       ra_format_size_kb(c->knee_kb, a));
                        /* apply's line with the text, never inside the JSON */
                        r = dropin_apply(ctl, "calibrate", f->name, written, section, ctl->json, &after_kb);
                        snprintf(rule, sizeof(rule), "%s:%s", written, section);
                }
                if (r < 0)
                        exit_code = EXIT_FAILURE_;
        }
        if (ctl->json && print_json(c, d, id, after_kb, written[0] ? written : NULL, written[0] ? rule : NULL) < 0)
                exit_code = EXIT_FAILURE_;
        free(c);
        return exit_code;
}

int verb_calibrate(struct ctl *ctl, int argc, char **argv) {
        struct stable_id id;
        struct ctl_device d;
        bool have_id;
        int r;

        (void) argc;
        /* Usage errors first: they hold whoever runs it, on any device. The
         * page size is the one gather gives every device. */
        long page = sysconf(_SC_PAGESIZE);
        struct plan plan;
        if (make_plan(&ctl->calibrate, page >= 1024 ? (unsigned) (page / 1024) : 4, &plan) < 0)
                return EXIT_USAGE;
        if (geteuid() != 0) {
                ctl_error("calibrate", "needs root: it sets read_ahead_kb and reads the "
                          "device node");
                return EXIT_FAILURE_;
        }
        r = device_find(ctl->udev, ctl->config, argv[0], &d);
        if (r < 0) {
                ctl_error("calibrate", "%s: %s", argv[0],
                          r == -ENOTBLK  ? "not a whole disk"
                          : r == -ENOENT ? "no mount at that path"
                          : "no such block device");
                return EXIT_FAILURE_;
        }
        if (refuse_device(&d) < 0) {
                device_done(&d);
                return EXIT_FAILURE_;
        }
        have_id = find_stable_id(&d.facts, &id);
        if (ctl->calibrate.write && !have_id) {
                stable_id_missing("calibrate", d.facts.name);
                device_done(&d);
                return EXIT_FAILURE_;
        }
        r = run(ctl, &d, &plan, have_id ? &id : NULL);
        device_done(&d);
        return r;
}
