/* SPDX-License-Identifier: MIT */
/*
 * fuse-null [-r KB] [-d MS] [-i MS] MOUNTPOINT...: mounts an empty FUSE filesystem (type
 * fuse.ranull) on each MOUNTPOINT, speaking the /dev/fuse protocol directly
 * (no libfuse needed), prints "ready" on stdout once every mount is up and
 * initialised, and serves until SIGTERM, SIGINT or SIGHUP; then it aborts
 * the connections and unmounts everything it mounted.
 *
 * Every FUSE mount has an anonymous device number and a bdi of the same name,
 * "0:N", created (bdi add uevent) while mount(2) runs, before the mount is in
 * /proc/self/mountinfo: exactly the NFS case the agent's bdi mode handles.
 * tests/real uses it for the agent's bdi path on a real udevd; bench/bench.sh
 * for a bdi add storm.
 *
 * -d MS: create each superblock (and so its bdi) with fsopen()/fsconfig(),
 * answer INIT, print "created MOUNTPOINT", and only MS milliseconds later
 * attach it with fsmount()/move_mount(): the mount shows up in mountinfo
 * that long after its bdi add event, as a slow NFS mount would.
 *
 * -i MS: answer INIT only MS milliseconds after mount(2) returned, as a
 * daemon that gets its /dev/fuse descriptor from fusermount does late.
 *
 * -r KB: max_readahead answered in FUSE_INIT. By default the kernel's offer
 * is echoed, as libfuse does. The kernel sets the bdi to
 * min(read_ahead_kb, max_readahead) when the answer arrives, so a daemon can
 * lower a value that was written before it answered INIT; this helper
 * answers INIT right after each mount(2) returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_SIZE (256 * 1024)

static volatile sig_atomic_t stop;
static unsigned delay_ms;
static unsigned init_delay_ms;
static uint32_t answer_readahead; /* 0: echo the kernel's offer */

static void on_signal(int sig) {
        (void) sig;
        stop = 1;
}

static int reply(int fd, uint64_t unique, int error, const void *arg, size_t len) {
        struct fuse_out_header h = {
                .len = (uint32_t) (sizeof(h) + (error ? 0 : len)),
                .error = error,
                .unique = unique,
        };
        char buf[sizeof(h) + 256];

        if (len > 256)
                return -EINVAL;
        memcpy(buf, &h, sizeof(h));
        if (!error && len)
                memcpy(buf + sizeof(h), arg, len);
        if (write(fd, buf, h.len) < 0)
                return -errno;
        return 0;
}

static void fill_root_attr(struct fuse_attr *a) {
        memset(a, 0, sizeof(*a));
        a->ino = FUSE_ROOT_ID;
        a->mode = S_IFDIR | 0755;
        a->nlink = 2;
        a->blksize = 4096;
}

/* Handles one request; returns 1 after INIT, 0 otherwise, -errno on error. */
static int serve_one(int fd, char *buf) {
        ssize_t n = read(fd, buf, BUF_SIZE);
        if (n < 0)
                return errno == EINTR || errno == EAGAIN || errno == ENOENT ? 0 : -errno;
        if ((size_t) n < sizeof(struct fuse_in_header))
                return -EIO;

        const struct fuse_in_header *in = (const void *) buf;
        const void *arg = buf + sizeof(*in);

        switch (in->opcode) {
        case FUSE_INIT: {
                const struct fuse_init_in *ii = arg;
                struct fuse_init_out o = {
                        .major = FUSE_KERNEL_VERSION,
                        .minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor
                                                                       : FUSE_KERNEL_MINOR_VERSION,
                        .max_readahead = answer_readahead ? answer_readahead : ii->max_readahead,
                        .max_background = 16,
                        .congestion_threshold = 12,
                        .max_write = 4096,
                        .time_gran = 1,
                };
                int r = reply(fd, in->unique, 0, &o, sizeof(o));
                return r < 0 ? r : 1;
        }
        case FUSE_GETATTR: {
                struct fuse_attr_out o = { .attr_valid = 1 };
                if (in->nodeid != FUSE_ROOT_ID)
                        return reply(fd, in->unique, -ENOENT, NULL, 0);
                fill_root_attr(&o.attr);
                return reply(fd, in->unique, 0, &o, sizeof(o));
        }
        case FUSE_STATFS: {
                struct fuse_statfs_out o = { .st = { .bsize = 4096, .frsize = 4096, .namelen = 255 } };
                return reply(fd, in->unique, 0, &o, sizeof(o));
        }
        case FUSE_OPENDIR: {
                struct fuse_open_out o = { 0 };
                return reply(fd, in->unique, 0, &o, sizeof(o));
        }
        case FUSE_READDIR:
        case FUSE_RELEASEDIR:
        case FUSE_ACCESS:
        case FUSE_FLUSH:
                return reply(fd, in->unique, 0, NULL, 0);
        case FUSE_LOOKUP:
                return reply(fd, in->unique, -ENOENT, NULL, 0);
        case FUSE_FORGET:
        case FUSE_BATCH_FORGET:
        case FUSE_INTERRUPT:
                return 0; /* no reply */
        case FUSE_DESTROY:
                return reply(fd, in->unique, 0, NULL, 0);
        default:
                return reply(fd, in->unique, -ENOSYS, NULL, 0);
        }
}

/* Serves requests on fd until INIT is answered; 0 or -errno. */
static int answer_init(int fd, char *buf) {
        int r;

        do
                r = serve_one(fd, buf);
        while (r == 0 && !stop);
        return r < 0 ? r : 0;
}

/* The new mount API: the superblock exists delay_ms before the mount does. */
static int mount_delayed(const char *mp, int fd, char *buf) {
        char fdstr[16];
        int fsfd, mfd, r;

        fsfd = fsopen("fuse", FSOPEN_CLOEXEC);
        if (fsfd < 0)
                return -errno;
        snprintf(fdstr, sizeof(fdstr), "%d", fd);
        if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", "ranull", 0) < 0 ||
            fsconfig(fsfd, FSCONFIG_SET_STRING, "subtype", "ranull", 0) < 0 ||
            fsconfig(fsfd, FSCONFIG_SET_STRING, "fd", fdstr, 0) < 0 ||
            fsconfig(fsfd, FSCONFIG_SET_STRING, "rootmode", "40000", 0) < 0 ||
            fsconfig(fsfd, FSCONFIG_SET_STRING, "user_id", "0", 0) < 0 ||
            fsconfig(fsfd, FSCONFIG_SET_STRING, "group_id", "0", 0) < 0 ||
            fsconfig(fsfd, FSCONFIG_SET_FLAG, "allow_other", NULL, 0) < 0 ||
            fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
                r = -errno;
                close(fsfd);
                return r;
        }
        r = answer_init(fd, buf);
        if (r < 0) {
                close(fsfd);
                return r;
        }
        printf("created %s\n", mp);
        fflush(stdout);
        usleep(delay_ms * 1000);
        mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
        r = mfd < 0 ? -errno : 0;
        if (mfd >= 0 && move_mount(mfd, "", AT_FDCWD, mp, MOVE_MOUNT_F_EMPTY_PATH) < 0)
                r = -errno;
        if (mfd >= 0)
                close(mfd);
        close(fsfd);
        return r;
}

int main(int argc, char **argv) {
        int first = 1, n, i, mounted = 0, ret = 0;
        int *fds;
        char *buf;
        struct pollfd *pfd;
        struct sigaction sa = { .sa_handler = on_signal };

        for (int c; (c = getopt(argc, argv, "+r:d:i:")) >= 0;)
                switch (c) {
                case 'r':
                        answer_readahead = (uint32_t) strtoul(optarg, NULL, 10) * 1024;
                        break;
                case 'i':
                        init_delay_ms = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'd':
                        delay_ms = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                default:
                        return 2;
                }
        first = optind;
        n = argc - first;
        if (n < 1) {
                fprintf(stderr, "usage: %s [-r KB] [-d MS] [-i MS] MOUNTPOINT...\n", argv[0]);
                return 2;
        }
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        fds = calloc((size_t) n, sizeof(*fds));
        pfd = calloc((size_t) n, sizeof(*pfd));
        buf = malloc(BUF_SIZE);
        if (!fds || !pfd || !buf)
                return 1;
        for (i = 0; i < n; i++)
                fds[i] = -1;

        for (i = 0; i < n && !stop; i++) {
                const char *mp = argv[first + i];
                char opts[128];
                int r;

                fds[i] = open("/dev/fuse", O_RDWR | O_CLOEXEC);
                if (fds[i] < 0) {
                        fprintf(stderr, "fuse-null: /dev/fuse: %s\n", strerror(errno));
                        ret = 1;
                        goto out;
                }
                if (delay_ms > 0) {
                        r = mount_delayed(mp, fds[i], buf);
                        if (r < 0) {
                                fprintf(stderr, "fuse-null: mount %s: %s\n", mp, strerror(-r));
                                close(fds[i]);
                                fds[i] = -1;
                                ret = 1;
                                goto out;
                        }
                        mounted++;
                        continue;
                }
                snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
                         fds[i]);
                if (mount("ranull", mp, "fuse.ranull", MS_NOSUID | MS_NODEV, opts) < 0) {
                        fprintf(stderr, "fuse-null: mount %s: %s\n", mp, strerror(errno));
                        close(fds[i]);
                        fds[i] = -1;
                        ret = 1;
                        goto out;
                }
                mounted++;
                /* The first request is always INIT. */
                usleep(init_delay_ms * 1000);
                r = answer_init(fds[i], buf);
                if (r < 0) {
                        fprintf(stderr, "fuse-null: INIT on %s: %s\n", mp, strerror(-r));
                        ret = 1;
                        goto out;
                }
        }
        if (stop)
                goto out;
        printf("ready\n");
        fflush(stdout);

        for (i = 0; i < n; i++)
                pfd[i] = (struct pollfd) { .fd = fds[i], .events = POLLIN };
        while (!stop) {
                if (poll(pfd, (nfds_t) n, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                for (i = 0; i < n; i++)
                        if (pfd[i].revents & POLLIN)
                                (void) serve_one(pfd[i].fd, buf);
                        else if (pfd[i].revents & (POLLERR | POLLHUP))
                                pfd[i].fd = -1; /* unmounted under us */
        }
out:
        /* Closing the device aborts the connection, so umount cannot wait on us. */
        for (int j = 0; j < mounted; j++) {
                if (fds[j] >= 0)
                        close(fds[j]);
                if (umount2(argv[first + j], MNT_DETACH) < 0 && errno != EINVAL)
                        fprintf(stderr, "fuse-null: umount %s: %s\n", argv[first + j], strerror(errno));
        }
        free(fds);
        free(pfd);
        free(buf);
        return ret;
}
