/* SPDX-License-Identifier: MIT */
/*
 * --watch: the long-running mode (see watch.h). One thread, one poll() on
 * three descriptors: udev's monitor (the host's udevd, through the host's
 * network namespace), the mount table (POLLPRI on every change, so that a
 * network mount whose bdi came first is decided once it is mounted), and
 * SIGTERM/SIGINT. Every device goes through handle_block() or handle_bdi(),
 * which load the configuration each time: a ConfigMap update applies at the
 * next event or check with no reload logic.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "gather.h"
#include "journal.h"
#include "mountinfo.h"
#include "watch.h"

/* Room for the events that come while a pass runs (about 0.7 ms a device).
 * A disk's event takes 2.3 KiB of it with up to 1 KiB of properties, 4.3 KiB
 * with 2 to 3 KiB (the skb's true size, measured): 4 MiB holds about 950 such
 * events, a change on every disk of a 1000-disk node, and fits the pod's
 * 64 MiB limit 16 times. Without CAP_NET_ADMIN (the pod) the kernel grants
 * twice net.core.rmem_max at most (416 KiB by default, about 95 events): an
 * overflow is noticed (ENOBUFS) and answered by a check of every device. */
#define MONITOR_BUFFER_BYTES (4 * 1024 * 1024)

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

struct pass_count {
        unsigned disks, bdis;
};

/* Every whole disk and every bdi of ours, as their add events would. */
static int pass_all(const struct agent_options *o, struct udev *udev, bool disks, struct pass_count *count) {
        struct udev_enumerate *e = udev_enumerate_new(udev);
        struct udev_list_entry *entry;

        if (!e)
                return -ENOMEM;
        if (disks) {
                udev_enumerate_add_match_subsystem(e, "block");
                udev_enumerate_add_match_property(e, "DEVTYPE", "disk");
        }
        udev_enumerate_add_match_subsystem(e, "bdi");
        int r = udev_enumerate_scan_devices(e);
        if (r < 0) {
                udev_enumerate_unref(e);
                return r;
        }
        udev_list_entry_foreach(entry, udev_enumerate_get_list_entry(e)) {
                struct udev_device *dev = udev_device_new_from_syspath(udev, udev_list_entry_get_name(entry));
                if (!dev)
                        continue; /* gone since the scan */
                /* The enumeration has no action: classify as the add it stands for. */
                switch (watch_classify(udev_device_get_subsystem(dev), udev_device_get_devtype(dev), "add",
                                       udev_device_get_sysname(dev))) {
                case WATCH_BLOCK:
                        handle_block(o, dev);
                        count->disks++;
                        break;
                case WATCH_BDI:
                        handle_bdi(o, udev, udev_device_get_sysname(dev));
                        count->bdis++;
                        break;
                default:
                        break;
                }
                udev_device_unref(dev);
        }
        udev_enumerate_unref(e);
        return 0;
}

/* Runs readahead-ctl ARGS... (--root passed on, READAHEAD_MOUNTINFO
 * inherited) with stdout on out_path (NULL: ours); its exit code, or -1. */
static int run_ctl(const struct agent_options *o, const char *verb, const char *format, const char *out_path) {
        posix_spawn_file_actions_t actions;
        const char *argv[8];
        size_t n = 0;
        pid_t pid;
        int status, r;

        argv[n++] = RA_CTL_PATH;
        if (format)
                argv[n++] = format;
        argv[n++] = verb;
        if (o->root) {
                argv[n++] = "--root";
                argv[n++] = o->root;
        }
        argv[n] = NULL;
        posix_spawn_file_actions_init(&actions);
        if (out_path)
                posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path, O_WRONLY | O_CREAT | O_TRUNC,
                                                 0644);
        extern char **environ;
        r = posix_spawn(&pid, RA_CTL_PATH, &actions, NULL, (char **) argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        if (r != 0) {
                agent_log(LOG_WARNING, NULL, 0, "cannot run %s: %s, ignoring", RA_CTL_PATH, strerror(r));
                return -1;
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * node_exporter's textfile collector reads what readahead-ctl status
 * --format=prometheus prints: written aside, then renamed, so that a scrape
 * never sees half a file.
 */
static void write_metrics(const struct agent_options *o) {
        char *tmp = NULL;

        if (!o->metrics_file || asprintf(&tmp, "%s.tmp", o->metrics_file) < 0)
                return;
        int r = run_ctl(o, "status", "--format=prometheus", tmp);
        if (r > 0) /* (< 0: run_ctl() logged why it could not run it) */
                agent_log(LOG_WARNING, NULL, 0, "readahead-ctl status exited %d, %s not updated", r,
                          o->metrics_file);
        if (r != 0)
                (void) unlink(tmp);
        else if (rename(tmp, o->metrics_file) < 0)
                agent_log(LOG_WARNING, NULL, 0, "cannot write %s: %m, ignoring", o->metrics_file);
        free(tmp);
}

static void handle_event(const struct agent_options *o, struct udev *udev, struct udev_device *dev) {
        switch (watch_classify(udev_device_get_subsystem(dev), udev_device_get_devtype(dev),
                               udev_device_get_action(dev), udev_device_get_sysname(dev))) {
        case WATCH_BLOCK:
                handle_block(o, dev);
                break;
        case WATCH_BDI:
                handle_bdi(o, udev, udev_device_get_sysname(dev));
                break;
        default:
                break;
        }
}

static struct udev_monitor *monitor_new(struct udev *udev) {
        struct udev_monitor *m = udev_monitor_new_from_netlink(udev, "udev");
        if (!m)
                return NULL;
        (void) udev_monitor_set_receive_buffer_size(m, MONITOR_BUFFER_BYTES);
        if (udev_monitor_filter_add_match_subsystem_devtype(m, "block", "disk") < 0 ||
            udev_monitor_filter_add_match_subsystem_devtype(m, "bdi", NULL) < 0 ||
            udev_monitor_enable_receiving(m) < 0) {
                udev_monitor_unref(m);
                return NULL;
        }
        return m;
}

static int signal_fd_new(void) {
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;
        int fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        return fd < 0 ? -errno : fd;
}

int run_reset(const struct agent_options *o) {
        int sfd = signal_fd_new();
        if (sfd < 0)
                return 1;
        /* readahead-ctl says what it put back, on stderr as ours. */
        int r = run_ctl(o, "reset", NULL, NULL);
        agent_log(r == 0 ? LOG_INFO : LOG_ERR, NULL, 0, "readahead-ctl reset %s; waiting for SIGTERM",
                  r == 0 ? "done" : "failed");
        struct pollfd p = { .fd = sfd, .events = POLLIN };
        while (poll(&p, 1, -1) < 0 && errno == EINTR)
                ;
        close(sfd);
        return r == 0 ? 0 : 1;
}

/* The liveness file, after each pass: a failure is logged once until a
 * write works again, the probe says the rest. */
static void beat(const struct agent_options *o) {
        static bool failed;
        int r = alive_write(o->alive_file, o->check_sec);
        if (r < 0 && !failed)
                agent_log(LOG_WARNING, NULL, 0, "cannot write the liveness file %s: %s", o->alive_file,
                          strerror(-r));
        failed = r < 0;
}

/* Until SIGTERM or SIGINT (0) or a failed poll (1): udev's events, the
 * mount table's changes, and the check every check_sec. */
static int watch_loop(struct agent_options *o, struct udev *udev, struct udev_monitor *mon, int sfd,
                      int mfd) {
        uint64_t due_ms = now_ms() + (uint64_t) o->check_sec * 1000;
        for (;;) {
                struct pollfd fds[] = {
                        { .fd = sfd, .events = POLLIN },
                        { .fd = udev_monitor_get_fd(mon), .events = POLLIN },
                        { .fd = mfd, .events = POLLPRI },
                };
                int n = poll(fds, mfd >= 0 ? 3 : 2, watch_poll_timeout_ms(now_ms(), due_ms));
                if (n < 0 && errno != EINTR) {
                        agent_log(LOG_ERR, NULL, 0, "poll failed: %m");
                        return 1;
                }
                if (fds[0].revents & POLLIN) {
                        struct signalfd_siginfo si;
                        if (read(sfd, &si, sizeof(si)) == sizeof(si))
                                agent_log(LOG_INFO, NULL, 0, "%s: stopping; read_ahead_kb values stay as set",
                                          strsignal((int) si.ssi_signo));
                        return 0;
                }
                if (fds[1].revents & POLLIN) {
                        struct udev_device *dev;
                        while ((dev = udev_monitor_receive_device(mon))) {
                                handle_event(o, udev, dev);
                                udev_device_unref(dev);
                        }
                        /* The socket overflowed: events were lost, check every device now. */
                        if (errno == ENOBUFS) {
                                agent_log(LOG_WARNING, NULL, 0,
                                          "udev's events overflowed the socket buffer; checking every device now");
                                due_ms = 0;
                        }
                }
                /* The kernel re-arms POLLPRI in poll() itself: nothing to read. */
                if (mfd >= 0 && (fds[2].revents & (POLLPRI | POLLERR))) {
                        struct pass_count mounts = {};
                        pass_all(o, udev, false, &mounts);
                }
                if (now_ms() >= due_ms) {
                        struct pass_count checked = {};
                        o->recheck = true;
                        pass_all(o, udev, true, &checked);
                        o->recheck = false;
                        write_metrics(o);
                        beat(o);
                        due_ms = now_ms() + (uint64_t) o->check_sec * 1000;
                }
        }
}

int run_watch(struct agent_options *o) {
        struct udev *udev = udev_new();
        struct udev_monitor *mon = NULL;
        int sfd = -1, mfd = -1, ret = 1;

        /* The handlers print udev's READAHEAD_* lines; here nobody reads them. */
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0) {
                dup2(null, STDOUT_FILENO);
                close(null);
        }
        /* Events first, then the pass: a disk that appears in between is seen twice, never missed. */
        if (!udev || !(mon = monitor_new(udev))) {
                agent_log(LOG_ERR, NULL, 0,
                          "cannot listen to udev's events: %m (the host's network namespace and /run/udev are needed)");
                goto out;
        }
        sfd = signal_fd_new();
        if (sfd < 0) {
                agent_log(LOG_ERR, NULL, 0, "cannot take SIGTERM: %s", strerror(-sfd));
                goto out;
        }
        mfd = open(ra_mountinfo_path(), O_RDONLY | O_CLOEXEC);
        if (mfd < 0)
                agent_log(LOG_WARNING, NULL, 0,
                          "cannot open %s: %m; network mounts are decided by the periodic check only",
                          ra_mountinfo_path());

        struct pass_count count = {};
        o->no_wait = true;
        beat(o);
        pass_all(o, udev, true, &count);
        write_metrics(o);
        beat(o);
        agent_log(LOG_INFO, NULL, 0,
                  "version %s, watching: %u disks and %u mounts at start, udev events, %s, a check every %u s",
                  RA_VERSION, count.disks, count.bdis, ra_mountinfo_path(), o->check_sec);

        ret = watch_loop(o, udev, mon, sfd, mfd);
out:
        if (mfd >= 0)
                close(mfd);
        if (sfd >= 0)
                close(sfd);
        udev_monitor_unref(mon);
        udev_unref(udev);
        return ret;
}
