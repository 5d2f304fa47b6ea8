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

const struct option verb_status_options[] = {
        { "output", required_argument, NULL, 'o' },
        { "list", no_argument, NULL, 'l' },
        { "raw", no_argument, NULL, 'r' },
        { "noheadings", no_argument, NULL, 'n' },
        { "all", no_argument, NULL, 'a' },
        {},
};

bool verb_status_table_option(const char *option) {
        for (const struct option *o = verb_status_options; o->name; o++)
                if (strcmp(o->name, option) == 0)
                        return o->val != 'a';
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
                const struct option *o = verb_status_options;
                while (o->val != options.table_given)
                        o++;
                ctl_refuse_option("status", o->name);
                return -1;
        }
        return optind;
}

/* A few words of what decided the class, to fit one table column. */
static void key_facts(const struct ra_facts *f, char *buf, size_t size) {
        char sz[16], st[24];

        format_bytes_short(f->size_bytes, sz);
        if (f->stripe_bytes > 0)
                snprintf(buf, size, "%s stripe %s", sz, ra_format_size_kb(f->stripe_bytes / 1024, st));
        else if (f->transport == RA_TRANSPORT_MD && f->md_level[0])
                snprintf(buf, size, "%s %s", sz, f->md_level);
        else if (f->io_opt_ignored && !f->io_opt_one_unit)
                snprintf(buf, size, "%s io_opt bogus", sz);
        else
                snprintf(buf, size, "%s%s", sz, f->virtual_by ? " virtual" : f->rotational ? " rotating" : "");
}

/* ---- the table (libsmartcols) ------------------------------------------ */

enum column_id {
        COL_NAME,
        COL_KIND,
        COL_CLASS,
        COL_BUS,
        COL_TRANSPORT,
        COL_FSTYPE,
        COL_FACTS,
        COL_MOUNTPOINT,
        COL_SIZE,
        COL_STRIPE,
        COL_TARGET,
        COL_CURRENT,
        COL_DRIFT,
        COL_RULE,
        COL_REASON,
        COL_MAJMIN,
        _COL_MAX,
};

struct column {
        const char *name; /* also the heading */
        double width_hint;
        int flags;
        const char *help;
};

static const struct column columns[_COL_MAX] = {
        [COL_NAME] = { "NAME", 8, SCOLS_FL_NOEXTREMES,
                       "kernel name of a disk, bdi of a mount (0:53, btrfs-1)" },
        [COL_KIND] = { "KIND", 5, 0, "block or mount" },
        [COL_CLASS] = { "CLASS", 9, 0, "hdd, ssd, raid, removable, memory, optical, nfs, netfs, fuse" },
        [COL_BUS] = { "BUS", 6, 0, "transport of a disk, filesystem type of a mount" },
        [COL_TRANSPORT] = { "TRANSPORT", 6, 0, "transport: ata, nvme, usb, md, dm, network, ..." },
        [COL_FSTYPE] = { "FSTYPE", 6, 0, "filesystem type of a mount" },
        [COL_FACTS] = { "FACTS", 16, SCOLS_FL_TRUNC,
                        "what decided the class (size, stripe, md level); a mount's mount point and rsize "
                        "or data profile" },
        [COL_MOUNTPOINT] = { "MOUNTPOINT", 16, SCOLS_FL_TRUNC, "first mount point of a mount" },
        [COL_SIZE] = { "SIZE", 6, SCOLS_FL_RIGHT, "size" },
        [COL_STRIPE] = { "STRIPE", 6, SCOLS_FL_RIGHT, "trusted stripe" },
        [COL_TARGET] = { "TARGET", 6, SCOLS_FL_RIGHT, "read_ahead_kb the profile gives (-: left alone)" },
        [COL_CURRENT] = { "CURRENT", 7, SCOLS_FL_RIGHT,
                          "read_ahead_kb the kernel holds (*: drift, ?: unknown)" },
        [COL_DRIFT] = { "DRIFT", 5, 0, "yes when the kernel holds another value than the target" },
        [COL_RULE] = { "RULE", 21, SCOLS_FL_TRUNC, "file:section of the rule that decided" },
        [COL_REASON] = { "REASON", 24, SCOLS_FL_TRUNC, "why, in words" },
        [COL_MAJMIN] = { "MAJ:MIN", 6, 0, "device number" },
};

void status_list_columns(void) {
        for (size_t i = 0; i < _COL_MAX; i++)
                printf("%s\n", columns[i].name);
}

static const enum column_id default_columns[] = {
        COL_NAME, COL_CLASS, COL_BUS, COL_FACTS, COL_TARGET, COL_CURRENT, COL_RULE,
};

#define COLUMNS_MAX 64

struct column_list {
        enum column_id ids[COLUMNS_MAX];
        size_t n;
};

static int column_by_name(const char *name, size_t len) {
        for (size_t i = 0; i < _COL_MAX; i++)
                if (strlen(columns[i].name) == len && strncasecmp(columns[i].name, name, len) == 0)
                        return (int) i;
        return -1;
}

/* -o LIST: names, case-insensitive, comma-separated; "+LIST" adds to the
 * default columns. -EINVAL with a message for an unknown name. */
static int parse_columns(const char *list, struct column_list *ret) {
        struct column_list l = {};

        if (!list || list[0] == '+') {
                for (size_t i = 0; i < sizeof(default_columns) / sizeof(default_columns[0]); i++)
                        l.ids[l.n++] = default_columns[i];
                if (list)
                        list++;
        }
        for (const char *p = list; p && *p;) {
                size_t len = strcspn(p, ",");
                int id = column_by_name(p, len);
                if (id < 0) {
                        ctl_error("status", "unknown column '%.*s'; the columns are:",
                                  (int) len, p);
                        for (size_t i = 0; i < _COL_MAX; i++)
                                fprintf(stderr, "  %-10s %s\n", columns[i].name, columns[i].help);
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

/* The text of one cell: a constant, the facts' own string, buf, or *alloc
 * (the caller frees it; a mount point has any length and is never cut).
 * NULL: out of memory. Strings from devices and mounts go to libsmartcols
 * as they are: it escapes them when it prints. */
static const char *cell(const struct ctl_device *d, enum column_id id, char *buf, size_t size,
                        char **alloc) {
        const struct ra_facts *f = &d->facts;
        const bool mount = f->kind == RA_KIND_MOUNT;
        char a[24], b[24];

        switch (id) {
        case COL_NAME:
                return f->name;
        case COL_KIND:
                return mount ? "mount" : "block";
        case COL_CLASS:
                return ra_class_to_string(f->class);
        case COL_BUS:
                return mount ? ra_str(f->fstype) : ra_transport_to_string(f->transport);
        case COL_TRANSPORT:
                return ra_transport_to_string(f->transport);
        case COL_FSTYPE:
                return ra_str(f->fstype);
        case COL_FACTS:
                if (!mount) {
                        key_facts(f, buf, size);
                        return buf;
                }
                /* The mount point, then rsize or btrfs's data profile. */
                const char *suffix = NULL;
                if (f->btrfs_fsid[0] && f->data_profile[0])
                        suffix = f->data_profile;
                else if (f->rsize_bytes >= 1024)
                        suffix = ra_format_size_kb(f->rsize_bytes / 1024, a);
                if (!suffix)
                        return ra_str(f->mount_point);
                if (asprintf(alloc, "%s %s", ra_str(f->mount_point), suffix) < 0) {
                        *alloc = NULL;
                        return NULL;
                }
                return *alloc;
        case COL_MOUNTPOINT:
                return ra_str(f->mount_point);
        case COL_SIZE:
                return f->size_bytes > 0 ? format_bytes_short(f->size_bytes, buf) : "";
        case COL_STRIPE:
                return f->stripe_bytes > 0 ? ra_format_size_kb(f->stripe_bytes / 1024, buf) : "";
        case COL_TARGET:
                if (d->plan.error < 0)
                        return "error";
                if (d->plan.decision.keep)
                        return "-";
                return ra_format_size_kb(d->plan.decision.target_kb, buf);
        case COL_CURRENT:
                snprintf(buf, size, "%s%s", f->current_known ? ra_format_size_kb(f->current_kb, b) : "?",
                         device_drifts(d) ? "*" : "");
                return buf;
        case COL_DRIFT:
                return device_drifts(d) ? "yes" : "no";
        case COL_RULE:
                return d->plan.rule[0] ? short_rule(d->plan.rule) : "-";
        case COL_REASON:
                return ra_str(d->plan.decision.reason);
        case COL_MAJMIN:
                snprintf(buf, size, "%u:%u", f->major, f->minor);
                return buf;
        case _COL_MAX:
                break;
        }
        return "";
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
                const char *text = cell(&t->list[i], cols->ids[c], buf, sizeof(buf), &alloc);
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
                const struct column *col = &columns[cols->ids[c]];
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

int verb_status(struct ctl *ctl, int argc, char **argv) {
        struct ctl_device *list = NULL;
        struct column_list cols = {};
        size_t n = 0;
        uint64_t mem_kb, cap_kb;
        int r;

        (void) argc;
        (void) argv;
        if (ctl->format == FORMAT_TABLE && parse_columns(options.output, &cols) < 0)
                return EXIT_USAGE;
        r = devices_enumerate(ctl->udev, ctl->config, &list, &n);
        if (r < 0) {
                ctl_error(NULL, "%s: %s", DEVICES_LIST_FAILED, strerror(-r));
                return EXIT_FAILURE_;
        }
        if (!options.all)
                n = drop_empty(list, n);
        cap_kb = host_memory_cap_kb(ctl->config, &mem_kb);

        /* Mount work that systemd ran for us and that failed (mount never came). */
        char **failed = NULL;
        if (systemd_failed_bdi_units(&failed) < 0)
                failed = NULL; /* status works without systemd's answer */

        if (ctl->format == FORMAT_PROMETHEUS) {
                status_prometheus(stdout, list, n);
                status_prometheus_last_advice(stdout, ctl->config->root, list, n);
        }
        else if (ctl->json) {
                struct json j = { .f = stdout };
                json_begin_object(&j, NULL);
                json_string(&j, "profile", ctl->config->profile.name);
                json_uint(&j, "mem_total_kb", mem_kb);
                json_uint_or_null(&j, "memory_cap_kb", cap_kb > 0, cap_kb);
                json_uint(&j, "config_errors", ctl->config->n_errors);
                json_begin_array(&j, "failed_units");
                for (char **u = failed; u && *u; u++)
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
                if (json_finish(&j) < 0)
                        r = -ENOMEM;
        } else {
                char mem[16], cap[24];
                bool any_drift = false, only_table = options.raw || options.noheadings;

                if (!only_table) {
                        printf("Profile: %s   Memory: %s   Memory cap: %s\n", ctl->config->profile.name,
                               mem_kb ? format_bytes_short(mem_kb * 1024, mem) : "unknown",
                               cap_kb ? ra_format_size_kb(cap_kb, cap) : "off");
                        if (ctl->config->n_errors > 0)
                                printf("Configuration has %zu error(s): run 'readahead-ctl check'.\n",
                                       ctl->config->n_errors);
                        printf("\n");
                }
                fflush(stdout);
                r = print_table(&options, &cols, list, n);
                for (size_t i = 0; i < n; i++)
                        any_drift |= device_drifts(&list[i]);
                if (!only_table) {
                        for (char **u = failed; u && *u; u++)
                                printf("\nFailed: %s (see journalctl -u %s)", *u, *u);
                        if (failed && *failed)
                                printf("\n");
                        if (any_drift)
                                printf("\n* current differs from target: run 'readahead-ctl apply'.\n");
                        printf("\nSizes in KiB (K), MiB (M); read_ahead_kb is kept in whole %uK pages.\n",
                               n > 0 ? list[0].facts.page_kb : 4);
                }
        }
        strv_free(failed);
        devices_free(list, n);
        return r < 0 ? EXIT_FAILURE_ : EXIT_OK;
}
