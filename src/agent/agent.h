/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <stdbool.h>

#include "config.h"
#include "facts.h"
#include "plan.h"

/*
 * readahead-agent's parts: agent.c reads the event and dispatches to the
 * block handler (block.c) or the bdi handler (bdi.c), which hands a mount
 * that is not there yet to the mount waiter (waiter.c), started by systemd
 * or by the detached spawner (spawn.c). carry-out.c carries a plan out and
 * logs it; config-problems.c logs the configuration's problems.
 */

struct agent_options {
        const char *root;
        const char *wait_bdi;
        bool dry_run;
        /* --watch (watch.c): its options, and how it runs the handlers. */
        bool watch, reset;
        unsigned check_sec;
        const char *metrics_file;
        const char *alive_file; /* --watch writes it, --check-alive reads it (alive.c) */
        bool check_alive;
        bool no_wait; /* a bdi not mounted yet: report, no waiter (the watcher sees the mount) */
        bool recheck; /* a periodic check: a write puts back a drifted value, log why */
};

/* Logs that the configuration could not be loaded at all (out of memory:
 * errors in files are its problems, below) and prints READAHEAD_RESULT. */
void config_load_failed(const char *name, int error);

/* Logs the configuration's problems, once per change of the configuration. */
void log_config_problems(const struct agent_options *o, const struct ra_config *c);

/* Whether carrying out the plan would change the kernel's value (now or,
 * deferred, at the next change event). */
bool plan_changes_value(const struct ra_plan *plan);

/* Carries out ra_plan_device()'s action for facts (writes unless told not
 * to), logs it and prints READAHEAD_*. */
void carry_out_plan(const struct agent_options *o, const struct ra_facts *facts, const struct ra_plan *plan);

/* Whether the event's DEVPATH, name and MAJOR:MINOR (block) agree with each
 * other as sysfs says: 0, or -EINVAL after logging the refusal. */
int event_check(struct udev_device *dev, bool block);

/* A whole disk's add or change event. */
int handle_block(const struct agent_options *o, struct udev_device *dev);

/* A bdi's add event: decides now, or hands the wait off the udev worker. */
int handle_bdi(const struct agent_options *o, struct udev *udev, const char *bdi);

/* --wait-bdi: waits for the bdi's mount, then decides; the exit code. */
int wait_bdi(const struct agent_options *o, const char *bdi);

/* Starts "readahead-agent --wait-bdi BDI" detached from the udev worker. */
int spawn_waiter(const struct agent_options *o, const char *bdi);

/* --watch: runs until SIGTERM or SIGINT; the exit code. */
int run_watch(struct agent_options *o);

/* --reset: readahead-ctl reset, then waits for SIGTERM or SIGINT (the
 * removal DaemonSet: a pod that exits would be started again). */
int run_reset(const struct agent_options *o);
