/* SPDX-License-Identifier: MIT */
/*
 * readahead-agent: run by udev (IMPORT{program}) for each whole disk on add
 * and change, and for each anonymous bdi (network and FUSE mounts) on add.
 * Decides read_ahead_kb from the profile, writes and verifies it, and prints
 * the decision as READAHEAD_* properties for the udev database.
 *
 * It always exits 0 once running under udev: a failing helper would only make
 * udev log noise, and there is nothing udev could do about it.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "btrfs.h"
#include "config.h"
#include "decide.h"
#include "gather.h"
#include "journal.h"
#include "mountinfo.h"

struct options {
        const char *root;
        const char *wait_bdi;
        bool dry_run;
};

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static void help(void) {
        printf("Usage: readahead-agent [--root DIR] [--dry-run]\n"
               "Run by udev for a block device event, with the event in the environment.\n"
               "Sets queue/read_ahead_kb from the active profile and prints READAHEAD_*\n"
               "properties for IMPORT{program}.\n\n"
               "  --root DIR   read configuration below DIR\n"
               "  --dry-run    decide and print, write nothing\n"
               "  --wait-bdi NAME  wait (MountWaitSec=) for the mount of bdi NAME, then set it;\n"
               "               run by readahead-agent-bdi@NAME.service, off the udev worker\n"
               "  --help, --version\n");
}

static int parse_argv(int argc, char **argv, struct options *o) {
        static const struct option opts[] = {
                { "root", required_argument, NULL, 'r' },
                { "dry-run", no_argument, NULL, 'n' },
                { "wait-bdi", required_argument, NULL, 'w' },
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
                case 'w':
                        o->wait_bdi = optarg;
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
 * Whether the configuration problems are news: one bad /etc file must not be
 * logged once per disk (200 copies at boot, against journald's rate limit).
 * A stamp, ROOT/run/readahead-agent/.config-problems-logged, holds the
 * fingerprint of the configuration last logged (files with device, inode,
 * size and mtime, and the problems); any change to a file logs them again.
 * flock() makes concurrent events agree on one to log. Where the stamp cannot
 * be kept (read-only /run, --dry-run), every run logs.
 */
static bool config_problems_are_news(const struct options *o, const struct ra_config *c) {
        char *dir = NULL, *path = NULL, want[32], have[32] = "";
        bool news = true;
        int fd = -1;

        if (o->dry_run)
                return c->n_diags > 0;
        if (asprintf(&dir, "%s/run/readahead-agent", c->root) < 0)
                return c->n_diags > 0;
        if (asprintf(&path, "%s/.config-problems-logged", dir) < 0) {
                free(dir);
                return c->n_diags > 0;
        }
        if (c->n_diags == 0) {
                (void) unlink(path); /* fixed: the same problem later is news again */
                news = false;
                goto out;
        }
        /* /run exists on a real system; below --root it may not. */
        *strrchr(dir, '/') = 0;
        (void) mkdir(dir, 0755);
        dir[strlen(dir)] = '/';
        (void) mkdir(dir, 0755);
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) < 0)
                goto out;
        snprintf(want, sizeof(want), "%016" PRIx64 "\n", ra_config_fingerprint(c));
        ssize_t n = pread(fd, have, sizeof(have) - 1, 0);
        have[n > 0 ? n : 0] = 0;
        if (strcmp(have, want) == 0)
                news = false;
        else if (ftruncate(fd, 0) < 0 || pwrite(fd, want, strlen(want), 0) < 0)
                news = true; /* cannot remember: better twice than never */
out:
        if (fd >= 0)
                close(fd); /* releases the lock */
        free(path);
        free(dir);
        return news;
}

static void log_config_problems(const struct options *o, const struct ra_config *c) {
        if (!config_problems_are_news(o, c))
                return;
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

        if (error == -EIO)
                snprintf(msg, sizeof(msg), "%s: wrote read_ahead_kb %" PRIu64 " but the kernel holds %" PRIu64,
                         f->name, d->target_kb, now_kb);
        else if (error < 0)
                snprintf(msg, sizeof(msg), "%s: could not set read_ahead_kb to %" PRIu64 ": %s", f->name,
                         d->target_kb, strerror(-error));
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

/* Decides for gathered facts, writes unless told not to, prints READAHEAD_*. */
static void decide_and_apply(const struct options *o, const struct ra_config *config,
                             const struct ra_facts *facts) {
        struct ra_decision d;
        char rule[RA_PATH_MAX + 80] = "";
        const char *result;
        uint64_t now_kb = 0;

        int r = ra_decide(&config->profile, facts, &d, NULL, 0);
        if (d.rule)
                snprintf(rule, sizeof(rule), "%s:%s", d.rule->file, d.rule->section);

        printf("READAHEAD_CLASS=%s\n", ra_class_to_string(facts->class));
        if (facts->current_known)
                printf("READAHEAD_PREVIOUS_KB=%" PRIu64 "\n", facts->current_kb);
        if (rule[0])
                printf("READAHEAD_RULE=%s\n", rule);

        if (r < 0) {
                result = "failed";
                char msg[512];
                snprintf(msg, sizeof(msg), "%s: rule %s failed: %s; read_ahead_kb left at %" PRIu64,
                         facts->name, rule, d.reason, facts->current_kb);
                /* d.reason names the file and line of the Size= that failed. */
                ra_journal_send(LOG_ERR, msg, NULL, 0);
        } else if (d.keep)
                result = "left-alone";
        else {
                printf("READAHEAD_TARGET_KB=%" PRIu64 "\n", d.target_kb);
                if (o->dry_run)
                        result = "dry-run";
                else if (facts->current_known && facts->current_kb == d.target_kb)
                        result = "unchanged"; /* the common change event: nothing to write or log */
                else if (d.deferred) {
                        result = "deferred";
                        char msg[256];
                        snprintf(msg, sizeof(msg),
                                 "%s: not writing read_ahead_kb %" PRIu64 " now: %s; the next change event will",
                                 facts->name, d.target_kb, d.deferred);
                        ra_journal_send(LOG_INFO, msg, NULL, 0);
                } else {
                        r = ra_write_read_ahead(facts->attr_path, d.target_kb, &now_kb);
                        result = r < 0 ? "failed" : "written";
                        log_result(facts, &d, result, rule, now_kb, r);
                }
        }
        printf("READAHEAD_RESULT=%s\n", result);
}

static int handle_block(const struct options *o, struct udev_device *dev) {
        struct ra_config *config = NULL;
        struct ra_facts facts;
        int r;

        ra_facts_init(&facts);
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
        log_config_problems(o, config);
        decide_and_apply(o, config, &facts);
out:
        ra_config_free(config);
        ra_facts_done(&facts);
        return 0;
}

static bool systemd_is_running(void) {
        /* What sd_booted() checks, without loading libsystemd. */
        return access("/run/systemd/system", F_OK) == 0;
}

/* The path of this program, however long. */
static char *self_path(void) {
        for (size_t size = 256;; size *= 2) {
                char *buf = malloc(size);
                if (!buf)
                        return NULL;
                ssize_t n = readlink("/proc/self/exe", buf, size);
                if (n < 0) {
                        free(buf);
                        return NULL;
                }
                if ((size_t) n < size) {
                        buf[n] = 0;
                        return buf;
                }
                free(buf); /* may have been cut: try a larger buffer */
                if (size > 1 << 20)
                        return NULL;
        }
}

/*
 * Starts "readahead-agent --wait-bdi NAME" outside the udev worker: a double
 * fork into its own session, with stdio on /dev/null so that udev does not
 * wait for the pipe. Used where systemd is not PID 1, and for --dry-run
 * (which it passes on: the waiter must not write either).
 */
static int spawn_waiter(const struct options *o, const char *bdi) {
        char *self = self_path();
        if (!self)
                return -errno;

        pid_t pid = fork();
        if (pid < 0) {
                free(self);
                return -errno;
        }
        if (pid == 0) {
                if (setsid() < 0 || fork() != 0)
                        _exit(0);
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (null >= 0) {
                        dup2(null, 0);
                        dup2(null, 1);
                        dup2(null, 2);
                }
                const char *argv[8];
                size_t n = 0;
                argv[n++] = self;
                argv[n++] = "--wait-bdi";
                argv[n++] = bdi;
                if (o->dry_run)
                        argv[n++] = "--dry-run";
                if (o->root) {
                        argv[n++] = "--root";
                        argv[n++] = o->root;
                }
                argv[n] = NULL;
                execv(self, (char **) argv);
                _exit(127);
        }
        free(self);
        int status;
        (void) waitpid(pid, &status, 0);
        return 0;
}

/* Whether decide_and_apply() would write anything. */
static bool will_write(const struct ra_config *config, const struct ra_facts *facts) {
        struct ra_decision d;
        return ra_decide(&config->profile, facts, &d, NULL, 0) == 0 && !d.keep &&
               !(facts->current_known && facts->current_kb == d.target_kb);
}

/*
 * A FUSE mount is in mountinfo before its daemon has answered FUSE_INIT; the
 * answer then lowers the bdi to min(current, the daemon's max_readahead), so a
 * value written early is lost. statfs() waits for that answer (killed by the
 * alarm if the daemon never gives it; a mount we may not access answers at
 * once), and the value is checked again for a while after it is written.
 */
static void fuse_wait_init(const struct ra_facts *facts, unsigned bound_sec) {
        struct statfs st;
        alarm(bound_sec > 0 ? bound_sec : 1);
        (void) statfs(ra_str(facts->mount_point), &st);
        alarm(0);
}

/* FUSE (see above), and btrfs, whose mount path sets the bdi itself: read
 * the value again a few times and put it back if something changed it. */
static void keep_value(const struct options *o, struct udev *udev, const struct ra_config *config,
                       const struct ra_facts *written) {
        static const unsigned checks_ms[] = { 100, 400, 1500 };

        for (size_t i = 0; i < sizeof(checks_ms) / sizeof(checks_ms[0]); i++) {
                struct ra_facts facts;
                (void) poll(NULL, 0, (int) checks_ms[i]);
                ra_facts_init(&facts);
                int r = ra_gather_named_bdi(udev, written->name, &facts);
                /* bdi names are reused: stop once it is another mount. */
                bool same = r == 0 && strcmp(ra_str(facts.mount_point), ra_str(written->mount_point)) == 0 &&
                            strcmp(ra_str(facts.source), ra_str(written->source)) == 0 &&
                            strcmp(ra_str(facts.fstype), ra_str(written->fstype)) == 0;
                if (same && will_write(config, &facts))
                        decide_and_apply(o, config, &facts);
                ra_facts_done(&facts);
                if (!same)
                        break;
        }
}

static int handle_bdi(const struct options *o, struct udev *udev, const char *bdi) {
        struct ra_config *config = NULL;
        struct ra_facts facts;
        int r;

        ra_facts_init(&facts);
        r = ra_gather_named_bdi(udev, bdi, &facts);
        if (r == -EINVAL || r == -ENODEV)
                goto out; /* not a bdi of ours, or gone already */
        if (r < 0 && r != -ENOENT) {
                /* Waiting cannot help: mountinfo too large, out of memory. */
                char msg[256];
                snprintf(msg, sizeof(msg), "%s: cannot look up its mount in /proc/self/mountinfo: %s",
                         bdi, r == -EFBIG ? "mountinfo is too large" : strerror(-r));
                ra_journal_send(LOG_ERR, msg, NULL, 0);
                printf("READAHEAD_RESULT=failed\n");
                goto out;
        }
        bool mounted = r == 0;

        r = ra_config_load(o->root, &config);
        if (r < 0)
                goto out;
        log_config_problems(o, config);

        if (mounted && !(facts.class == RA_CLASS_FUSE && will_write(config, &facts)))
                decide_and_apply(o, config, &facts);
        else if (config->agent.mount_wait_sec == 0)
                printf("READAHEAD_RESULT=no-mount\n");
        else if (systemd_is_running() && !o->dry_run)
                /* (The unit's waiter writes: a dry run waits in its own process.) */
                /* The rule turns this into SYSTEMD_WANTS=readahead-agent-bdi@NAME.service. */
                printf("READAHEAD_RESULT=pending\nREADAHEAD_WAIT=systemd\n");
        else {
                r = spawn_waiter(o, bdi);
                printf("READAHEAD_RESULT=%s\nREADAHEAD_WAIT=process\n", r < 0 ? "failed" : "pending");
        }
out:
        ra_config_free(config);
        ra_facts_done(&facts);
        return 0;
}

/*
 * --wait-bdi: waits, off the udev worker, until the mount behind an anonymous
 * bdi shows up in /proc/self/mountinfo, then decides. The kernel flags
 * mountinfo with POLLPRI on every mount table change; the poll timeout also
 * grows from 50 ms to 1 s so that a missed or unpollable change (umockdev's
 * plain file) is still seen. Bounded by MountWaitSec=.
 */
static int wait_bdi(const struct options *o, const char *bdi) {
        struct ra_config *config = NULL;
        struct ra_facts facts;
        struct udev *udev = NULL;
        int r, fd = -1, ret = 1;

        if (!ra_bdi_is_ours(bdi)) {
                fprintf(stderr, "readahead-agent: '%s' is not an anonymous bdi (0:N) or btrfs-N\n", bdi);
                return 2;
        }
        r = ra_config_load(o->root, &config);
        if (r < 0)
                return 1;
        udev = udev_new(); /* for btrfs members' classes; without it they are unknown */

        uint64_t deadline = now_ms() + (uint64_t) config->agent.mount_wait_sec * 1000;
        unsigned step_ms = 50;
        fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

        for (;;) {
                ra_facts_init(&facts);
                r = ra_gather_named_bdi(udev, bdi, &facts);
                if (r == 0)
                        break;
                ra_facts_done(&facts);
                if (r == -ENODEV) {
                        char msg[128];
                        snprintf(msg, sizeof(msg), "%s: bdi is gone before its mount appeared", bdi);
                        ra_journal_send(LOG_INFO, msg, NULL, 0);
                        ret = 0;
                        goto out;
                }
                uint64_t now = now_ms();
                if (r != -ENOENT) {
                        char msg[256];
                        snprintf(msg, sizeof(msg),
                                 "%s: cannot look up its mount in /proc/self/mountinfo: %s; read_ahead_kb not changed",
                                 bdi, r == -EFBIG ? "mountinfo is too large" : strerror(-r));
                        ra_journal_send(LOG_ERR, msg, NULL, 0);
                        goto out;
                }
                if (now >= deadline) {
                        char msg[256], dev[RA_NAME_MAX + 24];
                        snprintf(msg, sizeof(msg),
                                 "%s: no mount for this bdi in /proc/self/mountinfo after %u s, giving up; read_ahead_kb not changed",
                                 bdi, config->agent.mount_wait_sec);
                        snprintf(dev, sizeof(dev), "READAHEAD_DEVICE=%s", bdi);
                        const char *fields[] = { dev, "READAHEAD_RESULT=timeout" };
                        ra_journal_send(LOG_WARNING, msg, fields, 2);
                        goto out;
                }
                struct pollfd p = { .fd = fd, .events = POLLPRI };
                uint64_t wait = deadline - now < step_ms ? deadline - now : step_ms;
                if (fd >= 0)
                        (void) poll(&p, 1, (int) wait);
                else
                        (void) poll(NULL, 0, (int) wait);
                if (fd >= 0 && (p.revents & POLLPRI)) {
                        /* Re-arm: the event is consumed by reading. */
                        char buf[4096];
                        (void) lseek(fd, 0, SEEK_SET);
                        while (read(fd, buf, sizeof(buf)) > 0)
                                ;
                }
                step_ms = step_ms * 2 > 1000 ? 1000 : step_ms * 2;
        }

        log_config_problems(o, config);
        bool fuse = facts.class == RA_CLASS_FUSE && will_write(config, &facts);
        if (fuse) {
                fuse_wait_init(&facts, config->agent.mount_wait_sec);
                ra_facts_done(&facts);
                ra_facts_init(&facts);
                if (ra_gather_named_bdi(udev, bdi, &facts) < 0)
                        goto out;
        }
        decide_and_apply(o, config, &facts);
        if ((fuse || ra_bdi_is_btrfs(bdi)) && !o->dry_run)
                keep_value(o, udev, config, &facts);
        ra_facts_done(&facts);
        ret = 0;
out:
        if (fd >= 0)
                close(fd);
        udev_unref(udev);
        ra_config_free(config);
        return ret;
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

static int run(const struct options *o) {
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
            (streq_ptr(action, "add") || streq_ptr(action, "change")))
                handle_block(o, dev);
        else if (streq_ptr(subsystem, "bdi") && streq_ptr(action, "add"))
                handle_bdi(o, udev, udev_device_get_sysname(dev));
out:
        udev_device_unref(dev);
        udev_unref(udev);
        return 0;
}

int main(int argc, char **argv) {
        struct options o = {};
        int r = parse_argv(argc, argv, &o);

        if (r <= 0)
                return r < 0 ? 2 : 0;
        if (o.wait_bdi)
                return wait_bdi(&o, o.wait_bdi);
        run(&o);
        return 0;
}
