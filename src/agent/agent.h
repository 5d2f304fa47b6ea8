/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "advise-tune.h"
#include "config.h"
#include "facts.h"
#include "metrics-file.h"
#include "plan.h"
#include "watch.h"

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
        bool event_from_environment; /* run by udev: the device's properties are the environment */
        /* --watch (watch.c): its options, and how it runs the handlers. */
        bool watch, reset;
        unsigned check_sec;
        unsigned advise_sec; /* --advise-sec: advise's window, 0: off (advise-agent.c) */
        const char *metrics_file;
        const char *ctl_path; /* --ctl: the readahead-ctl that --watch and --reset run */
        const char *alive_file; /* --watch writes it, --check-alive reads it (alive.c) */
        bool check_alive;
        bool no_wait; /* a bdi not mounted yet: report, no waiter (the watcher sees the mount) */
        bool recheck; /* a periodic check: a write puts back a drifted value, log why */
        /* A pass over every device (a periodic check, a mount change): the
         * outcomes that write nothing go unlogged. */
        bool quiet;
};

/* Logs that the configuration could not be loaded at all (out of memory:
 * errors in files are its problems, below) and prints READAHEAD_RESULT. */
void config_load_failed(const char *name, int error);

/* Logs the configuration's problems, once per change of the configuration. */
void log_config_problems(const struct agent_options *o, const struct ra_config *c);

/* Whether carrying out the plan would change the kernel's value (now or,
 * deferred, at the next change event). */
bool plan_changes_value(const struct ra_plan *plan);

/* ra_plan_device() for facts, and the value the agent tuned where the rule
 * says Tune=yes (ra_tune_plan(): the state file is read for such a rule
 * only). Every event's plan comes from here. */
void agent_plan(const struct ra_config *config, const struct ra_facts *facts, struct ra_plan *ret);

/* Carries out agent_plan()'s action for facts (writes unless told not
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

/* Starts readahead-ctl [FORMAT] VERB [--root DIR] (READAHEAD_MOUNTINFO
 * inherited) with its stdout on stdout_fd (-1: ours), no signal blocked or
 * ignored. 0 or a negative errno; the caller reaps *ret_pid. */
int ctl_spawn(const struct agent_options *o, const char *verb, const char *format, int stdout_fd,
              pid_t *ret_pid);

/*
 * A child the agent waits for without blocking in waitpid(): it keeps
 * reading its signalfd (SIGCHLD says when to reap) and, under --watch,
 * udev's events. A child still running at term_at_ms gets SIGTERM, and
 * SIGKILL CHILD_KILL_GRACE_MS later.
 */
#define CHILD_KILL_GRACE_MS 1000
/* readahead-ctl's time: the check period, at most this. */
#define CTL_TIMEOUT_MAX_SEC 60

struct agent_child {
        pid_t pid; /* 0: none */
        uint64_t term_at_ms; /* SIGTERM then */
        uint64_t kill_at_ms; /* SIGKILL then, once SIGTERM was sent */
        bool terminated, killed; /* SIGTERM, SIGKILL sent */
};

void child_start(struct agent_child *c, pid_t pid, uint64_t now_ms, unsigned timeout_ms);
/* 1 once the child has exited (its wait status in *ret_status; -1 when it
 * was not ours to wait for), 0 while it runs or when there is none. */
int child_reap(struct agent_child *c, int *ret_status);
/* Until the next signal is due, for poll(); -1: nothing due. */
int child_timeout_ms(const struct agent_child *c, uint64_t now_ms);
/* Sends SIGTERM or SIGKILL when due; true when it just sent SIGTERM. */
bool child_enforce(struct agent_child *c, uint64_t now_ms);
/* SIGKILL now, and reap it if it dies at once: the agent is stopping. */
void child_stop(struct agent_child *c);

/* --watch's --metrics-file: readahead-ctl status --format=prometheus, then
 * the agent's last-success gauge, renamed over the file (metrics.c). */
struct metrics_run {
        struct agent_child child;
        struct metrics_file file; /* what the child writes */
};
/* Starts a run unless one still runs. */
void metrics_start(const struct agent_options *o, struct metrics_run *m, uint64_t now_ms);
/* After SIGCHLD or when a timeout came: reaps, kills, writes, logs. */
void metrics_continue(const struct agent_options *o, struct metrics_run *m, uint64_t now_ms);
/* Until metrics_continue() has something to do; -1: nothing. */
int metrics_timeout_ms(const struct metrics_run *m, uint64_t now_ms);
/* The agent is stopping: the child killed, the temporary removed. */
void metrics_stop(struct metrics_run *m);

/* --watch --advise-sec (advise-agent.c): advise's window over the whole
 * disks and NFS mounts there are at its start, a sample a second, the
 * advice logged and kept for status at its end; never a write. */
struct ra_advise_window;
struct advise_run {
        struct advise_clock clock; /* window_sec 0: off, nothing runs */
        struct ra_advise_window *win; /* NULL: the last start failed */
        struct ra_facts *facts;       /* the window's devices */
        size_t n;
        /* A device or mount may have changed since the facts were gathered:
         * set by the watch loop, read at the next window's start. */
        bool devices_changed;
        size_t signals; /* devices with a signal in the last window */
        bool failed, save_failed; /* logged once until it works again */
};
/* The first window, from a sample at now_ms; nothing when off. */
void advise_start(const struct agent_options *o, struct udev *udev, struct advise_run *a, uint64_t now_ms);
/* Until the next sample; -1 when off. */
int advise_timeout_ms(const struct advise_run *a, uint64_t now_ms);
/* A sample when due; at a window's end its advice, and a new window. True
 * when the metrics file should be written again. */
bool advise_continue(const struct agent_options *o, struct udev *udev, struct advise_run *a, uint64_t now_ms);
void advise_stop(struct advise_run *a);

/* Tune=yes (tune-agent.c): one pass a window over the devices advised. */
struct tune_pass {
        int lock; /* the states' file lock, -1: not taken */
        struct ra_tune_state *states;
        size_t n;
        bool loaded, changed;
        char boot_id[40];
};
void tune_pass_begin(struct tune_pass *t);
/* Whether f's deciding rule tunes it, with the rule's bounds and the key of
 * f's state: planned once a window, read by the two calls below. */
struct tune_target {
        bool tunes; /* its advice is then not "observing only" */
        struct ra_tune_bounds bounds;
        char key[RA_TUNE_KEY_MAX];
};
void tune_target_of(const struct agent_options *o, const struct ra_config *config, const struct ra_facts *f,
                    struct tune_target *target);
/* Whether the target's last step raised f to the value it holds
 * (ra_advise_limits.raised_here): the state, kept across restarts, says so
 * where the advice record of a restarted pod's /run no longer does. */
bool tune_raised_here(const struct ra_config *config, struct tune_pass *t, const struct tune_target *target,
                      const struct ra_facts *f);
/* The step the guard rails allow for the target by its window's advice v,
 * written and logged. */
void tune_device(const struct ra_config *config, struct tune_pass *t, const struct tune_target *target,
                 const struct ra_facts *f, const struct ra_advice *v, int64_t now);
/* The states saved when changed, the lock released. */
void tune_pass_end(const struct ra_config *config, struct tune_pass *t);

/* --watch: runs until SIGTERM or SIGINT; the exit code. */
int run_watch(struct agent_options *o);

/* --reset: readahead-ctl reset, then waits for SIGTERM or SIGINT (the
 * removal DaemonSet: a pod that exits would be started again). */
int run_reset(const struct agent_options *o);
