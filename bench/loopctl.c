/* SPDX-License-Identifier: MIT */
/*
 * loopctl remove N...: deletes loop devices /dev/loopN (LOOP_CTL_REMOVE).
 *
 * losetup creates a missing /dev/loopN when asked to attach it, but nothing
 * in util-linux removes one again. bench/bench.sh creates its own devices at
 * indices that did not exist and removes exactly those at the end, so the
 * machine keeps the loop devices it had, and every "add storm" round really
 * adds a block device and a bdi.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
        int fd, i, ret = 0;

        if (argc < 3 || strcmp(argv[1], "remove") != 0) {
                fprintf(stderr, "usage: %s remove N...\n", argv[0]);
                return 2;
        }
        fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "/dev/loop-control: %s\n", strerror(errno));
                return 1;
        }
        for (i = 2; i < argc; i++) {
                char *end;
                long n = strtol(argv[i], &end, 10);

                if (*argv[i] == '\0' || *end != '\0' || n < 0) {
                        fprintf(stderr, "not a loop index: %s\n", argv[i]);
                        ret = 1;
                        continue;
                }
                /* EBUSY: still attached or open; the caller detaches first. */
                if (ioctl(fd, LOOP_CTL_REMOVE, n) < 0) {
                        fprintf(stderr, "remove loop%ld: %s\n", n, strerror(errno));
                        ret = 1;
                }
        }
        close(fd);
        return ret;
}
