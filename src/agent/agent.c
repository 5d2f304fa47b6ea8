/* SPDX-License-Identifier: MIT */
/*
 * readahead-agent: run by udev for each whole disk on add and change (RUN,
 * which udev executes after every rule of the event, so no later rule undoes
 * the value) and for each anonymous ("0:N": network and FUSE mounts) or
 * btrfs bdi on add (IMPORT{program}, so that a wait for the mount can be
 * handed to systemd). Decides read_ahead_kb from the profile, writes and
 * verifies it, and prints the decision as READAHEAD_* lines: udev stores
 * them for a bdi and discards them for a disk, whose decision the journal
 * and readahead-ctl status show.
 *
 * It always exits 0 once running under udev: a failing helper would only make
 * udev log noise, and there is nothing udev could do about it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "agent.h"
#include "journal.h"
#include "watch.h"

static void help(void) {
        printf("Usage: readahead-agent [--root DIR] [--dry-run]\n"
               "Run by udev, with the event in the environment: RUN for a disk's add or\n"
               "change, IMPORT{program} for a network, FUSE or btrfs bdi's add. Sets\n"
               "read_ahead_kb from the active profile and prints READAHEAD_* properties,\n"
               "which udev stores for a bdi.\n\n"
               "  --root DIR   read configuration below DIR\n"
               "  --dry-run    decide and print, write nothing\n"
               "  --wait-bdi NAME  wait (MountWaitSec=) for the mount of bdi NAME, then set it;\n"
               "               run by readahead-agent-bdi@NAME.service, off the udev worker\n"
               "  --watch      run until SIGTERM: set every disk and mount now, then follow\n"
               "               udev's events and mount changes (where no udev rule can be\n"
               "               installed: a container, deploy/kubernetes)\n"
               "  --check-sec N     --watch: put back drifted values every N s (default 60)\n"
               "  --mountinfo PATH  the mount table to read (/proc/1/mountinfo: the host's,\n"
               "               from a container with the host's PID namespace)\n"
               "  --metrics-file PATH  --watch: readahead-ctl's Prometheus gauges, written\n"
               "               there at start and every check (node_exporter's textfile)\n"
               "  --alive-file PATH  --watch: written at start and after every check\n"
               "               (default " WATCH_ALIVE_FILE ")\n"
               "  --check-alive  exit 0 if the --watch that writes --alive-file finished a\n"
               "               check lately (two periods and 20 s), 1 if not: a liveness probe\n"
               "  --reset      readahead-ctl reset (the kernel's values back), then wait for\n"
               "               SIGTERM (the removal DaemonSet's container)\n"
               "  --help, --version\n");
}

static int parse_argv(int argc, char **argv, struct agent_options *o) {
        static const struct option opts[] = {
                { "root", required_argument, NULL, 'r' },
                { "dry-run", no_argument, NULL, 'n' },
                { "wait-bdi", required_argument, NULL, 'w' },
                { "watch", no_argument, NULL, 'W' },
                { "reset", no_argument, NULL, 'R' },
                { "check-sec", required_argument, NULL, 'c' },
                { "mountinfo", required_argument, NULL, 'm' },
                { "metrics-file", required_argument, NULL, 'M' },
                { "alive-file", required_argument, NULL, 'A' },
                { "check-alive", no_argument, NULL, 'L' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {},
        };
        int c;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0)
                switch (c) {
                case 'r':
                        if (ra_root_check(optarg) < 0) {
                                fprintf(stderr, "readahead-agent: --root: longer than %d bytes, refused\n",
                                        RA_ROOT_MAX);
                                return -EINVAL;
                        }
                        o->root = optarg;
                        break;
                case 'n':
                        o->dry_run = true;
                        break;
                case 'w':
                        o->wait_bdi = optarg;
                        break;
                case 'W':
                        o->watch = true;
                        break;
                case 'R':
                        o->reset = true;
                        break;
                case 'c':
                        if (watch_parse_check_sec(optarg, &o->check_sec) < 0) {
                                fprintf(stderr, "readahead-agent: --check-sec: '%s' is not 1 to %u seconds\n",
                                        optarg, WATCH_CHECK_SEC_MAX);
                                return -EINVAL;
                        }
                        break;
                case 'm':
                        /* Through the environment: the waiter and readahead-ctl read it too. */
                        if (setenv("READAHEAD_MOUNTINFO", optarg, 1) < 0)
                                return -errno;
                        break;
                case 'M':
                        o->metrics_file = optarg;
                        break;
                case 'A':
                        o->alive_file = optarg;
                        break;
                case 'L':
                        o->check_alive = true;
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

/*
 * libudev (252) cuts the environment's strings at '=' while it reads the
 * event from them, which empties the environment for everything after: the
 * waiter we exec, and umockdev, whose preload library finds its test tree
 * through UMOCKDEV_DIR. So libudev reads a copy.
 */
extern char **environ;

static struct udev_device *device_from_environment(struct udev *udev) {
        struct udev_device *dev = NULL;
        size_t n = 0;

        while (environ[n])
                n++;
        char **copy = calloc(n + 1, sizeof(char *));
        if (!copy)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (!(copy[i] = strdup(environ[i])))
                        goto out;

        char **original = environ;
        environ = copy;
        dev = udev_device_new_from_environment(udev);
        environ = original;
out:
        for (size_t i = 0; i < n; i++)
                free(copy[i]);
        free(copy);
        return dev;
}

void config_load_failed(const char *name, int error) {
        agent_log(LOG_ERR, NULL, 0, "%s: cannot load the configuration: %s; read_ahead_kb left alone", name,
                  strerror(-error));
        printf("READAHEAD_RESULT=failed\n");
}

static int run(const struct agent_options *o) {
        struct udev *udev = udev_new();
        struct udev_device *dev = NULL;

        if (!udev)
                return -ENOMEM;
        dev = device_from_environment(udev);
        if (!dev)
                goto out; /* not a udev event, or a device we cannot see: nothing to do */

        /* The rule guards these too; checking again keeps a hand-run agent harmless. */
        const char *action = udev_device_get_action(dev);
        const char *subsystem = udev_device_get_subsystem(dev);
        if (streq_ptr(subsystem, "block") && streq_ptr(udev_device_get_devtype(dev), "disk") &&
            (streq_ptr(action, "add") || streq_ptr(action, "change"))) {
                if (event_check(dev, true) == 0)
                        handle_block(o, dev);
        } else if (streq_ptr(subsystem, "bdi") && streq_ptr(action, "add")) {
                if (event_check(dev, false) == 0)
                        handle_bdi(o, udev, udev_device_get_sysname(dev));
        }
out:
        udev_device_unref(dev);
        udev_unref(udev);
        return 0;
}

int main(int argc, char **argv) {
        struct agent_options o = { .check_sec = 60, .alive_file = WATCH_ALIVE_FILE };
        int r = parse_argv(argc, argv, &o);

        if (r <= 0)
                return r < 0 ? 2 : 0;
        if (o.check_alive)
                return alive_check(o.alive_file);
        if (o.wait_bdi)
                return wait_bdi(&o, o.wait_bdi);
        if (o.watch)
                return run_watch(&o);
        if (o.reset)
                return run_reset(&o);
        run(&o);
        return 0;
}
