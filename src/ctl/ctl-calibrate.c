/* SPDX-License-Identifier: MIT */
/*
 * readahead-ctl calibrate DEV: measure the device's own knee, the smallest
 * read_ahead_kb within 10% of the best sequential throughput. The plan comes
 * from the options here, the measurement run is calibration.c's; --write
 * makes the knee a rule for the device (dropin.c) and applies it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibration.h"
#include "ctl.h"
#include "devices.h"
#include "dropin.h"
#include "measure.h"
#include "output.h"
#include "plan.h"
#include "size.h"
#include "text.h"

/* The options of calibrate, as given: make_plan() checks them. */
struct calibrate_options {
        const char *seconds, *min, *max, *rounds, *streams;
        bool write;
};

static struct calibrate_options options;

enum {
        ARG_TIME = 0x100,
        ARG_MIN,
        ARG_MAX,
        ARG_ROUNDS,
        ARG_STREAMS,
        ARG_WRITE,
};

#define DEFAULT_MIN_KB 16
#define DEFAULT_MAX_MB 16
#define DEFAULT_MAX_KB (DEFAULT_MAX_MB * 1024)
#define DEFAULT_SECONDS 120
#define DEFAULT_ROUNDS 3
#define DEFAULT_STREAMS 4

const struct ctl_option verb_calibrate_options[] = {
        { .getopt = { "time", required_argument, NULL, ARG_TIME },
          .arg = "SECONDS",
          .help = "measuring time (default " RA_STRINGIFY(DEFAULT_SECONDS) ")" },
        { .getopt = { "min", required_argument, NULL, ARG_MIN },
          .arg = "SIZE",
          .help = "read_ahead_kb from (default " RA_STRINGIFY(DEFAULT_MIN_KB) "K)" },
        { .getopt = { "max", required_argument, NULL, ARG_MAX },
          .arg = "SIZE",
          .help = "read_ahead_kb to (default " RA_STRINGIFY(DEFAULT_MAX_MB) "M)" },
        { .getopt = { "rounds", required_argument, NULL, ARG_ROUNDS },
          .arg = "N",
          .help = "rounds, interleaved (default " RA_STRINGIFY(DEFAULT_ROUNDS) ")" },
        { .getopt = { "streams", required_argument, NULL, ARG_STREAMS },
          .arg = "N",
          .help = "streams read at once (default " RA_STRINGIFY(DEFAULT_STREAMS) ")" },
        { .getopt = { "write", no_argument, NULL, ARG_WRITE },
          .help = "make the knee a rule for the device by its\n"
                  "ID_WWN, ID_SERIAL, MD_UUID or DM_UUID; apply it" },
        {},
};

int verb_calibrate_parse(struct ctl *ctl, int argc, char **argv) {
        int c;

        while ((c = ctl_getopt(ctl, argc, argv)) >= 0)
                switch (c) {
                case ARG_TIME:
                        options.seconds = optarg;
                        break;
                case ARG_MIN:
                        options.min = optarg;
                        break;
                case ARG_MAX:
                        options.max = optarg;
                        break;
                case ARG_ROUNDS:
                        options.rounds = optarg;
                        break;
                case ARG_STREAMS:
                        options.streams = optarg;
                        break;
                case ARG_WRITE:
                        options.write = true;
                        break;
                default:
                        return -1;
                }
        return optind;
}

#define STEP_SECONDS_MIN 0.4
#define SECONDS_MAX (24 * 3600)
#define DEVICE_BYTES_MIN (UINT64_C(64) << 20)
#define CALIBRATE_ORDER 80 /* the drop-in's number: advise's evidence (81) comes later and wins */

/* ---- options ------------------------------------------------------------ */

static int parse_unsigned(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *ret) {
        if (ra_parse_uint(s, lo, hi, ret) < 0) {
                ctl_error("calibrate", "%s=%s: expected a whole number from %u to %u", opt,
                          s ? s : "", lo, hi);
                return -EINVAL;
        }
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

static int make_plan(const struct calibrate_options *o, unsigned page_kb, struct calibrate_plan *p) {
        uint64_t min_kb = DEFAULT_MIN_KB, max_kb = DEFAULT_MAX_KB;
        unsigned seconds = DEFAULT_SECONDS;
        char a[24], b[24];

        *p = (struct calibrate_plan){ .rounds = DEFAULT_ROUNDS, .streams = DEFAULT_STREAMS };
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
        const char *why = dropin_refused_class(f);
        if (why) {
                ctl_error("calibrate", "%s is %s; not calibrated", f->name, why);
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
        if (strlen(f->attr_path) >= RESTORE_PATH_MAX) {
                /* the signal handler puts the value back through a copy */
                ctl_error("calibrate", "%s: the path of read_ahead_kb is too long", f->name);
                return -ENAMETOOLONG;
        }
        return 0;
}

/* ---- output -------------------------------------------------------------- */

static double spread_of(const struct ra_knee_point *p) {
        return p->median > 0 ? (p->max - p->min) / p->median : 0;
}

static void print_table(const struct calibration *c) {
        const struct calibrate_plan *p = &c->plan;
        char a[24];

        printf("\nread_ahead_kb   1 stream MiB/s     %2u streams MiB/s   random fault\n", p->streams);
        printf("                median  spread     median  spread     ms (median)\n");
        for (size_t i = 0; i < p->n_sizes; i++)
                printf("%12s %s %9.1f %6.0f%%  %9.1f %6.0f%%  %12.2f\n", ra_format_size_kb(p->sizes_kb[i], a),
                       p->sizes_kb[i] == c->knee_kb ? "*" : " ", c->one[i].median, spread_of(&c->one[i]) * 100,
                       c->multi[i].median, spread_of(&c->multi[i]) * 100, c->fault[i].median);
}

/* The calibration's result: the device, the plan, the knee and what
 * --write wrote. */
static void print_json_summary(struct json *j, const struct calibration *c, const struct ctl_device *d,
                               const struct ra_stable_id *id, uint64_t after_kb, const char *written_file,
                               const char *written_rule) {
        const struct calibrate_plan *p = &c->plan;
        char idbuf[RA_STABLE_ID_MAX + 32];

        json_string(j, "device", c->f->name);
        json_string(j, "class", ra_class_to_string(c->f->class));
        json_uint(j, "size_bytes", c->f->size_bytes);
        if (id)
                snprintf(idbuf, sizeof(idbuf), "%s=%s", id->key, id->value);
        json_string(j, "stable_id", id ? idbuf : NULL);
        json_uint(j, "read_ahead_kb_before", c->before_kb);
        json_uint(j, "read_ahead_kb_after", after_kb);
        json_uint_or_null(j, "profile_target_kb", ra_plan_has_target(&d->plan), d->plan.decision.target_kb);
        json_uint(j, "rounds", p->rounds);
        json_uint(j, "streams", p->streams);
        json_double(j, "seconds_per_step", p->step_seconds, 3);
        json_double(j, "elapsed_seconds", ra_now_seconds() - c->started, 1);
        json_uint_or_null(j, "knee_kb", c->knee_kb > 0, c->knee_kb);
        json_uint(j, "knee_one_stream_kb", c->one[c->knee_one.knee].read_ahead_kb);
        json_uint(j, "knee_streams_kb", c->multi[c->knee_multi.knee].read_ahead_kb);
        json_boolean(j, "confident", c->knee_kb > 0);
        json_boolean(j, "still_rising", c->knee_one.at_top || c->knee_multi.at_top);
        json_double(j, "gain", c->chosen->gain, 3);
        json_double(j, "noise", c->chosen->noise, 3);
        json_string(j, "verdict", c->verdict);
        if (written_file) {
                json_begin_object(j, "written");
                json_string(j, "file", written_file);
                json_string(j, "rule", written_rule);
                json_end_object(j);
        } else
                json_string(j, "written", NULL);
}

/* "sizes": one row per read_ahead_kb tried, the medians and ranges. */
static void print_json_sizes(struct json *j, const struct calibration *c) {
        const struct calibrate_plan *p = &c->plan;

        json_begin_array(j, "sizes");
        for (size_t i = 0; i < p->n_sizes; i++) {
                json_begin_object(j, NULL);
                json_uint(j, "read_ahead_kb", p->sizes_kb[i]);
                json_double(j, "mib_per_s", c->one[i].median, 2);
                json_double(j, "mib_per_s_min", c->one[i].min, 2);
                json_double(j, "mib_per_s_max", c->one[i].max, 2);
                json_double(j, "streams_mib_per_s", c->multi[i].median, 2);
                json_double(j, "streams_mib_per_s_min", c->multi[i].min, 2);
                json_double(j, "streams_mib_per_s_max", c->multi[i].max, 2);
                json_double(j, "ms_per_fault", c->fault[i].median, 3);
                json_end_object(j);
        }
        json_end_array(j);
}

/* "samples": every throughput step, round by round, one stream then many. */
static void print_json_samples(struct json *j, const struct calibration *c) {
        const struct calibrate_plan *p = &c->plan;

        json_begin_array(j, "samples");
        for (unsigned round = 0; round < p->rounds; round++)
                for (size_t i = 0; i < p->n_sizes; i++) {
                        size_t at = i * p->rounds + round;
                        for (int kind = STEP_ONE_STREAM; kind <= STEP_STREAMS; kind++) {
                                json_begin_object(j, NULL);
                                json_uint(j, "read_ahead_kb", p->sizes_kb[i]);
                                json_uint(j, "round", round + 1);
                                json_uint(j, "streams", kind == STEP_ONE_STREAM ? 1 : p->streams);
                                json_double(j, "mib_per_s",
                                            kind == STEP_ONE_STREAM ? c->one_mib_s[at]
                                                                    : c->streams_mib_s[at],
                                            2);
                                json_end_object(j);
                        }
                }
        json_end_array(j);
}

/* "faults": every random-fault step, round by round. */
static void print_json_faults(struct json *j, const struct calibration *c) {
        const struct calibrate_plan *p = &c->plan;

        json_begin_array(j, "faults");
        for (unsigned round = 0; round < p->rounds; round++)
                for (size_t i = 0; i < p->n_sizes; i++) {
                        size_t at = i * p->rounds + round;
                        json_begin_object(j, NULL);
                        json_uint(j, "read_ahead_kb", p->sizes_kb[i]);
                        json_uint(j, "round", round + 1);
                        json_uint(j, "faults", c->faults[at]);
                        json_double(j, "ms_per_fault", c->fault_ms[at], 3);
                        json_end_object(j);
                }
        json_end_array(j);
}

static int print_json(const struct calibration *c, const struct ctl_device *d, const struct ra_stable_id *id,
                      uint64_t after_kb, const char *written_file, const char *written_rule) {
        struct json j = { .f = stdout };

        json_begin_object(&j, NULL);
        print_json_summary(&j, c, d, id, after_kb, written_file, written_rule);
        print_json_sizes(&j, c);
        print_json_samples(&j, c);
        print_json_faults(&j, c);
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

/* The knee as a rule for the device (dropin.c), applied at once. written:
 * the drop-in's path, filled in even when writing it fails; rule:
 * "file:section" once it is written. */
static int write_knee(struct ctl *ctl, const struct calibration *c, const struct ra_stable_id *id,
                      char *written, size_t written_size, char *rule, size_t rule_size, uint64_t *after_kb) {
        char comment[512], section[64] = "", a[24];
        int r;

        dropin_comment(c, comment, sizeof(comment));
        r = dropin_write(ctl, "calibrate", CALIBRATE_ORDER, id, comment, c->knee_kb, section, sizeof(section),
                         written, written_size);
        if (r < 0)
                return r;
        if (!ctl->json)
                printf("Wrote %s: [Rule %s] %s=%s, Size=%s.\n", written, section, id->key, id->value,
                       ra_format_size_kb(c->knee_kb, a));
        /* apply's line with the text, never inside the JSON */
        r = dropin_apply(ctl, "calibrate", c->f->name, written, section, ctl->json, after_kb);
        snprintf(rule, rule_size, "%s:%s", written, section);
        return r;
}

/* ---- the verb ------------------------------------------------------------ */

static void print_intro(const struct calibration *c, const struct ra_stable_id *id) {
        const struct calibrate_plan *p = &c->plan;
        const struct ra_facts *f = c->f;
        char a[24], b[24], sz[16], text[256];

        snprintf(text, sizeof(text),
                 "Calibrating %s (%s, %s%s%s%s): read_ahead_kb %s now, put back afterwards.", f->name,
                 ra_class_to_string(f->class), format_bytes_short(f->size_bytes, sz), id ? ", " : "",
                 id ? id->key : "", id ? "=" : "", ra_format_size_kb(c->before_kb, a));
        print_wrapped(text);
        snprintf(text, sizeof(text),
                 "%u rounds of %zu sizes (%s to %s), 1 stream, %u streams and random faults: about %.0f s.",
                 p->rounds, p->n_sizes, ra_format_size_kb(p->sizes_kb[0], a),
                 ra_format_size_kb(p->sizes_kb[p->n_sizes - 1], b), p->streams, p->seconds);
        print_wrapped(text);
        fflush(stdout);
}

/* The table, the knee or why there is none, and what the profile says. */
static void print_result(const struct calibration *c, const struct ctl_device *d) {
        const struct calibrate_plan *p = &c->plan;
        char a[24], text[sizeof(c->verdict) + 128];

        print_table(c);
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
                printf("The profile gives %s %s (%s).\n", d->facts.name,
                       ra_format_size_kb(d->plan.decision.target_kb, a), short_rule(d->plan.rule));
        if (c->restored)
                printf("read_ahead_kb put back to %s.\n", ra_format_size_kb(c->before_kb, a));
        fflush(stdout);
}

/* Measures d by plan, says the knee, and with --write makes it a rule. The
 * exit code: 128 + the signal that stopped it; failure when the value could
 * not be put back, there is no knee, or --write failed. */
static int run(struct ctl *ctl, const struct ctl_device *d, const struct calibrate_plan *plan,
               const struct ra_stable_id *id) {
        struct calibration *c = calloc(1, sizeof(*c));
        char written[RA_PATH_MAX + 80] = "", rule[RA_PATH_MAX + 80] = "";
        uint64_t after_kb = d->facts.current_kb;
        int exit_code = EXIT_FAILURE;

        if (!c) {
                ctl_error("calibrate", "out of memory");
                goto out;
        }
        if (calibration_init(c, &d->facts, plan) < 0)
                goto out;
        if (!ctl->json)
                print_intro(c, id);
        if (calibration_measure(c) < 0) {
                if (c->stopped_by)
                        exit_code = 128 + c->stopped_by;
                goto out;
        }

        calibration_analyse(c);
        if (!ctl->json)
                print_result(c, d);
        if (c->restored && c->knee_kb)
                exit_code = EXIT_OK;
        if (options.write && exit_code == EXIT_OK &&
            write_knee(ctl, c, id, written, sizeof(written), rule, sizeof(rule), &after_kb) < 0)
                exit_code = EXIT_FAILURE;
        if (ctl->json &&
            print_json(c, d, id, after_kb, written[0] ? written : NULL, written[0] ? rule : NULL) < 0)
                exit_code = EXIT_FAILURE;
out:
        free(c);
        return exit_code;
}

int verb_calibrate(struct ctl *ctl, int argc, char **argv) {
        struct ra_stable_id id;
        struct ctl_device d;
        bool have_id;
        int r;

        (void) argc;
        /* Usage errors first: they hold whoever runs it, on any device. The
         * page size is the one gather gives every device. */
        long page = sysconf(_SC_PAGESIZE);
        struct calibrate_plan plan;
        if (make_plan(&options, page >= 1024 ? (unsigned) (page / 1024) : 4, &plan) < 0)
                return EXIT_USAGE;
        if (geteuid() != 0) {
                ctl_error("calibrate", "needs root: it sets read_ahead_kb and reads the "
                          "device node");
                return EXIT_FAILURE;
        }
        r = device_find(ctl->udev, ctl->config, argv[0], &d);
        if (r < 0) {
                ctl_error("calibrate", "%s: %s", argv[0],
                          r == -ENOTBLK  ? "not a whole disk"
                          : r == -ENOENT ? "no mount at that path"
                          : "no such block device");
                return EXIT_FAILURE;
        }
        if (refuse_device(&d) < 0) {
                device_done(&d);
                return EXIT_FAILURE;
        }
        have_id = ra_find_stable_id(&d.facts, &id);
        if (options.write && !have_id) {
                stable_id_missing("calibrate", &d.facts);
                device_done(&d);
                return EXIT_FAILURE;
        }
        /* Before the sweep: minutes of measuring for a rule never written. */
        if (options.write && dropin_check_unique(ctl, "calibrate", &d.facts, &id) < 0) {
                device_done(&d);
                return EXIT_FAILURE;
        }
        r = run(ctl, &d, &plan, have_id ? &id : NULL);
        device_done(&d);
        return r;
}
