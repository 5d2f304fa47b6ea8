/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <stdbool.h>

#include "config.h"

/* Exit codes, documented in --help and the README. */
enum {
        EXIT_OK = 0,
        EXIT_FAILURE_ = 1, /* an error in configuration, a device or a write */
        EXIT_USAGE = 2,
};

/* Options only calibrate takes, as given (it parses and checks them);
 * advise takes --time and --write of them. */
struct calibrate_options {
        const char *seconds, *min, *max, *rounds, *streams;
        bool write;
        const char *given; /* the first of them on the command line, for errors */
};

/* Options of the status table, as given (status checks the columns). */
struct status_options {
        const char *output; /* -o: column names, comma-separated; "+LIST" adds to the default */
        bool raw, noheadings, list;
        bool all; /* -a: also disks without media (size 0), in every format */
        const char *given; /* the first of them on the command line, for errors */
};

enum output_format {
        FORMAT_TABLE,
        FORMAT_JSON,
        FORMAT_PROMETHEUS, /* status only */
};

struct ctl {
        const char *root;
        bool json; /* format == FORMAT_JSON */
        enum output_format format;
        struct calibrate_options calibrate;
        struct status_options status;
        struct udev *udev;
        struct ra_config *config;
};

/* The options a verb takes besides --root, one bit per group; main refuses
 * the others before the verb runs, naming the verbs that take them. */
enum {
        TAKES_JSON = 1 << 0,       /* --json, --format=json */
        TAKES_PROMETHEUS = 1 << 1, /* --format=prometheus */
        TAKES_TABLE = 1 << 2,      /* -o, -l, -r, -n: the status table */
        TAKES_ALL = 1 << 3,        /* -a */
        TAKES_TIME_WRITE = 1 << 4, /* --time, --write */
        TAKES_MEASURE = 1 << 5,    /* --min, --max, --rounds, --streams */
};

struct verb {
        const char *name;
        int min_args, max_args; /* max_args < 0: any number */
        int (*run)(struct ctl *ctl, int argc, char **argv);
        unsigned takes; /* TAKES_* */
        const char *help;
};

int verb_status(struct ctl *ctl, int argc, char **argv);
int verb_explain(struct ctl *ctl, int argc, char **argv);
int verb_apply(struct ctl *ctl, int argc, char **argv);
int verb_check(struct ctl *ctl, int argc, char **argv);
int verb_reset(struct ctl *ctl, int argc, char **argv);
int verb_cat_config(struct ctl *ctl, int argc, char **argv);
int verb_calibrate(struct ctl *ctl, int argc, char **argv);
int verb_advise(struct ctl *ctl, int argc, char **argv);

/* "file:section" with the file's directory dropped, for tables. */
const char *short_rule(const char *rule);
