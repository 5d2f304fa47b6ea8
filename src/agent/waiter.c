/* SPDX-License-Identifier: MIT */
/* The mount waiter: --wait-bdi, off the udev worker. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "bounded.h"
#include "btrfs.h"
#include "gather.h"
#include "host.h"
#include "journal.h"
#include "mount-wait.h"
#include "mountinfo.h"

static void statfs_path(const void *path) {
        struct statfs st;
        (void) statfs(path, &st);
}

/*
 * A FUSE mount is in mountinfo before its daemon has answered FUSE_INIT; the
 * answer then lowers the bdi to min(current, the daemon's max_readahead), so a
 * value written early is lost. statfs() waits for that answer (a mount we may
 * not access answers at once), in a child so that a daemon that never answers
 * costs the bound and a log line, and the value is checked again for a while
 * after it is written. Returns false when the daemon did not answer in time.
 */
static bool fuse_wait_init(const struct ra_facts *facts, unsigned bound_sec) {
        bound_sec = bound_sec > 0 ? bound_sec : 1;
        int r = run_bounded(statfs_path, ra_str(facts->mount_point), bound_sec * 1000);
        if (r != -ETIMEDOUT)
                return true; /* answered, or no child to wait in: write now rather than never */

        char dev[RA_NAME_MAX + 24];
        snprintf(dev, sizeof(dev), "READAHEAD_DEVICE=%s", facts->name);
        const char *fields[] = { dev, "READAHEAD_RESULT=timeout" };
        agent_log(LOG_WARNING, fields, 2,
                  "%s: the FUSE daemon did not answer FUSE_INIT within %u s, giving up; read_ahead_kb not changed",
                  facts->name, bound_sec);
        return false;
}

/* FUSE (see above), and btrfs, whose mount path sets the bdi itself: read
 * the value again a few times and put it back if something changed it. */
static void keep_value(const struct agent_options *o, struct udev *udev, const struct ra_config *config,
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
                if (same) {
                        struct ra_plan plan;
                        agent_plan(config, &facts, &plan);
                        if (plan_changes_value(&plan))
                                carry_out_plan(o, &facts, &plan);
                }
                ra_facts_done(&facts);
                if (!same)
                        break;
        }
}

/* The waiter's clock, lookup and sleep for mount_wait(). */
struct real_wait {
        struct udev *udev;
        const char *bdi;
        struct ra_facts facts; /* the last lookup's; the mount's once found */
        int mountinfo_fd;      /* -1: sleep without noticing changes */
};

static uint64_t real_now_ms(void *userdata) {
        (void) userdata;
        return now_ms();
}

static int real_lookup(void *userdata) {
        struct real_wait *w = userdata;
        ra_facts_done(&w->facts);
        ra_facts_init(&w->facts);
        return ra_gather_named_bdi(w->udev, w->bdi, &w->facts);
}

/* The kernel flags mountinfo with POLLPRI on every mount table change. */
static void real_sleep(void *userdata, unsigned ms) {
        struct real_wait *w = userdata;
        struct pollfd p = { .fd = w->mountinfo_fd, .events = POLLPRI };

        if (w->mountinfo_fd < 0) {
                (void) poll(NULL, 0, (int) ms);
                return;
        }
        (void) poll(&p, 1, (int) ms);
        if (p.revents & (POLLHUP | POLLNVAL)) {
                /* It would wake every poll() at once from now on: sleep without it. */
                close(w->mountinfo_fd);
                w->mountinfo_fd = -1;
                return;
        }
        if (p.revents & POLLPRI) {
                /* Re-arm: the event is consumed by reading. */
                char buf[4096];
                (void) lseek(w->mountinfo_fd, 0, SEEK_SET);
                while (read(w->mountinfo_fd, buf, sizeof(buf)) > 0)
                        ;
        }
}

/* Logs why the wait ended without a mount; 0 when that is no failure. */
static int report_no_mount(const char *bdi, enum mount_wait_result res, int error, unsigned wait_sec) {
        char dev[RA_NAME_MAX + 24];

        switch (res) {
        case MOUNT_WAIT_GONE:
                agent_log(LOG_INFO, NULL, 0, "%s: bdi is gone before its mount appeared", bdi);
                return 0;
        case MOUNT_WAIT_ERROR:
                agent_log(LOG_ERR, NULL, 0,
                          "%s: cannot look up its mount in %s: %s; read_ahead_kb not changed", bdi,
                          ra_mountinfo_path(), ra_mountinfo_strerror(error));
                return 1;
        default:
                snprintf(dev, sizeof(dev), "READAHEAD_DEVICE=%s", bdi);
                const char *fields[] = { dev, "READAHEAD_RESULT=timeout" };
                agent_log(LOG_WARNING, fields, 2,
                          "%s: no mount for this bdi in /proc/self/mountinfo after %u s, giving up; read_ahead_kb not changed",
                          bdi, wait_sec);
                return 1;
        }
}

/*
 * --wait-bdi: waits, off the udev worker, until the mount behind an anonymous
 * bdi shows up in /proc/self/mountinfo (mount_wait(): POLLPRI on every mount
 * table change, and a timeout that grows from 50 ms to 1 s so that a missed
 * or unpollable change, umockdev's plain file, is still seen), then decides.
 * Bounded by MountWaitSec=.
 */
int wait_bdi(const struct agent_options *o, const char *bdi) {
        struct ra_config *config = NULL;
        struct real_wait w = { .bdi = bdi, .mountinfo_fd = -1 };
        int r, error = 0, ret = 1;

        if (!ra_bdi_is_ours(bdi)) {
                fprintf(stderr, "readahead-agent: '%s' is not an anonymous bdi (0:N) or btrfs-N\n", bdi);
                return 2;
        }
        r = ra_config_load(o->root, &config);
        if (r < 0)
                return 1;
        ra_facts_init(&w.facts);
        w.udev = udev_new(); /* for btrfs members' classes; without it they are unknown */
        w.mountinfo_fd = ra_mountinfo_open(); /* not a regular file: sleep without noticing changes */
        if (w.mountinfo_fd < 0)
                w.mountinfo_fd = -1;

        const struct mount_wait_ops ops = {
                .now_ms = real_now_ms,
                .lookup = real_lookup,
                .sleep = real_sleep,
                .userdata = &w,
        };
        enum mount_wait_result res = mount_wait(&ops, config->agent.mount_wait_sec, &error);
        if (res != MOUNT_WAIT_FOUND) {
                ret = report_no_mount(bdi, res, error, config->agent.mount_wait_sec);
                goto out;
        }

        log_config_problems(o, config);
        struct ra_plan plan;
        agent_plan(config, &w.facts, &plan);
        bool fuse = w.facts.class == RA_CLASS_FUSE && plan_changes_value(&plan);
        if (fuse) {
                if (!fuse_wait_init(&w.facts, config->agent.mount_wait_sec))
                        goto out;
                /* FUSE_INIT may have changed the facts: plan again after it. */
                if (real_lookup(&w) < 0)
                        goto out;
                agent_plan(config, &w.facts, &plan);
        }
        carry_out_plan(o, &w.facts, &plan);
        if ((fuse || ra_bdi_is_btrfs(bdi)) && !o->dry_run)
                keep_value(o, w.udev, config, &w.facts);
        ret = 0;
out:
        ra_facts_done(&w.facts);
        if (w.mountinfo_fd >= 0)
                close(w.mountinfo_fd);
        udev_unref(w.udev);
        ra_config_free(config);
        return ret;
}
