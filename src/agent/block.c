/* SPDX-License-Identifier: MIT */
/* The block handler: a whole disk's add or change event, decided at once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "agent.h"
#include "gather.h"
#include "journal.h"
#include "text.h"

/*
 * A property of an event read from the environment: libudev took every one
 * from there (udev_device_new_from_environment), so getenv() gives the same
 * value without the 20 K instructions libudev spends on its first lookup.
 * DEVLINKS and the tags libudev rebuilds from sets, in its own order: those
 * stay libudev's.
 */
static const char *environment_property(struct udev_device *dev, const char *key) {
        if (strcmp(key, "DEVLINKS") == 0 || strcmp(key, "TAGS") == 0 || strcmp(key, "CURRENT_TAGS") == 0)
                return udev_device_get_property_value(dev, key);
        return getenv(key);
}

/* A disk never waits: its facts are all in sysfs and the event. */
int handle_block(const struct agent_options *o, struct udev_device *dev) {
        struct ra_config *config = NULL;
        struct ra_facts facts;
        const char **keys = NULL;
        size_t n_keys = 0;
        int r;

        /* The configuration first: its rules say which udev properties the
         * decision reads, and only those are looked up. If it cannot be
         * loaded (out of memory), the facts are still read with gather's own
         * keys, and a failure to read them is the one reported. */
        int rc = ra_config_load(o->root, &config);
        if (rc >= 0)
                rc = ra_profile_property_keys(&config->profile, &keys, &n_keys);
        ra_facts_init(&facts);
        r = ra_gather_block_keys(dev, o->event_from_environment ? environment_property : NULL, keys, n_keys,
                                 &facts);
        if (r < 0) {
                /* libudev has no name for a DEVPATH ending in "/..": never a NULL for %s. */
                const char *sysname = udev_device_get_sysname(dev);
                char name[RA_NAME_MAX + 24];
                ra_str_join(name, sizeof(name), "READAHEAD_DEVICE=", sysname ?: "", NULL);
                const char *fields[] = { name, "READAHEAD_RESULT=failed" };
                agent_log(LOG_WARNING, fields, 2, "%s: cannot read device facts: %s, ignoring",
                          sysname ? sysname : "a device with no name", strerror(-r));
                printf("READAHEAD_RESULT=failed\n");
                goto out;
        }
        if (rc < 0) {
                config_load_failed(facts.name, rc);
                goto out;
        }
        log_config_problems(o, config);
        struct ra_plan plan;
        agent_plan(config, &facts, &plan);
        carry_out_plan(o, &facts, &plan);
out:
        free(keys);
        ra_config_free(config);
        ra_facts_done(&facts);
        return 0;
}
