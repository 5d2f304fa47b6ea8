/* SPDX-License-Identifier: MIT */
/*
 * The floor for a helper that reads its event the way ours must: link
 * libudev and call udev_device_new_from_environment(), nothing else.
 * bench/bench.sh runs it beside trivial.c so that what libudev itself costs
 * is seen apart from what readahead-agent adds.
 */
#include <libudev.h>

int main(void)
{
        struct udev *udev = udev_new();
        struct udev_device *dev = udev_device_new_from_environment(udev);

        udev_device_unref(dev);
        udev_unref(udev);
        return 0;
}
