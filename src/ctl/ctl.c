/* SPDX-License-Identifier: MIT */
/* readahead-ctl: show, explain, apply and check readahead decisions. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "output.h"

static const struct verb verbs[] = {
        { "status", 0, 0, verb_status, TAKES_JSON | TAKES_PROMETHEUS | TAKES_TABLE | TAKES_ALL,
          "disks and mounts, stacked as a tree: class, facts, target, rule" },
        { "explain", 1, 1, verb_explain, TAKES_JSON, "DEV: all facts, every rule tried, caps, result" },
        { "apply", 0, -1, verb_apply, 0, "[DEV...]: decide and write now (root)" },
        { "check", 0, 0, verb_check, TAKES_JSON, "load all configuration, print every problem" },
        { "reset", 0, -1, verb_reset, 0, "[DEV...]: put back the kernel's own value (root)" },
        { "cat-config", 0, 0, verb_cat_config, 0, "every configuration file in effect, in order" },
        { "calibrate", 1, 1, verb_calibrate, TAKES_JSON | TAKES_TIME_WRITE | TAKES_MEASURE,
          "DEV: measure the device's knee, read-only (root)" },
        { "advise", 0, -1, verb_advise, TAKES_JSON | TAKES_PROMETHEUS | TAKES_TIME_WRITE,
          "[DEV...]: watch what is read, say raise, lower or keep" },
};

#define N_VERBS (sizeof(verbs) / sizeof(verbs[0]))

/* The group of option letter c, 0 for the options every verb takes. */
static unsigned option_group(int c) {
        switch (c) {
        case 't':
        case 'w':
                return TAKES_TIME_WRITE;
        case 'm':
        case 'M':
        case 'u':
        case 's':
                return TAKES_MEASURE;
        case 'o':
        case 'l':
        case 'r':
        case 'n':
                return TAKES_TABLE;
        case 'a':
                return TAKES_ALL;
        default:
                return 0;
        }
}

/* "status, explain and check": the verbs that take all of the groups in
 * `takes`, from the table, for the errors that name them. */
static const char *verbs_taking(unsigned takes, char *buf, size_t size) {
        size_t n = 0, k = 0, len = 0;

        for (size_t i = 0; i < N_VERBS; i++)
                if ((verbs[i].takes & takes) == takes)
                        n++;
        buf[0] = 0;
        for (size_t i = 0; i < N_VERBS; i++) {
                if ((verbs[i].takes & takes) != takes)
                        continue;
                const char *sep = k == 0 ? "" : k + 1 == n ? " and " : ", ";
                int w = snprintf(buf + len, size - len, "%s%s", sep, verbs[i].name);
                if (w < 0 || (size_t) w >= size - len)
                        break;
                len += (size_t) w;
                k++;
        }
        return buf;
}

static void help(void) {
        printf("Usage: readahead-ctl [OPTIONS] VERB [ARGS]\n\nVerbs:\n");
        for (size_t i = 0; i < N_VERBS; i++)
                printf("  %-10s %s\n", verbs[i].name, verbs[i].help);
        printf("\nOptions:\n"
               "  --json        machine-readable output (status, explain, check, calibrate)\n"
               "  --format=FMT  table (default), json (= --json), or prometheus (status:\n"
               "                text format for node_exporter's textfile collector)\n"
               "  --root DIR    read configuration below DIR\n"
               "  --help, --version\n\n"
               "Options of status (the table):\n"
               "  -o, --output LIST       columns, comma-separated; +LIST adds to the default\n"
               "                          (NAME,CLASS,BUS,FACTS,TARGET,CURRENT,RULE); see the\n"
               "                          man page for all, e.g. KIND,SIZE,STRIPE,DRIFT,REASON\n"
               "  -l, --list              one row per device, no tree\n"
               "  -r, --raw               cells separated by one blank, escaped; no tree\n"
               "  -n, --noheadings        no heading line\n"
               "  (with --raw or --noheadings only the table is printed)\n"
               "  -a, --all               also disks without media (size 0: empty loop\n"
               "                          devices, unsized zram), in every format\n\n"
               "Options of calibrate:\n"
               "  --time SECONDS          measuring time (default 120)\n"
               "  --min SIZE, --max SIZE  read_ahead_kb from, to (default 16K, 16M)\n"
               "  --rounds N              rounds, interleaved (default 3)\n"
               "  --streams N             streams read at once (default 4)\n"
               "  --write                 make the knee a rule for the device by its\n"
               "                          ID_WWN, ID_SERIAL, MD_UUID or DM_UUID; apply it\n\n"
               "Options of advise:\n"
               "  --time SECONDS          observing time (default 30)\n"
               "  --write                 make the suggestion a rule for the device by the\n"
               "                          same ids, and apply it\n\n"
               "Exit status: 0 success, 1 configuration error, unknown device, failed\n"
               "write or output that could not be written, 2 usage error.\n");
}

const char *short_rule(const char *rule) {
        const char *colon = strrchr(rule, ':');
        const char *slash = NULL;
        for (const char *p = rule; p < (colon ? colon : rule + strlen(rule)); p++)
                if (*p == '/')
                        slash = p;
        return slash ? slash + 1 : rule;
}

/* The long name of option C, for errors ("--time", whatever form was typed). */
static const char *long_option_name(const struct option *opts, int c) {
        for (; opts->name; opts++)
                if (opts->val == c)
                        return opts->name;
        return "?";
}

/*
 * At exit, as util-linux's close_stdout: output lost to a full disk or a
 * closed file is an error, so that `readahead-ctl status > f.tmp && mv`
 * never installs a cut file. EPIPE is a reader that had enough.
 */
static void close_stdout(void) {
        bool failed = ferror(stdout), pending = __fpending(stdout) > 0;

        errno = 0;
        if (fclose(stdout) != 0 && (pending || errno != EBADF))
                failed = true;
        else if (failed)
                errno = 0; /* the error of the failed write is gone */
        if (!failed || errno == EPIPE)
                return;
        if (errno)
                ctl_error(NULL, "write error: %s", strerror(errno));
        else
                ctl_error(NULL, "write error");
        _exit(EXIT_FAILURE_);
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "json", no_argument, NULL, 'j' },
                { "format", required_argument, NULL, 'f' },
                { "root", required_argument, NULL, 'D' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { "time", required_argument, NULL, 't' },
                { "min", required_argument, NULL, 'm' },
                { "max", required_argument, NULL, 'M' },
                { "rounds", required_argument, NULL, 'u' },
                { "streams", required_argument, NULL, 's' },
                { "write", no_argument, NULL, 'w' },
                { "output", required_argument, NULL, 'o' },
                { "list", no_argument, NULL, 'l' },
                { "raw", no_argument, NULL, 'r' },
                { "noheadings", no_argument, NULL, 'n' },
                { "all", no_argument, NULL, 'a' },
                {},
        };
        struct ctl ctl = {};
        const struct verb *verb = NULL;
        char names[128]; /* verbs_taking() */
        int c, r;

        atexit(close_stdout);
        /* GNU getopt moves the verb and its arguments behind the options. */
        while ((c = getopt_long(argc, argv, "o:lrna", opts, NULL)) >= 0) {
                unsigned group = option_group(c);
                if ((group & (TAKES_TIME_WRITE | TAKES_MEASURE)) && !ctl.calibrate.given)
                        ctl.calibrate.given = long_option_name(opts, c);
                if ((group & TAKES_TABLE) && !ctl.status.given)
                        ctl.status.given = long_option_name(opts, c);
                switch (c) {
                case 'j':
                        ctl.format = FORMAT_JSON;
                        break;
                case 'f':
                        if (strcmp(optarg, "table") == 0)
                                ctl.format = FORMAT_TABLE;
                        else if (strcmp(optarg, "json") == 0)
                                ctl.format = FORMAT_JSON;
                        else if (strcmp(optarg, "prometheus") == 0)
                                ctl.format = FORMAT_PROMETHEUS;
                        else {
                                ctl_error(NULL, "--format: '%s' is not table, json or prometheus",
                                          optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 'D':
                        ctl.root = optarg;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                case 'V':
                        printf("readahead-ctl %s\n", RA_VERSION);
                        return EXIT_OK;
                case 't':
                        ctl.calibrate.seconds = optarg;
                        break;
                case 'm':
                        ctl.calibrate.min = optarg;
                        break;
                case 'M':
                        ctl.calibrate.max = optarg;
                        break;
                case 'u':
                        ctl.calibrate.rounds = optarg;
                        break;
                case 's':
                        ctl.calibrate.streams = optarg;
                        break;
                case 'w':
                        ctl.calibrate.write = true;
                        break;
                case 'o':
                        ctl.status.output = optarg;
                        break;
                case 'l':
                        ctl.status.list = true;
                        break;
                case 'r':
                        ctl.status.raw = true;
                        break;
                case 'n':
                        ctl.status.noheadings = true;
                        break;
                case 'a':
                        ctl.status.all = true;
                        break;
                default:
                        return EXIT_USAGE;
                }
        }

        if (optind >= argc)
                verb = &verbs[0]; /* like systemctl: no verb means status */
        else {
                for (size_t i = 0; i < N_VERBS; i++)
                        if (strcmp(argv[optind], verbs[i].name) == 0)
                                verb = &verbs[i];
                if (!verb) {
                        ctl_error(NULL, "unknown verb '%s' (see --help)", argv[optind]);
                        return EXIT_USAGE;
                }
                optind++;
        }
        ctl.json = ctl.format == FORMAT_JSON;
        /* The others print for people only; their output is not a format. */
        if (ctl.format == FORMAT_JSON && !(verb->takes & TAKES_JSON)) {
                ctl_error(verb->name, "--json is for %s only", verbs_taking(TAKES_JSON, names, sizeof(names)));
                return EXIT_USAGE;
        }
        if (ctl.format == FORMAT_PROMETHEUS && !(verb->takes & TAKES_PROMETHEUS)) {
                ctl_error(verb->name, "--format=prometheus is for %s only",
                          verbs_taking(TAKES_PROMETHEUS, names, sizeof(names)));
                return EXIT_USAGE;
        }
        if (ctl.status.given && (!(verb->takes & TAKES_TABLE) || ctl.format != FORMAT_TABLE)) {
                ctl_error(verb->name, "--%s is an option of the status table only", ctl.status.given);
                return EXIT_USAGE;
        }
        if (ctl.status.all && !(verb->takes & TAKES_ALL)) {
                ctl_error(verb->name, "--all is an option of %s only", verbs_taking(TAKES_ALL, names, sizeof(names)));
                return EXIT_USAGE;
        }
        /* A verb that takes some of calibrate's options refuses the rest
         * itself (advise: --min, --max, --rounds, --streams). */
        if (ctl.calibrate.given && !(verb->takes & (TAKES_TIME_WRITE | TAKES_MEASURE))) {
                unsigned group = strcmp(ctl.calibrate.given, "time") == 0 || strcmp(ctl.calibrate.given, "write") == 0
                                         ? TAKES_TIME_WRITE
                                         : TAKES_MEASURE;
                /* "calibrate only", but "calibrate and advise" without "only" */
                bool one = !strstr(verbs_taking(group, names, sizeof(names)), " and ");
                ctl_error(verb->name, "--%s is an option of %s%s", ctl.calibrate.given, names, one ? " only" : "");
                return EXIT_USAGE;
        }
        int n_args = argc - optind;
        char **args = argv + optind;
        if (n_args < verb->min_args || (verb->max_args >= 0 && n_args > verb->max_args)) {
                ctl_error(verb->name, "wrong number of arguments (see --help)");
                return EXIT_USAGE;
        }

        r = ra_config_load(ctl.root, &ctl.config);
        if (r < 0) {
                ctl_error(NULL, "cannot load configuration: %s", strerror(-r));
                return EXIT_FAILURE_;
        }
        ctl.udev = udev_new();
        if (!ctl.udev) {
                ctl_error(NULL, "out of memory");
                ra_config_free(ctl.config);
                return EXIT_FAILURE_;
        }

        r = verb->run(&ctl, n_args, args);

        udev_unref(ctl.udev);
        ra_config_free(ctl.config);
        return r;
}
