/* SPDX-License-Identifier: MIT */
/*
 * The measurement run of calibrate. For each power of two in the plan,
 * rounds interleaved (ascending, then descending, so that drift hits every
 * size alike), with the page cache of what is read dropped before and after
 * each step:
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
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibration.h"
#include "fileio.h"
#include "gather.h"
#include "measure.h"
#include "output.h"
#include "plan.h"
#include "size.h"
#include "write-read-ahead.h"

#define FAULTS_MIN 3               /* per step, even past its time */
/* The readahead window starts at a few pages and doubles: by two windows
 * consumed it runs at full size. The first moments can also see a burst
 * (a drive's cache, a throttle's first slice of 100 ms): left out too. */
#define WARMUP_WINDOWS 2
#define WARMUP_SECONDS 0.15
/* Reads of 16 KiB (never more than the smallest size measured): the same
 * readahead as 4 KiB reads with a quarter of the system calls, so that the
 * CPU of a busy machine does not limit several fast streams. */
#define READ_BYTES_MAX (16 * 1024)
#define REGION_BYTES_TARGET (UINT64_C(256) << 20)
#define SLOTS_MIN 8
#define SLOTS_MAX 256

/* ---- signals: put the value back whatever happens ---------------------- */

static atomic_int stop_signal;
static char restore_path[RESTORE_PATH_MAX];
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

/* ---- setting up ----------------------------------------------------------- */

int calibration_init(struct calibration *c, const struct ra_facts *f, const struct calibrate_plan *plan) {
        c->f = f;
        c->before_kb = f->current_kb;
        c->tty = isatty(STDERR_FILENO);
        c->started = ra_now_seconds();
        c->seed = (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 32);
        snprintf(c->devnode, sizeof(c->devnode), "/dev/%s", f->name);
        c->plan = *plan;
        c->n_slots = (unsigned) (f->size_bytes / REGION_BYTES_TARGET);
        c->n_slots = c->n_slots < SLOTS_MIN ? SLOTS_MIN : c->n_slots > SLOTS_MAX ? SLOTS_MAX : c->n_slots;
        c->slot_bytes = f->size_bytes / c->n_slots / (1 << 20) * (1 << 20);

        int fd = open(c->devnode, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                int r = -errno;
                ctl_error("calibrate", "cannot open %s read-only: %m", c->devnode);
                return r;
        }
        close(fd);
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

int calibration_measure(struct calibration *c) {
        char a[24];
        int r;

        catch_stop_signals(c->f->attr_path, c->before_kb, true);
        r = measure_all(c);
        progress_done(c);
        c->restored = set_read_ahead(c, c->before_kb) >= 0;
        c->stopped_by = atomic_load(&stop_signal);
        catch_stop_signals(NULL, 0, false);
        if (!c->restored)
                ctl_error("calibrate", "could not put read_ahead_kb of %s back to %s", c->f->name,
                          ra_format_size_kb(c->before_kb, a));
        if (c->stopped_by) {
                ctl_error("calibrate", "interrupted by %s%s%s", strsignal(c->stopped_by),
                          c->restored ? "; read_ahead_kb put back to " : "",
                          c->restored ? ra_format_size_kb(c->before_kb, a) : "");
                return -EINTR;
        }
        return r;
}

/* ---- the knee ------------------------------------------------------------- */

void calibration_analyse(struct calibration *c) {
        const struct calibrate_plan *p = &c->plan;
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
