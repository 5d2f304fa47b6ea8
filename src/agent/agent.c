/* SPDX-License-Identifier: MIT */
/*
 * readahead-agent: run by udev (IMPORT{program}) for each whole disk on add
 * and change. Decides read_ahead_kb from the profile, writes and verifies it,
 * and prints the decision as READAHEAD_* properties for the udev database.
 *
 * It always exits 0 once running under udev: a failing helper would only make
 * udev log noise, and there is nothing udev could do about it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "apply.h"
#include "config.h"
#include "decide.h"
#include "gather.h"
#include "journal.h"

struct options {
        const char *root;
        bool dry_run;
};

static void help(void) {
        printf("Usage: readahead-agent [--root DIR] [--dry-run]\n"
               "Run by udev for a block device event, with the event in the environment.\n"
               "Sets queue/read_ahead_kb from the active profile and prints READAHEAD_*\n"
               "properties for IMPORT{program}.\n\n"
               "  --root DIR   read configuration below DIR\n"
               "  --dry-run    decide and print, write nothing\n"
               "  --help, --version\n");
}

static int parse_argv(int argc, char **argv, struct options *o) {
        static const struct option opts[] = {
                { "root", required_argument, NULL, 'r' },
                { "dry-run", no_argument, NULL, 'n' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {},
        };
        int c;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0)
                switch (c) {
                case 'r':
                        o->root = optarg;
                        break;
                case 'n':
                        o->dry_run = true;
                        break;
                case 'h':
                        help();
                        return 0;
                case 'V':
                        printf("readahead-agent %s\n", RA_VERSION);
                        return 0;
                default:
                        return -EINVAL;
                }
        if (optind < argc) {
                fprintf(stderr, "readahead-agent: unexpected argument '%s'\n", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

static bool streq_ptr(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* Config problems are logged on every event: the administrator must see them
 * in the journal next to the device they affect. */
static void log_config_problems(const struct ra_config *c) {
        for (size_t i = 0; i < c->n_diags; i++) {
                const struct ra_diag *d = &c->diags[i];
                char msg[512], file[RA_PATH_MAX + 16];
                snprintf(msg, sizeof(msg), "%s:%u: %s", d->file, d->line, d->message);
                snprintf(file, sizeof(file), "CONFIG_FILE=%s", d->file);
                const char *fields[] = { file };
                ra_journal_send(d->level == RA_DIAG_ERROR ? LOG_ERR : LOG_WARNING, msg, fields, 1);
        }
}

static void log_result(const struct ra_facts *f, const struct ra_decision *d, const char *result,
                       const char *rule, uint64_t now_kb, int error) {
        char msg[512], dev[RA_NAME_MAX + 24], target[48], prev[48], rulef[RA_PATH_MAX + 80],
                res[48], reason[240];

        if (error < 0)
                snprintf(msg, sizeof(msg), "%s: could not set read_ahead_kb to %" PRIu64
                         " (kernel holds %" PRIu64 "): %s", f->name, d->target_kb, now_kb,
                         strerror(-error));
        else
                snprintf(msg, sizeof(msg), "%s: read_ahead_kb %" PRIu64 " -> %" PRIu64 " (%s; %s)",
                         f->name, f->current_kb, d->target_kb, rule, d->reason);
        snprintf(dev, sizeof(dev), "READAHEAD_DEVICE=%s", f->name);
        snprintf(target, sizeof(target), "READAHEAD_TARGET_KB=%" PRIu64, d->target_kb);
        snprintf(prev, sizeof(prev), "READAHEAD_PREVIOUS_KB=%" PRIu64, f->current_kb);
        snprintf(rulef, sizeof(rulef), "READAHEAD_RULE=%s", rule);
        snprintf(res, sizeof(res), "READAHEAD_RESULT=%s", result);
        snprintf(reason, sizeof(reason), "READAHEAD_REASON=%s", d->reason);
        const char *fields[] = { dev, target, prev, rulef, res, reason };
        ra_journal_send(error < 0 ? LOG_ERR : LOG_INFO, msg, fields, 6);
}

static int run(const struct options *o) {
        struct udev *udev = NULL;
        struct udev_device *dev = NULL;
        struct ra_config *config = NULL;
        struct ra_facts facts;
        struct ra_decision d;
        char rule[RA_PATH_MAX + 80] = "";
        const char *result;
        uint64_t now_kb = 0;
        int r;

        ra_facts_init(&facts);

        udev = udev_new();
        if (!udev)
                return -ENOMEM;
        dev = udev_device_new_from_environment(udev);
        if (!dev)
                goto out; /* not a udev event, or a device we cannot see: nothing to do */

        /* The rule guards these too; checking again keeps a hand-run agent harmless. */
        const char *action = udev_device_get_action(dev);
        if (!streq_ptr(udev_device_get_subsystem(dev), "block") ||
            !streq_ptr(udev_device_get_devtype(dev), "disk") ||
            !(streq_ptr(action, "add") || streq_ptr(action, "change")))
                goto out;

        r = ra_gather_block(dev, &facts);
        if (r < 0) {
                char msg[256];
                snprintf(msg, sizeof(msg), "%s: cannot read device facts: %s, ignoring",
                         udev_device_get_sysname(dev), strerror(-r));
                ra_journal_send(LOG_WARNING, msg, NULL, 0);
                printf("READAHEAD_RESULT=failed\n");
                goto out;
        }

        r = ra_config_load(o->root, &config);
        if (r < 0)
                goto out;
        log_config_problems(config);

        r = ra_decide(&config->profile, &facts, &d, NULL, 0);
        if (d.rule)
                snprintf(rule, sizeof(rule), "%s:%s", d.rule->file, d.rule->section);

        printf("READAHEAD_CLASS=%s\n", ra_class_to_string(facts.class));
        if (facts.current_known)
                printf("READAHEAD_PREVIOUS_KB=%" PRIu64 "\n", facts.current_kb);
        if (rule[0])
                printf("READAHEAD_RULE=%s\n", rule);

        if (r < 0) {
                result = "failed";
                char msg[512];
                snprintf(msg, sizeof(msg), "%s: rule %s failed: %s; read_ahead_kb left at %" PRIu64,
                         facts.name, rule, d.reason, facts.current_kb);
                ra_journal_send(LOG_ERR, msg, NULL, 0);
        } else if (d.keep)
                result = "left-alone";
        else {
                printf("READAHEAD_TARGET_KB=%" PRIu64 "\n", d.target_kb);
                if (o->dry_run)
                        result = "dry-run";
                else if (facts.current_known && facts.current_kb == d.target_kb)
                        result = "unchanged"; /* the common change event: nothing to write or log */
                else {
                        r = ra_write_read_ahead(facts.attr_path, d.target_kb, &now_kb);
                        result = r < 0 ? "failed" : "written";
                        log_result(&facts, &d, result, rule, now_kb, r);
                }
        }
        printf("READAHEAD_RESULT=%s\n", result);

out:
        ra_config_free(config);
        ra_facts_done(&facts);
        udev_device_unref(dev);
        udev_unref(udev);
        return 0;
}

int main(int argc, char **argv) {
        struct options o = {};
        int r = parse_argv(argc, argv, &o);

        if (r <= 0)
                return r < 0 ? 2 : 0;
        run(&o);
        return 0;
}
