/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* ssize_t, strncasecmp */
#include <errno.h>
#include <inttypes.h>
#include <libsmartcols.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctl.h"
#include "decide.h"
#include "device-json.h"
#include "devices.h"
#include "gather.h"
#include "output.h"
#include "size.h"
#include "prometheus.h"
#include "status-columns.h"
#include "systemd.h"
#include "text.h"

/* The options of status, as given (the columns are checked when the table
 * is made). */
struct status_options {
        const char *output; /* -o: column names, comma-separated; "+LIST" adds to the default */
        bool raw, noheadings, list;
        bool all;        /* -a: also disks without media (size 0), in every format */
        int table_given; /* the first option of the table given, for errors */
};

static struct status_options options;

const struct ctl_option verb_status_options[] = {
        { .getopt = { "output", required_argument, NULL, 'o' },
          .arg = "LIST",
          .help = "columns, comma-separated; +LIST adds to the default\n"
                  "(%s); see the\n"
                  "man page for all, e.g. KIND,SIZE,STRIPE,DRIFT,REASON",
          .fill = status_default_columns },
        { .getopt = { "list", no_argument, NULL, 'l' }, .help = "one row per device, no tree" },
        { .getopt = { "raw", no_argument, NULL, 'r' },
          .help = "cells separated by one blank, escaped; no tree;\n"
                  "only the table is printed" },
        { .getopt = { "noheadings", no_argument, NULL, 'n' },
          .help = "no heading line; only the table is printed" },
        { .getopt = { "all", no_argument, NULL, 'a' },
          .help = "also disks without media (size 0: empty loop\n"
                  "devices, unsized zram), in every format" },
        {},
};

bool verb_status_table_option(const char *option) {
        for (const struct ctl_option *o = verb_status_options; o->getopt.name; o++)
                if (strcmp(o->getopt.name, option) == 0)
                        return o->getopt.val != 'a';
        return false;
}

int verb_status_parse(struct ctl *ctl, int argc, char **argv) {
        int c;

        while ((c = ctl_getopt(ctl, argc, argv)) >= 0) {
                switch (c) {
                case 'o':
                        options.output = optarg;
                        break;
                case 'l':
                        options.list = true;
                        break;
                case 'r':
                        options.raw = true;
                        break;
                case 'n':
                        options.noheadings = true;
                        break;
                case 'a':
                        options.all = true;
                        continue; /* in every format */
                default:
                        return -1;
                }
                if (!options.table_given)
                        options.table_given = c;
        }
        if (options.table_given && ctl->format != FORMAT_TABLE) {
                const struct ctl_option *o = verb_status_options;
                while (o->getopt.val != options.table_given)
                        o++;
                ctl_refuse_option("status", o->getopt.name);
                return -1;
        }
        return optind;
}

/* ---- the table (libsmartcols) ------------------------------------------ */

#define COLUMNS_MAX 64

struct column_list {
        enum column_id ids[COLUMNS_MAX];
        size_t n;
};

/* -o LIST: names, case-insensitive, comma-separated; "+LIST" adds to the
 * default columns. -EINVAL with a message for an unknown name. */
static int parse_columns(const char *list, struct column_list *ret) {
        struct column_list l = {};

        if (!list || list[0] == '+') {
                for (size_t i = 0; i < _COL_MAX; i++)
                        if (status_columns[i].in_default)
                                l.ids[l.n++] = (enum column_id) i;
                if (list)
                        list++;
        }
        for (const char *p = list; p && *p;) {
                size_t len = strcspn(p, ",");
                int id = status_column_by_name(p, len);
                if (id < 0) {
                        ctl_error("status", "unknown column '%.*s'; the columns are:",
                                  (int) len, p);
                        for (size_t i = 0; i < _COL_MAX; i++)
                                fprintf(stderr, "  %-10s %s\n", status_columns[i].name,
                                        status_columns[i].help);
                        return -EINVAL;
                }
                if (l.n >= COLUMNS_MAX) {
                        ctl_error("status", "more than %d columns", COLUMNS_MAX);
                        return -EINVAL;
                }
                l.ids[l.n++] = (enum column_id) id;
                p += len;
                if (*p == ',')
                        p++;
        }
        if (l.n == 0) {
                ctl_error("status", "--output names no column");
                return -EINVAL;
        }
        *ret = l;
        return 0;
}

struct tree {
        const struct ctl_device *list;
        size_t n;
        ssize_t *parent; /* index of each device's parent in list, -1: none */
};

/* Parents by name among the listed devices; a parent that is not listed,
 * or a loop (sysfs can say anything), makes a device a root. */
static int tree_build(struct tree *t) {
        t->parent = calloc(t->n ? t->n : 1, sizeof(*t->parent));
        if (!t->parent)
                return -ENOMEM;
        for (size_t i = 0; i < t->n; i++) {
                t->parent[i] = -1;
                if (!t->list[i].parent[0])
                        continue;
                for (size_t k = 0; k < t->n; k++)
                        if (k != i && t->list[k].facts.kind == RA_KIND_BLOCK &&
                            strcmp(t->list[k].facts.name, t->list[i].parent) == 0) {
                                t->parent[i] = (ssize_t) k;
                                break;
                        }
        }
        for (size_t i = 0; i < t->n; i++) {
                ssize_t p = t->parent[i];
                for (size_t steps = 0; p >= 0 && (size_t) p != i && steps < t->n; steps++)
                        p = t->parent[p];
                if (p >= 0)
                        t->parent[i] = -1; /* back at i, or a loop above it */
        }
        return 0;
}

/* Adds device i and, below it, its children: depth first, in list order,
 * so --list shows the rows in the tree's order too. */
static int add_lines(struct libscols_table *tb, const struct tree *t, const struct column_list *cols,
                     size_t i, struct libscols_line *parent, bool tree) {
        struct libscols_line *ln = scols_table_new_line(tb, tree ? parent : NULL);
        char buf[64];
        int r;

        if (!ln)
                return -ENOMEM;
        for (size_t c = 0; c < cols->n; c++) {
                char *alloc = NULL;
                const char *text =
                        status_column_text(&t->list[i], cols->ids[c], buf, sizeof(buf), &alloc);
                r = text ? scols_line_set_data(ln, c, text) : -ENOMEM;
                free(alloc);
                if (r < 0)
                        return r;
        }
        for (size_t k = 0; k < t->n; k++)
                if (t->parent[k] == (ssize_t) i) {
                        r = add_lines(tb, t, cols, k, ln, tree);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int print_table(const struct status_options *o, const struct column_list *cols,
                       const struct ctl_device *list, size_t n) {
        struct tree t = { .list = list, .n = n };
        struct libscols_table *tb = NULL;
        int r;

        /* libsmartcols prints valid UTF-8 of the locale as it is and escapes
         * the rest (\xHH), like lsblk; only the character type is taken from
         * the environment, so numbers elsewhere keep their C form. */
        setlocale(LC_CTYPE, "");

        /* --raw is for scripts: a list, as lsblk --raw. */
        const bool tree = !o->list && !o->raw;

        r = tree_build(&t);
        if (r < 0)
                goto out;
        tb = scols_new_table();
        if (!tb) {
                r = -ENOMEM;
                goto out;
        }
        scols_table_enable_raw(tb, o->raw);
        scols_table_enable_noheadings(tb, o->noheadings);
        for (size_t c = 0; c < cols->n; c++) {
                const struct status_column *col = &status_columns[cols->ids[c]];
                int flags = col->flags;
                if (cols->ids[c] == COL_NAME && tree)
                        flags |= SCOLS_FL_TREE;
                if (!scols_table_new_column(tb, col->name, col->width_hint, flags)) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        for (size_t i = 0; i < n; i++)
                if (t.parent[i] < 0) {
                        r = add_lines(tb, &t, cols, i, NULL, tree);
                        if (r < 0)
                                goto out;
                }
        r = scols_print_table(tb);
out:
        if (r < 0)
                ctl_error("status", "cannot print the table: %s", strerror(-r));
        scols_unref_table(tb);
        free(t.parent);
        return r;
}

/* A disk without media: an empty loop device, zram before it is sized, a
 * drive with no disc. Hidden by default, as lsblk does; the agent still
 * decides them. A size refused as garbage is unknown, not empty. */
static bool device_is_empty(const struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;
        return f->kind == RA_KIND_BLOCK && f->size_bytes == 0 && !(f->invalid & (1u << RA_FACT_SIZE));
}

/* Drops the empty disks from list, keeping the order. */
static size_t drop_empty(struct ctl_device *list, size_t n) {
        size_t kept = 0;

        for (size_t i = 0; i < n; i++) {
                if (device_is_empty(&list[i]))
                        device_done(&list[i]);
                else
                        list[kept++] = list[i];
        }
        return kept;
}

/* The memory cap of the profile on this host (0: off or unknown), for the
 * header line and --json; *ret_mem_kb: MemTotal, 0 when unknown. The host
 * facts come from the run's snapshot: /proc/meminfo is read once per run. */
static uint64_t host_memory_cap_kb(const struct ra_config *c, uint64_t *ret_mem_kb) {
        struct ra_facts host;

        ra_facts_init(&host);
        ra_gather_host(&host);
        uint64_t mem_kb = host.mem_total_kb;
        ra_facts_done(&host);
        *ret_mem_kb = mem_kb;
        if (!c->profile.memory_cap || mem_kb == 0)
                return 0;
        return ra_memory_cap_kb(mem_kb, c->profile.minimum_kb);
}

/* What status prints besides its devices: the host and the configuration. */
struct status_header {
        const struct ra_config *config;
        uint64_t mem_kb, cap_kb; /* 0: unknown, off */
        char **failed;           /* bdi units that failed (the mount never came) */
};

static int print_json(const struct status_header *h, const struct ctl_device *list, size_t n) {
        struct json j = { .f = stdout };

        json_begin_object(&j, NULL);
        json_string(&j, "profile", h->config->profile.name);
        json_uint(&j, "mem_total_kb", h->mem_kb);
        json_uint_or_null(&j, "memory_cap_kb", h->cap_kb > 0, h->cap_kb);
        json_uint(&j, "config_errors", h->config->n_errors);
        json_begin_array(&j, "failed_units");
        for (char **u = h->failed; u && *u; u++)
                json_string(&j, NULL, *u);
        json_end_array(&j);
        json_begin_array(&j, "devices");
        for (size_t i = 0; i < n; i++) {
                json_begin_object(&j, NULL);
                json_device_fields(&j, &list[i]);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_end_object(&j);
        return json_finish(&j);
}

/* The table, between the header and the notes unless --raw or --noheadings. */
static int print_people(const struct status_header *h, const struct column_list *cols,
                        const struct ctl_device *list, size_t n) {
        const bool only_table = options.raw || options.noheadings;
        char mem[16], cap[24];
        bool any_drift = false;

        if (!only_table) {
                printf("Profile: %s   Memory: %s   Memory cap: %s\n", h->config->profile.name,
                       h->mem_kb ? format_bytes_short(h->mem_kb * 1024, mem) : "unknown",
                       h->cap_kb ? ra_format_size_kb(h->cap_kb, cap) : "off");
                if (h->config->n_errors > 0)
                        printf("Configuration has %zu error(s): run 'readahead-ctl check'.\n",
                               h->config->n_errors);
                printf("\n");
        }
        fflush(stdout);
        int r = print_table(&options, cols, list, n);
        if (only_table)
                return r;
        for (size_t i = 0; i < n; i++)
                any_drift |= device_drifts(&list[i]);
        for (char **u = h->failed; u && *u; u++)
                printf("\nFailed: %s (see journalctl -u %s)", *u, *u);
        if (h->failed && *h->failed)
                printf("\n");
        if (any_drift)
                printf("\n* current differs from target: run 'readahead-ctl apply'.\n");
        printf("\nSizes in KiB (K), MiB (M); read_ahead_kb is kept in whole %uK pages.\n",
               n > 0 ? list[0].facts.page_kb : 4);
        return r;
}

int verb_status(struct ctl *ctl, int argc, char **argv) {
        struct status_header h = { .config = ctl->config };
        struct ctl_device *list = NULL;
        struct column_list cols = {};
        size_t n = 0;
        int r;

        (void) argc;
        (void) argv;
        if (ctl->format == FORMAT_TABLE && parse_columns(options.output, &cols) < 0)
                return EXIT_USAGE;
        r = devices_enumerate(ctl->udev, ctl->config, &list, &n);
        if (r < 0) {
                ctl_error(NULL, "%s: %s", DEVICES_LIST_FAILED, strerror(-r));
                return EXIT_FAILURE;
        }
        if (!options.all)
                n = drop_empty(list, n);
        h.cap_kb = host_memory_cap_kb(ctl->config, &h.mem_kb);
        if (systemd_failed_bdi_units(&h.failed) < 0)
                h.failed = NULL; /* status works without systemd's answer */

        if (ctl->format == FORMAT_PROMETHEUS) {
                status_prometheus(stdout, list, n);
                status_prometheus_last_advice(stdout, ctl->config->root, list, n);
        } else if (ctl->json)
                r = print_json(&h, list, n);
        else
                r = print_people(&h, &cols, list, n);
        strv_free(h.failed);
        devices_free(list, n);
        return r < 0 ? EXIT_FAILURE : EXIT_OK;
}
