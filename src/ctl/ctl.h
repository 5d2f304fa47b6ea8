/* SPDX-License-Identifier: MIT */
#pragma once

#include <getopt.h>
#include <libudev.h>
#include <stdbool.h>
#include <stdlib.h> /* EXIT_FAILURE */

#include "config.h"

/* Exit codes, documented in --help and the README: EXIT_OK, EXIT_FAILURE
 * (stdlib.h's 1: an error in configuration, a device or a write) and
 * EXIT_USAGE. */
enum {
        EXIT_OK = 0,
        EXIT_USAGE = 2,
};

enum output_format {
        FORMAT_TABLE,
        FORMAT_JSON,
        FORMAT_PROMETHEUS, /* the verbs with TAKES_PROMETHEUS */
};

struct verb;

struct ctl {
        const char *root;
        bool json; /* format == FORMAT_JSON */
        enum output_format format;
        const struct verb *verb; /* NULL until main has found it */
        struct udev *udev;
        struct ra_config *config;
        /* --help, --version or a --list-* met while parsing: main prints
         * it and exits 0 instead of running anything. 0: none. */
        int answer;
};

/* The formats a verb prints besides the table; main refuses the others
 * before the verb runs, naming the verbs that take them. */
enum {
        TAKES_JSON = 1 << 0,       /* --json, --format=json */
        TAKES_PROMETHEUS = 1 << 1, /* --format=prometheus */
};

/*
 * An option of readahead-ctl, described once: getopt_long() reads getopt,
 * --help and --list-options (for tests/tables) the rest. getopt.val is the
 * letter of its short form, or from 0x100 for none; values need only differ
 * within a verb, letters across all verbs. A table ends with {}.
 */
struct ctl_option {
        struct option getopt;
        const char *arg; /* its value's name in --help; NULL: none */
        /* --help's text; its later lines are indented under the first. A
         * "%s" in it is fill()'s text, where there is a fill. NULL only for
         * main's hidden --list-* options; tests/tables holds every other
         * option to having one. */
        const char *help;
        const char *(*fill)(char *buf, size_t size);
};

/*
 * A verb takes main's options (main_options[] in ctl.c) and its own, which
 * its file lists (options) and reads (parse).
 */
struct verb {
        const char *name;
        int min_args, max_args; /* max_args < 0: any number */
        int (*run)(struct ctl *ctl, int argc, char **argv);
        unsigned takes;                   /* TAKES_* */
        const struct ctl_option *options; /* {} at the end; NULL: none */
        /* Reads the options of argv (argv[0] is the program's name) with
         * ctl_getopt(); returns the index of the first argument, or -1 after
         * saying what is wrong. NULL: there are none of the verb's own. */
        int (*parse)(struct ctl *ctl, int argc, char **argv);
        const char *help;
};

/* getopt_long() for a verb's parse: handles main's options itself and
 * refuses those of other verbs. Returns the value of one of ctl->verb's
 * options (optarg is its argument), -1 after the last (optind is the first
 * argument), or '?' after saying what is wrong. Without ctl->verb (main,
 * looking for it) it takes the options of every verb and stops at the
 * first argument. */
int ctl_getopt(struct ctl *ctl, int argc, char **argv);
/* "readahead-ctl apply: --time is an option of calibrate and advise": verb
 * does not take --option. */
void ctl_refuse_option(const char *verb, const char *option);

int verb_status(struct ctl *ctl, int argc, char **argv);
int verb_status_parse(struct ctl *ctl, int argc, char **argv);
extern const struct ctl_option verb_status_options[];
/* -o, -l, -r, -n: options of the table, which status refuses in the other
 * formats; every verb names them "of the status table". */
bool verb_status_table_option(const char *option);
/* The status table's columns, one a line: NAME JSON-FIELD GAUGE ("-": none)
 * (--list-columns). */
void status_list_columns(void);
int verb_explain(struct ctl *ctl, int argc, char **argv);
int verb_apply(struct ctl *ctl, int argc, char **argv);
int verb_check(struct ctl *ctl, int argc, char **argv);
/* The configuration's errors on stderr, as check prints them, for verb
 * (apply): each rule or file they drop is not applied. Nothing without one. */
void ctl_config_errors(const struct ra_config *c, const char *verb);
int verb_reset(struct ctl *ctl, int argc, char **argv);
int verb_cat_config(struct ctl *ctl, int argc, char **argv);
int verb_calibrate(struct ctl *ctl, int argc, char **argv);
int verb_calibrate_parse(struct ctl *ctl, int argc, char **argv);
extern const struct ctl_option verb_calibrate_options[];
int verb_advise(struct ctl *ctl, int argc, char **argv);
int verb_advise_parse(struct ctl *ctl, int argc, char **argv);
extern const struct ctl_option verb_advise_options[];

/* "file:section" with the file's directory dropped, for tables. */
const char *short_rule(const char *rule);
