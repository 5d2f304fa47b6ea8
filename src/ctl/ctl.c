/* SPDX-License-Identifier: MIT */
/* readahead-ctl: main's options and the verb table; each verb lives in its
 * own file (ctl-VERB.c), which reads its own options. */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise-prometheus.h"
#include "ctl.h"
#include "output.h"
#include "status-columns.h"

static const struct verb verbs[] = {
        { "status", 0, 0, verb_status, TAKES_JSON | TAKES_PROMETHEUS, verb_status_options,
          verb_status_parse, "disks and mounts, stacked as a tree: class, facts, target, rule" },
        { "explain", 1, 1, verb_explain, TAKES_JSON, NULL, NULL,
          "DEV: all facts, every rule tried, caps, result" },
        { "apply", 0, -1, verb_apply, 0, NULL, NULL, "[DEV...]: decide and write now (root)" },
        { "check", 0, 0, verb_check, TAKES_JSON, NULL, NULL, "load all configuration, print every problem" },
        { "reset", 0, -1, verb_reset, 0, NULL, NULL, "[DEV...]: put back the kernel's own value (root)" },
        { "cat-config", 0, 0, verb_cat_config, 0, NULL, NULL,
          "every configuration file in effect, in order" },
        { "calibrate", 1, 1, verb_calibrate, TAKES_JSON, verb_calibrate_options,
          verb_calibrate_parse, "DEV: measure the device's knee, read-only (root)" },
        { "advise", 0, -1, verb_advise, TAKES_JSON | TAKES_PROMETHEUS, verb_advise_options,
          verb_advise_parse, "[DEV...]: watch what is read, say raise, lower or keep" },
};

#define N_VERBS (sizeof(verbs) / sizeof(verbs[0]))

static const struct ctl_option *find_option(const struct ctl_option *opts, const char *name) {
        for (; opts && opts->getopt.name; opts++)
                if (strcmp(opts->getopt.name, name) == 0)
                        return opts;
        return NULL;
}

static bool has_short(const struct option *o) {
        return o->val > 0 && o->val < 0x100;
}

static bool verb_takes(const struct verb *v, unsigned takes, const char *option) {
        return (v->takes & takes) == takes && (!option || find_option(v->options, option));
}

/* "a, b and c": the verbs that take all of the formats in `takes` and,
 * unless NULL, --option, from the table, for the errors that name them. */
static const char *verbs_taking(unsigned takes, const char *option, char *buf, size_t size) {
        size_t n = 0, k = 0, len = 0;

        for (size_t i = 0; i < N_VERBS; i++)
                if (verb_takes(&verbs[i], takes, option))
                        n++;
        buf[0] = 0;
        for (size_t i = 0; i < N_VERBS; i++) {
                if (!verb_takes(&verbs[i], takes, option))
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

/* The fills of --json's and --format's help. */
static const char *json_verbs(char *buf, size_t size) {
        return verbs_taking(TAKES_JSON, NULL, buf, size);
}

static const char *prometheus_verbs(char *buf, size_t size) {
        return verbs_taking(TAKES_PROMETHEUS, NULL, buf, size);
}

/* main's options; every verb takes them, before or after its name. Values
 * from 0x100: no short form. */
enum {
        ARG_JSON = 0x100,
        ARG_FORMAT,
        ARG_ROOT,
        ARG_HELP,
        ARG_VERSION,
        ARG_LIST_VERBS,
        ARG_LIST_OPTIONS,
        ARG_LIST_COLUMNS,
        ARG_LIST_KEYS,
        ARG_LIST_GAUGES,
};

static const struct ctl_option main_options[] = {
        { .getopt = { "json", no_argument, NULL, ARG_JSON },
          .help = "machine-readable output, for\n"
                  "%s",
          .fill = json_verbs },
        { .getopt = { "format", required_argument, NULL, ARG_FORMAT },
          .arg = "FORMAT",
          .help = "table (default), json (= --json), or\n"
                  "prometheus: the text format of node_exporter's\n"
                  "textfile collector (%s)",
          .fill = prometheus_verbs },
        { .getopt = { "root", required_argument, NULL, ARG_ROOT },
          .arg = "DIR",
          .help = "read configuration below DIR" },
        { .getopt = { "help", no_argument, NULL, ARG_HELP }, .help = "this text" },
        { .getopt = { "version", no_argument, NULL, ARG_VERSION }, .help = "the version" },
        /* Hidden (no help): the tables, one row a line, for the tests that
         * hold the completion, man pages and README against them. */
        { .getopt = { "list-verbs", no_argument, NULL, ARG_LIST_VERBS } },
        { .getopt = { "list-options", no_argument, NULL, ARG_LIST_OPTIONS } },
        { .getopt = { "list-columns", no_argument, NULL, ARG_LIST_COLUMNS } },
        { .getopt = { "list-keys", no_argument, NULL, ARG_LIST_KEYS } },
        { .getopt = { "list-gauges", no_argument, NULL, ARG_LIST_GAUGES } },
        {},
};

#define N_MAIN_OPTIONS (sizeof(main_options) / sizeof(main_options[0]) - 1)

/* Neither in --help nor in --list-options: main's --list-*, o in opts. Any
 * other option without a help is listed, for tests/tables to refuse. */
static bool hidden(const struct ctl_option *opts, const struct ctl_option *o) {
        return opts == main_options && o->getopt.val >= ARG_LIST_VERBS;
}

/* o's help, its fill's text in place of "%s"; NULL: none. */
static const char *option_help(const struct ctl_option *o, char *buf, size_t size) {
        char fill[256];

        if (!o->help || !o->fill)
                return o->help;
        snprintf(buf, size, o->help, o->fill(fill, sizeof(fill)));
        return buf;
}

#define HELP_INDENT 26

/* "  -o, --output LIST       columns, ...", a help's later lines indented
 * under its first. */
static void help_options(const struct ctl_option *opts) {
        char head[HELP_INDENT], text[512];

        for (const struct ctl_option *o = opts; o->getopt.name; o++) {
                const struct option *g = &o->getopt;

                if (hidden(opts, o))
                        continue;
                int len = has_short(g) ? snprintf(head, sizeof(head), "-%c, ", g->val) : 0;
                snprintf(head + len, sizeof(head) - (size_t) len, "--%s%s%s", g->name, o->arg ? " " : "",
                         o->arg ? o->arg : "");
                printf("  %-*s", HELP_INDENT - 2, head);
                for (const char *p = option_help(o, text, sizeof(text)); p && *p; p++) {
                        putchar(*p);
                        if (*p == '\n')
                                printf("%*s", HELP_INDENT, "");
                }
                putchar('\n');
        }
}

static void help(void) {
        printf("Usage: readahead-ctl [OPTIONS] VERB [ARGS]\n\nVerbs:\n");
        for (size_t i = 0; i < N_VERBS; i++)
                printf("  %-10s %s\n", verbs[i].name, verbs[i].help);
        printf("\nOptions:\n");
        help_options(main_options);
        for (size_t i = 0; i < N_VERBS; i++)
                if (verbs[i].options) {
                        printf("\nOptions of %s:\n", verbs[i].name);
                        help_options(verbs[i].options);
                }
        printf("\nExit status: 0 success, 1 configuration error, unknown device, failed\n"
               "write or output that could not be written, 2 usage error.\n");
}

/* --list-options: "VERB --NAME -X ARG HELP" a line, "*" for main's
 * options, "-" for no short form, no argument or no help; the help's lines
 * joined by blanks. */
static void list_options(const char *verb, const struct ctl_option *opts) {
        char text[512];

        for (const struct ctl_option *o = opts; o && o->getopt.name; o++) {
                const char *h = option_help(o, text, sizeof(text));

                if (hidden(opts, o))
                        continue;
                printf("%s --%s", verb, o->getopt.name);
                if (has_short(&o->getopt))
                        printf(" -%c", o->getopt.val);
                else
                        printf(" -");
                printf(" %s ", o->arg ? o->arg : "-");
                for (h = h ? h : "-"; *h; h++)
                        putchar(*h == '\n' ? ' ' : *h);
                putchar('\n');
        }
}

static void list_table(int which) {
        const char *name, *section;

        switch (which) {
        case ARG_LIST_VERBS:
                for (size_t i = 0; i < N_VERBS; i++)
                        printf("%s\n", verbs[i].name);
                break;
        case ARG_LIST_OPTIONS:
                list_options("*", main_options);
                for (size_t i = 0; i < N_VERBS; i++)
                        list_options(verbs[i].name, verbs[i].options);
                break;
        case ARG_LIST_COLUMNS:
                status_list_columns();
                break;
        case ARG_LIST_KEYS:
                for (size_t i = 0; (name = ra_config_key(i, &section)); i++)
                        printf("%s %s\n", section, name);
                break;
        case ARG_LIST_GAUGES: /* "status NAME" (the columns'), "advise NAME" */
                for (size_t i = 0; i < _COL_MAX; i++)
                        if (status_columns[i].metric)
                                printf("status %s\n", status_columns[i].metric);
                for (size_t i = 0; i < _RA_ADVICE_GAUGE_MAX; i++)
                        printf("advise %s\n", ra_advice_gauges[i].name);
                break;
        }
}

const char *short_rule(const char *rule) {
        const char *colon = strrchr(rule, ':');
        const char *slash = NULL;
        for (const char *p = rule; p < (colon ? colon : rule + strlen(rule)); p++)
                if (*p == '/')
                        slash = p;
        return slash ? slash + 1 : rule;
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
        _exit(EXIT_FAILURE);
}

void ctl_refuse_option(const char *verb, const char *option) {
        char names[128]; /* verbs_taking() */

        /* status refuses its table's options beside --json too: the same words */
        if (verb_status_table_option(option)) {
                ctl_error(verb, "--%s is an option of the status table only", option);
                return;
        }
        /* "calibrate only", but "calibrate and advise" without "only" */
        bool one = !strstr(verbs_taking(0, option, names, sizeof(names)), " and ");
        ctl_error(verb, "--%s is an option of %s%s", option, names, one ? " only" : "");
}

/* Every verb's options after main's, each name once, and their short forms:
 * getopt_long() needs them all to know which take an argument (a verb's
 * options may come before the verb: "-o NAME status") and to name an option
 * of another verb in the error. */
static struct option all_options[32];
static char all_short[2 * 32 + 2] = "+";

static bool all_options_have(const char *name, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(all_options[i].name, name) == 0)
                        return true;
        return false;
}

static void all_options_add(const struct ctl_option *opts, size_t *n) {
        for (const struct ctl_option *row = opts; row && row->getopt.name; row++) {
                const struct option *o = &row->getopt;

                if (all_options_have(o->name, *n))
                        continue;
                assert(*n + 1 < sizeof(all_options) / sizeof(all_options[0]));
                all_options[(*n)++] = *o;
                if (has_short(o) && !strchr(all_short, o->val)) {
                        size_t len = strlen(all_short);
                        all_short[len++] = (char) o->val;
                        if (o->has_arg == required_argument)
                                all_short[len++] = ':';
                        all_short[len] = 0;
                }
        }
}

static void all_options_init(void) {
        size_t n = 0;

        if (all_options[0].name)
                return;
        all_options_add(main_options, &n);
        for (size_t i = 0; i < N_VERBS; i++)
                all_options_add(verbs[i].options, &n);
}

/* Takes one of main's options; < 0 after saying what is wrong, or after
 * noting --help, --version or a --list-* in ctl->answer, which stops the
 * parsing wherever it stands: main answers it and runs nothing. */
static int main_option(struct ctl *ctl, int c, const char *arg) {
        switch (c) {
        case ARG_JSON:
                ctl->format = FORMAT_JSON;
                return 0;
        case ARG_FORMAT:
                if (strcmp(arg, "table") == 0)
                        ctl->format = FORMAT_TABLE;
                else if (strcmp(arg, "json") == 0)
                        ctl->format = FORMAT_JSON;
                else if (strcmp(arg, "prometheus") == 0)
                        ctl->format = FORMAT_PROMETHEUS;
                else {
                        ctl_error(NULL, "--format: '%s' is not table, json or prometheus", arg);
                        return -EINVAL;
                }
                return 0;
        case ARG_ROOT:
                /* Refused here, before anything is read: paths below a longer
                 * root would not fit, and nothing may fall back to the host's. */
                if (ra_root_check(arg) < 0) {
                        ctl_error(NULL, "--root: longer than %d bytes, refused", RA_ROOT_MAX);
                        return -EINVAL;
                }
                ctl->root = arg;
                return 0;
        case ARG_HELP:
        case ARG_VERSION:
        case ARG_LIST_VERBS:
        case ARG_LIST_OPTIONS:
        case ARG_LIST_COLUMNS:
        case ARG_LIST_KEYS:
        case ARG_LIST_GAUGES:
                ctl->answer = c;
                return -ECANCELED;
        default:
                return -EINVAL;
        }
}

int ctl_getopt(struct ctl *ctl, int argc, char **argv) {
        int c, index;

        all_options_init();
        for (;;) {
                index = -1;
                /* before the verb: stop at it ("+") */
                c = getopt_long(argc, argv, ctl->verb ? all_short + 1 : all_short, all_options, &index);
                if (c < 0 || c == '?') /* the end, or getopt_long() said what is wrong */
                        return c;
                if (index < 0) /* a short option: its long form */
                        for (index = 0; all_options[index].val != c; index++)
                                ;
                if ((size_t) index < N_MAIN_OPTIONS) {
                        if (main_option(ctl, c, optarg) < 0)
                                return '?';
                        continue;
                }
                if (!ctl->verb)
                        return c;
                const struct ctl_option *own = find_option(ctl->verb->options, all_options[index].name);
                if (!own) {
                        ctl_refuse_option(ctl->verb->name, all_options[index].name);
                        return '?';
                }
                return own->getopt.val;
        }
}

/* What ctl->answer asked for; the exit code. */
static int answer(int which) {
        if (which == ARG_HELP)
                help();
        else if (which == ARG_VERSION)
                printf("readahead-ctl %s\n", RA_VERSION);
        else
                list_table(which);
        return EXIT_OK;
}

/* The verb's parse for a verb without options of its own. */
static int parse_main_options(struct ctl *ctl, int argc, char **argv) {
        return ctl_getopt(ctl, argc, argv) < 0 ? optind : -1;
}

/* The verb, from its parse to its end; argv: the program's name and every
 * word but the verb's. */
static int run_verb(struct ctl *ctl, int argc, char **argv) {
        const struct verb *verb = ctl->verb;
        char names[128]; /* verbs_taking() */
        int r;

        /* GNU getopt moves the verb's arguments behind the options. */
        optind = 0; /* afresh, without main's "+" */
        int first = (verb->parse ? verb->parse : parse_main_options)(ctl, argc, argv);
        if (first < 0)
                return ctl->answer ? answer(ctl->answer) : EXIT_USAGE;
        ctl->json = ctl->format == FORMAT_JSON;
        /* The others print for people only; their output is not a format. */
        if (ctl->format == FORMAT_JSON && !(verb->takes & TAKES_JSON)) {
                ctl_error(verb->name, "--json is for %s only",
                          verbs_taking(TAKES_JSON, NULL, names, sizeof(names)));
                return EXIT_USAGE;
        }
        if (ctl->format == FORMAT_PROMETHEUS && !(verb->takes & TAKES_PROMETHEUS)) {
                ctl_error(verb->name, "--format=prometheus is for %s only",
                          verbs_taking(TAKES_PROMETHEUS, NULL, names, sizeof(names)));
                return EXIT_USAGE;
        }
        int n_args = argc - first;
        char **args = argv + first;
        if (n_args < verb->min_args || (verb->max_args >= 0 && n_args > verb->max_args)) {
                ctl_error(verb->name, "wrong number of arguments (see --help)");
                return EXIT_USAGE;
        }

        r = ra_config_load(ctl->root, &ctl->config);
        if (r < 0) {
                ctl_error(NULL, "cannot load configuration: %s", strerror(-r));
                return EXIT_FAILURE;
        }
        ctl->udev = udev_new();
        if (!ctl->udev) {
                ctl_error(NULL, "out of memory");
                ra_config_free(ctl->config);
                return EXIT_FAILURE;
        }

        r = verb->run(ctl, n_args, args);

        udev_unref(ctl->udev);
        ra_config_free(ctl->config);
        return r;
}

int main(int argc, char **argv) {
        struct ctl ctl = {};
        int c, r;

        atexit(close_stdout);
        /* Up to the verb: main's options, and any verb's, which the verb
         * reads again below. */
        while ((c = ctl_getopt(&ctl, argc, argv)) >= 0)
                if (c == '?')
                        return ctl.answer ? answer(ctl.answer) : EXIT_USAGE;
        int at = optind;
        if (at >= argc)
                ctl.verb = &verbs[0]; /* like systemctl: no verb means status */
        else {
                for (size_t i = 0; i < N_VERBS; i++)
                        if (strcmp(argv[at], verbs[i].name) == 0)
                                ctl.verb = &verbs[i];
                if (!ctl.verb) {
                        ctl_error(NULL, "unknown verb '%s' (see --help)", argv[at]);
                        return EXIT_USAGE;
                }
        }

        /* The verb reads the words before it again, with its own options:
         * "-o NAME status" is "status -o NAME", as GNU getopt had it. */
        char **words = calloc((size_t) argc + 1, sizeof(*words));
        if (!words) {
                ctl_error(NULL, "out of memory");
                return EXIT_FAILURE;
        }
        int n = 0;
        for (int i = 0; i < argc; i++)
                if (i != at)
                        words[n++] = argv[i];
        r = run_verb(&ctl, n, words);
        free(words);
        return r;
}
