/* SPDX-License-Identifier: MIT */
/*
 * The floor for a helper that reads its event the way ours must: link
 * libudev and call udev_device_new_from_environment(), nothing else.
 * bench/bench.sh runs it beside trivial.c so that what libudev itself costs
 * is seen apart from what readahead-agent adds.
 *
 * With --mountinfo it also reads /proc/self/mountinfo once, whole, as any
 * helper must that finds a bdi's mount (ours, nfsrahead through libmount):
 * the mount storm's floor for that job, which grows with the mounts.
 */
#include <fcntl.h>
#include <libudev.h>
#include <string.h>
#include <unistd.h>

static void read_mountinfo(void)
{
        char buf[16384];
        int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return;
        while (read(fd, buf, sizeof(buf)) > 0)
                ;
        close(fd);
}

int main(int argc, char **argv)
{
        struct udev *udev = udev_new();
        struct udev_device *dev = udev_device_new_from_environment(udev);

        if (argc > 1 && strcmp(argv[1], "--mountinfo") == 0)
                read_mountinfo();
        udev_device_unref(dev);
        udev_unref(udev);
        return 0;
}
