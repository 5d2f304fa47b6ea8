/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "devices.h"
#include "each-device.h"
#include "output.h"

int for_each_device(struct ctl *ctl, const char *verb, int argc, char **argv,
                    enum write_result (*fn)(const struct ctl_device *d)) {
        enum write_result res = WRITE_OK;
        bool ok = true;

        if (argc == 0) {
                struct ctl_device *list = NULL;
                size_t n = 0;
                int r = devices_enumerate(ctl->udev, ctl->config, &list, &n);
                if (r < 0) {
                        ctl_error(verb, "%s: %s", DEVICES_LIST_FAILED, strerror(-r));
                        return EXIT_FAILURE;
                }
                for (size_t i = 0; i < n && res != WRITE_DENIED; i++) {
                        res = fn(&list[i]);
                        ok = ok && res == WRITE_OK;
                }
                devices_free(list, n);
                return ok ? EXIT_OK : EXIT_FAILURE;
        }

        for (int i = 0; i < argc && res != WRITE_DENIED; i++) {
                struct ctl_device d;
                int r = device_find(ctl->udev, ctl->config, argv[i], &d);
                if (r < 0) {
                        ctl_error(verb, "%s: %s", argv[i], device_find_strerror(r));
                        ok = false;
                        continue;
                }
                res = fn(&d);
                ok = ok && res == WRITE_OK;
                device_done(&d);
        }
        return ok ? EXIT_OK : EXIT_FAILURE;
}
