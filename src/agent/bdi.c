/* SPDX-License-Identifier: MIT */
/* The bdi handler: a network, FUSE or btrfs bdi's add event. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "agent.h"
#include "gather.h"
#include "host.h"
#include "journal.h"
#include "mountinfo.h"

int handle_bdi(const struct agent_options *o, struct udev *udev, const char *bdi) {
        struct ra_config *config = NULL;
        struct ra_facts facts;
        int r;

        /* The order of every handler: configuration, facts, plan. A
         * configuration that cannot be loaded is reported after the facts,
         * so that a bdi that is not ours, or gone, says nothing. */
        int rc = ra_config_load(o->root, &config);
        ra_facts_init(&facts);
        r = ra_gather_named_bdi(udev, bdi, &facts);
        if (r == -EINVAL || r == -ENODEV)
                goto out; /* not a bdi of ours, or gone already */
        if (r < 0 && r != -ENOENT) {
                /* Waiting cannot help: mountinfo too large, out of memory. */
                agent_log(LOG_ERR, NULL, 0, "%s: cannot look up its mount in %s: %s", bdi,
                          ra_mountinfo_path(), ra_mountinfo_strerror(r));
                printf("READAHEAD_RESULT=failed\n");
                goto out;
        }
        bool mounted = r == 0;
        struct ra_plan plan;

        if (rc < 0) {
                config_load_failed(bdi, rc);
                goto out;
        }
        log_config_problems(o, config);

        if (mounted)
                agent_plan(config, &facts, &plan);
        /* FUSE: a value written before FUSE_INIT is lost, the waiter writes it. */
        if (mounted && !(facts.class == RA_CLASS_FUSE && plan_changes_value(&plan) && !o->no_wait))
                carry_out_plan(o, &facts, &plan);
        else if (config->agent.mount_wait_sec == 0 || o->no_wait)
                printf("READAHEAD_RESULT=no-mount\n");
        else if (systemd_running() && !o->dry_run)
                /* (The unit's waiter writes: a dry run waits in its own process.) */
                /* The rule turns this into SYSTEMD_WANTS=readahead-agent-bdi@NAME.service. */
                printf("READAHEAD_RESULT=pending\nREADAHEAD_WAIT=systemd\n");
        else {
                r = spawn_waiter(o, bdi);
                printf("READAHEAD_RESULT=%s\nREADAHEAD_WAIT=process\n", r < 0 ? "failed" : "pending");
        }
out:
        ra_config_free(config);
        ra_facts_done(&facts);
        return 0;
}
