/* SPDX-License-Identifier: MIT */
/*
 * --watch: the long-running mode (see watch.h). One thread, one poll() on
 * three descriptors: udev's monitor (the host's udevd, through the host's
 * network namespace), the mount table (POLLPRI on every change, so that a
 * network mount whose bdi came first is decided once it is mounted), and
 * the signals (SIGTERM/SIGINT; SIGCHLD of the readahead-ctl that writes the
 * metrics, metrics.c, which never blocks the loop). Every device goes through
 * handle_event(), as the udev helper's do: the identity check, then
 * handle_block() or handle_bdi(),
 * which load the configuration each time: a ConfigMap update applies at the
 * next event or check with no reload logic.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "host.h"
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

struct pass_count {
        unsigned disks, bdis;
};

/* Every whole disk and every bdi of ours, as their add events would. */
static int pass_all(const struct agent_options *o, struct udev *udev, bool disks, struct pass_count *count) {
        struct udev_enumerate *e = udev_enumerate_new(udev);
        struct udev_list_entry *entry;

        if (!e)
                return -ENOMEM;
        /* No DEVTYPE=disk match: libudev ANDs it with the subsystems, which
         * left every bdi out of the start and the checks. handle_event()
         * passes partitions over. */
        if (disks)
                udev_enumerate_add_match_subsystem(e, "block");
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
                /* The enumeration has no action: handled as the add it stands for. */
                struct event_fields fields;
                event_fields_from_device(dev, &fields);
                enum watch_event kind =
                        watch_classify(udev_device_get_subsystem(dev), udev_device_get_devtype(dev), "add");
                if (handle_event(o, udev, dev, &fields, "add") == 0) {
                        if (kind == WATCH_BLOCK)
                                count->disks++;
                        else if (kind == WATCH_BDI && ra_bdi_is_ours(udev_device_get_sysname(dev)))
                                count->bdis++;
                }
                udev_device_unref(dev);
        }
        udev_enumerate_unref(e);
        return 0;
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

/* SIGTERM and SIGINT stop; SIGCHLD says a readahead-ctl child has exited. */
static int signal_fd_new(void) {
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGCHLD);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;
        int fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        return fd < 0 ? -errno : fd;
}

/* Reads the signalfd: the stopping signal's number, or 0 (SIGCHLD, or nothing). */
static int signal_read(int sfd) {
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof(si)) == sizeof(si))
                if (si.ssi_signo != SIGCHLD)
                        return (int) si.ssi_signo;
        return 0;
}

/* The smaller poll() timeout of two, -1 being none. */
static int timeout_min(int a_ms, int b_ms) {
        return a_ms < 0 ? b_ms : b_ms < 0 || a_ms < b_ms ? a_ms : b_ms;
}

int run_reset(const struct agent_options *o) {
        struct agent_child child = {};
        int sfd = signal_fd_new(), sig = 0, status = -1;
        pid_t pid;

        if (sfd < 0)
                return 1;
        /* readahead-ctl says what it put back, on stderr as ours. */
        int r = ctl_spawn(o, "reset", NULL, -1, &pid);
        if (r < 0)
                agent_log(LOG_ERR, NULL, 0, "cannot run %s: %s", o->ctl_path, strerror(-r));
        else {
                child_start(&child, pid, now_ms(), CTL_TIMEOUT_MAX_SEC * 1000);
                /* Still answering SIGTERM, and stopping a reset that hangs. */
                while (!child_reap(&child, &status)) {
                        struct pollfd p = { .fd = sfd, .events = POLLIN };
                        if (poll(&p, 1, child_timeout_ms(&child, now_ms())) > 0 && (sig = signal_read(sfd)))
                                break;
                        if (child_enforce(&child, now_ms()))
                                agent_log(LOG_ERR, NULL, 0, "readahead-ctl reset still running after %u s: stopped",
                                          CTL_TIMEOUT_MAX_SEC);
                }
        }
        if (sig) {
                child_stop(&child);
                agent_log(LOG_INFO, NULL, 0, "%s: stopping, readahead-ctl reset not finished", strsignal(sig));
                close(sfd);
                return 0;
        }
        bool done = r == 0 && status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        agent_log(done ? LOG_INFO : LOG_ERR, NULL, 0, "readahead-ctl reset %s; waiting for SIGTERM",
                  done ? "done" : "failed");
        struct pollfd p = { .fd = sfd, .events = POLLIN };
        while (!sig && (poll(&p, 1, -1) >= 0 || errno == EINTR))
                sig = signal_read(sfd);
        close(sfd);
        return done ? 0 : 1;
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
                      int mfd, struct metrics_run *metrics, struct advise_run *advise) {
        uint64_t due_ms = now_ms() + (uint64_t) o->check_sec * 1000;
        for (;;) {
                struct pollfd fds[] = {
                        { .fd = sfd, .events = POLLIN },
                        { .fd = udev_monitor_get_fd(mon), .events = POLLIN },
                        { .fd = mfd, .events = POLLPRI },
                };
                uint64_t now = now_ms();
                int n = poll(fds, mfd >= 0 ? 3 : 2,
                             timeout_min(timeout_min(watch_poll_timeout_ms(now, due_ms),
                                                     metrics_timeout_ms(metrics, now)),
                                         advise_timeout_ms(advise, now)));
                if (n < 0 && errno != EINTR) {
                        agent_log(LOG_ERR, NULL, 0, "poll failed: %m");
                        return 1;
                }
                int sig = fds[0].revents & POLLIN ? signal_read(sfd) : 0;
                if (sig) {
                        agent_log(LOG_INFO, NULL, 0, "%s: stopping; read_ahead_kb values stay as set",
                                  strsignal(sig));
                        return 0;
                }
                /* After SIGCHLD, or when the child's time is up. */
                metrics_continue(o, metrics, now_ms());
                /* poll() reports these whatever was asked, and at once again and again
                 * until something changes: each is consumed here, or its descriptor is
                 * no longer polled (the cause of a loop at 88% of a CPU on a FIFO whose
                 * writer had gone, when only POLLPRI and POLLERR were looked at). */
                if (fds[1].revents & (POLLHUP | POLLNVAL)) {
                        agent_log(LOG_ERR, NULL, 0, "udev's event socket failed; stopping");
                        return 1;
                }
                if (mfd >= 0 && (fds[2].revents & (POLLHUP | POLLNVAL))) {
                        agent_log(LOG_WARNING, NULL, 0,
                                  "%s hung up; network mounts are decided by the periodic check only",
                                  ra_mountinfo_path());
                        mfd = -1; /* closed by run_watch() */
                        continue;
                }
                /* POLLERR: an overflow (ENOBUFS), which the next receive reports and clears. */
                if (fds[1].revents & (POLLIN | POLLERR)) {
                        struct udev_device *dev;
                        while ((dev = udev_monitor_receive_device(mon))) {
                                /* Anyone who can send to the socket can forge one: checked as the
                                 * udev helper's are. */
                                struct event_fields fields;
                                event_fields_from_device(dev, &fields);
                                handle_event(o, udev, dev, &fields, udev_device_get_action(dev));
                                udev_device_unref(dev);
                                advise->devices_changed = true;
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
                        o->quiet = true; /* every mount again, on any mount's change */
                        pass_all(o, udev, false, &mounts);
                        o->quiet = false;
                        advise->devices_changed = true;
                }
                /* --advise-sec: a sample when due; a window's advice in the file at once */
                if (advise_continue(o, udev, advise, now_ms()))
                        metrics_start(o, metrics, now_ms());
                if (now_ms() >= due_ms) {
                        struct pass_count checked = {};
                        o->recheck = o->quiet = true;
                        pass_all(o, udev, true, &checked);
                        o->recheck = o->quiet = false;
                        advise->devices_changed = true; /* what no event tells, as often as the check */
                        metrics_start(o, metrics, now_ms());
                        beat(o);
                        due_ms = now_ms() + (uint64_t) o->check_sec * 1000;
                }
        }
}

int run_watch(struct agent_options *o) {
        struct udev *udev = udev_new();
        struct udev_monitor *mon = NULL;
        int sfd = -1, mfd = -1, ret = 1;
        struct metrics_run metrics = { .file = { .dir_fd = -1, .fd = -1 } };
        struct advise_run advise = {};

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
        mfd = ra_mountinfo_open();
        if (mfd < 0)
                agent_log(LOG_WARNING, NULL, 0,
                          "cannot open %s: %s; network mounts are decided by the periodic check only",
                          ra_mountinfo_path(), ra_mountinfo_strerror(mfd));

        struct pass_count count = {};
        o->no_wait = true;
        beat(o);
        pass_all(o, udev, true, &count);
        metrics_start(o, &metrics, now_ms());
        beat(o);
        agent_log(LOG_INFO, NULL, 0,
                  "version %s, watching: %u disks and %u mounts at start, udev events, %s, a check every %u s",
                  RA_VERSION, count.disks, count.bdis, ra_mountinfo_path(), o->check_sec);

        advise_start(o, udev, &advise, now_ms());
        if (o->advise_sec > 0)
                agent_log(LOG_INFO, NULL, 0,
                          "advising every %u s: %zu disks and NFS mounts observed, read_ahead_kb never written",
                          o->advise_sec, advise.n);
        ret = watch_loop(o, udev, mon, sfd, mfd, &metrics, &advise);
out:
        advise_stop(&advise);
        metrics_stop(&metrics);
        if (mfd >= 0)
                close(mfd);
        if (sfd >= 0)
                close(sfd);
        udev_monitor_unref(mon);
        udev_unref(udev);
        return ret;
}
