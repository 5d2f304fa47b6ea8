/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "systemd.h"

#define DESTINATION "org.freedesktop.systemd1"
#define PATH "/org/freedesktop/systemd1"
#define MANAGER "org.freedesktop.systemd1.Manager"

void strv_free(char **l) {
        for (char **p = l; p && *p; p++)
                free(*p);
        free(l);
}

int systemd_failed_bdi_units(char ***ret) {
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL, *m = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char **names = NULL;
        size_t n = 0;
        int r;

        *ret = NULL;
        if (!systemd_running())
                return 0;
        r = sd_bus_open_system(&bus);
        if (r < 0)
                return r;

        r = sd_bus_message_new_method_call(bus, &m, DESTINATION, PATH, MANAGER, "ListUnitsByPatterns");
        if (r >= 0)
                r = sd_bus_message_append(m, "as", 1, "failed");
        if (r >= 0)
                r = sd_bus_message_append(m, "as", 1, RA_BDI_UNIT_PREFIX "*.service");
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(ssssssouso)");
        while (r >= 0) {
                const char *name;
                r = sd_bus_message_read(reply, "(ssssssouso)", &name, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL, NULL, NULL);
                if (r <= 0)
                        break;
                char **nl = realloc(names, (n + 2) * sizeof(char *));
                if (!nl || !(nl[n] = strdup(name))) {
                        names = nl ? nl : names;
                        r = -ENOMEM;
                        break;
                }
                names = nl;
                names[++n] = NULL;
        }

        sd_bus_error_free(&error);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        sd_bus_unref(bus);
        if (r < 0) {
                strv_free(names);
                return r;
        }
        *ret = names;
        return (int) n;
}

int systemd_reset_failed_bdi_unit(const char *bdi) {
        sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char unit[128];
        int r;

        if (!systemd_running())
                return 0;
        snprintf(unit, sizeof(unit), RA_BDI_UNIT_PREFIX "%s.service", bdi);
        r = sd_bus_open_system(&bus);
        if (r < 0)
                return r;
        r = sd_bus_call_method(bus, DESTINATION, PATH, MANAGER, "ResetFailedUnit", &error, NULL, "s", unit);
        /* A unit that never ran or did not fail is not an error here. */
        if (r < 0 && sd_bus_error_has_name(&error, "org.freedesktop.systemd1.NoSuchUnit"))
                r = 0;
        sd_bus_error_free(&error);
        sd_bus_unref(bus);
        return r;
}
