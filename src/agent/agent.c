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
#include <unistd.h>

#include "agent.h"
#include "journal.h"
#include "mountinfo.h"
#include "text.h"
#include "watch.h"

/* The agent's options, each described once: getopt reads the first part,
 * --help and --list-options (for tests/tables) the rest. A help's later
 * lines are indented under its first. */
static const struct agent_option {
        struct option getopt;
        const char *arg; /* its value's name; NULL: none */
        const char *help;
} options[] = {
        { { "root", required_argument, NULL, 'r' }, "DIR", "read configuration below DIR" },
        { { "dry-run", no_argument, NULL, 'n' }, NULL, "decide and print, write nothing" },
        { { "wait-bdi", required_argument, NULL, 'w' }, "NAME",
          "wait (MountWaitSec=) for the mount of bdi NAME, then\n"
          "set it; run by readahead-agent-bdi@NAME.service, off\n"
          "the udev worker" },
        { { "watch", no_argument, NULL, 'W' }, NULL,
          "run until SIGTERM: set every disk and mount now, then\n"
          "follow udev's events and mount changes (where no udev\n"
          "rule can be installed: a container, deploy/kubernetes)" },
        { { "check-sec", required_argument, NULL, 'c' }, "N",
          "--watch: put back drifted values every N s (default " RA_STRINGIFY(WATCH_CHECK_SEC_DEFAULT) ")" },
        { { "advise-sec", required_argument, NULL, 'a' }, "N",
          "--watch: observe the disks and NFS mounts as\n"
          "readahead-ctl advise does, over windows of N s, and\n"
          "log each window's advice (and keep it for the\n"
          "--metrics-file); writes no read_ahead_kb (default off)" },
        { { "mountinfo", required_argument, NULL, 'm' }, "PATH",
          "the mount table to read (/proc/1/mountinfo: the\n"
          "host's, from a container with the host's PID namespace)" },
        { { "metrics-file", required_argument, NULL, 'M' }, "PATH",
          "--watch: readahead-ctl's Prometheus gauges, written\n"
          "there at start and every check (node_exporter's\n"
          "textfile collector)" },
        { { "reset", no_argument, NULL, 'R' }, NULL,
          "readahead-ctl reset (the kernel's values back), then\n"
          "wait for SIGTERM (the removal DaemonSet's container)" },
        { { "alive-file", required_argument, NULL, 'A' }, "PATH",
          "--watch: written at start and after every check\n"
          "(default " WATCH_ALIVE_FILE ")" },
        { { "check-alive", no_argument, NULL, 'K' }, NULL,
          "exit 0 if the --watch that writes --alive-file\n"
          "finished a check lately (two periods and 20 s), 1 if\n"
          "not: a liveness probe" },
        { { "ctl", required_argument, NULL, 'C' }, "PATH",
          "the readahead-ctl that --watch and --reset run\n"
          "(default " RA_CTL_PATH ")" },
        { { "help", no_argument, NULL, 'h' }, NULL, "this text" },
        { { "version", no_argument, NULL, 'V' }, NULL, "the version" },
        /* Not in --help: the table, for tests/tables. */
        { { "list-options", no_argument, NULL, 'L' }, NULL, NULL },
};

#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static void help(void) {
        printf("Usage: readahead-agent [--root DIR] [--dry-run]\n"
               "Run by udev, with the event in the environment: RUN for a disk's add or\n"
               "change, IMPORT{program} for a network, FUSE or btrfs bdi's add. Sets\n"
               "read_ahead_kb from the active profile and prints READAHEAD_* properties,\n"
               "which udev stores for a bdi.\n\n");
        for (size_t i = 0; i < N_OPTIONS; i++) {
                const struct agent_option *o = &options[i];
                char head[40];

                if (!o->help)
                        continue;
                snprintf(head, sizeof(head), "--%s%s%s", o->getopt.name, o->arg ? " " : "", o->arg ? o->arg : "");
                printf("  %-20s ", head);
                for (const char *p = o->help; *p; p++) {
                        putchar(*p);
                        if (*p == '\n')
                                printf("%23s", "");
                }
                putchar('\n');
        }
}

/* A FIFO, device or socket as --mountinfo is refused at once: it would block
 * the start, or wake the watch loop for ever. A file that is not there (yet)
 * is left to the readers, which say so. */
static int mountinfo_type_check(const char *path) {
        int fd = ra_mountinfo_open();
        if (fd == -EBADFD) {
                fprintf(stderr, "readahead-agent: --mountinfo %s: %s, refused\n", path,
                        ra_mountinfo_strerror(fd));
                return fd;
        }
        if (fd >= 0)
                close(fd);
        return 0;
}

static int parse_argv(int argc, char **argv, struct agent_options *o) {
        struct option opts[N_OPTIONS + 1] = {};
        int c;

        for (size_t i = 0; i < N_OPTIONS; i++)
                opts[i] = options[i].getopt;
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
                case 'a':
                        if (watch_parse_advise_sec(optarg, &o->advise_sec) < 0) {
                                fprintf(stderr, "readahead-agent: --advise-sec: '%s' is not 1 to %u seconds\n",
                                        optarg, WATCH_ADVISE_SEC_MAX);
                                return -EINVAL;
                        }
                        break;
                case 'm':
                        /* Through the environment: the waiter and readahead-ctl read it too. */
                        if (setenv("READAHEAD_MOUNTINFO", optarg, 1) < 0)
                                return -errno;
                        if (mountinfo_type_check(optarg) < 0)
                                return -EINVAL;
                        break;
                case 'M':
                        o->metrics_file = optarg;
                        break;
                case 'C':
                        o->ctl_path = optarg;
                        break;
                case 'A':
                        o->alive_file = optarg;
                        break;
                case 'K':
                        o->check_alive = true;
                        break;
                case 'h':
                        help();
                        return 0;
                case 'V':
                        printf("readahead-agent %s\n", RA_VERSION);
                        return 0;
                case 'L':
                        for (size_t i = 0; i < N_OPTIONS; i++)
                                if (options[i].help)
                                        printf("--%s\n", options[i].getopt.name);
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

/*
 * libudev (252) cuts the environment's strings at '=' while it reads the
 * event from them, which empties the environment for everything after: the
 * waiter we exec, and umockdev, whose preload library finds its test tree
 * through UMOCKDEV_DIR. So libudev reads a copy.
 */
extern char **environ;

static struct udev_device *device_from_environment(struct udev *udev) {
        size_t n = 0, bytes = 0;

        while (environ[n])
                bytes += strlen(environ[n++]) + 1;
        /* The pointers, then the strings: one allocation, not one per variable. */
        char **copy = malloc((n + 1) * sizeof(char *) + bytes);
        if (!copy)
                return NULL;
        char *p = (char *) (copy + n + 1);
        for (size_t i = 0; i < n; i++) {
                size_t l = strlen(environ[i]) + 1;
                copy[i] = memcpy(p, environ[i], l);
                p += l;
        }
        copy[n] = NULL;

        char **original = environ;
        environ = copy;
        struct udev_device *dev = udev_device_new_from_environment(udev);
        environ = original;
        free(copy);
        return dev;
}

void config_load_failed(const char *name, int error) {
        char dev[RA_NAME_MAX + 24];
        ra_str_join(dev, sizeof(dev), "READAHEAD_DEVICE=", name, NULL);
        const char *fields[] = { dev, "READAHEAD_RESULT=failed" };
        agent_log(LOG_ERR, fields, 2, "%s: cannot load the configuration: %s; read_ahead_kb left alone", name,
                  strerror(-error));
        printf("READAHEAD_RESULT=failed\n");
}

static struct udev_device *event_device;
static struct udev *event_udev;

static int run(const struct agent_options *o) {
        struct udev *udev = udev_new();
        struct udev_device *dev = NULL;

        if (!udev)
                return -ENOMEM;
        dev = device_from_environment(udev);
        if (!dev)
                goto out; /* not a udev event, or a device we cannot see: nothing to do */

        /* The rule guards these too; checking again keeps a hand-run agent harmless. */
        struct event_fields fields;
        event_fields_from_environment(&fields);
        handle_event(o, udev, dev, &fields, udev_device_get_action(dev));
out:
        /* The process ends here: freeing the device would cost 13 K
         * instructions (a tenth of what the agent adds to an event) to give
         * back memory that exit gives back anyway. Kept where leak checkers
         * see it still reachable. */
        event_device = dev;
        event_udev = udev;
        return 0;
}

int main(int argc, char **argv) {
        struct agent_options o = { .check_sec = WATCH_CHECK_SEC_DEFAULT, .ctl_path = RA_CTL_PATH, .alive_file = WATCH_ALIVE_FILE };
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
        o.event_from_environment = true;
        run(&o);
        return 0;
}
