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

/* The fields of an event the identity check reads, as the sender wrote
 * them: udev's environment for the RUN helper, the properties libudev read
 * from the monitor's message (or from sysfs) for --watch. */
struct event_fields {
        const char *devpath, *major, *minor, *devname;
};
void event_fields_from_environment(struct event_fields *ret);
void event_fields_from_device(struct udev_device *dev, struct event_fields *ret);

/* Every event, whatever mode received it: the udev rule's guards (action,
 * subsystem, devtype), then the identity check (DEVPATH, name and
 * MAJOR:MINOR agree with each other as sysfs says; a refusal is logged as
 * "event refused: ..." and nothing is written), then the block or bdi
 * handler. action: the event's, or "add" for a device found by a pass.
 * 0, or -EINVAL for a refused event. */
int handle_event(const struct agent_options *o, struct udev *udev, struct udev_device *dev,
                 const struct event_fields *e, const char *action);

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
