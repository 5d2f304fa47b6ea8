/* SPDX-License-Identifier: MIT */
/*
 * --watch --advise-sec=N: advise's window (src/advise/) run inside the
 * watch loop, observing only. A sample a second on the loop's poll()
 * timeout (advise_clock, watch-filter.c), none at all without the option;
 * at the end of each window every whole disk and NFS mount with a signal
 * gets its advice logged with its numbers, the advice is kept in the record
 * that `readahead-ctl status --format=prometheus` prints (advise-record.h,
 * the same gauges as `readahead-ctl advise`), and the metrics file is
 * written again. Devices whose rule says Tune=yes take the step the
 * advice allows (tune-agent.c); the others are only observed.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "advise-record.h"
#include "advise-sample.h"
#include "agent.h"
#include "gather.h"
#include "journal.h"
#include "mountinfo.h"
#include "size.h"
#include "text.h"

/* Gone with the facts' array, its strings freed. */
static void devices_free(struct ra_facts *f, size_t n) {
        for (size_t i = 0; i < n; i++)
                ra_facts_done(&f[i]);
        free(f);
}

/* Room for one more device in *f (capacity *cap). */
static int grow(struct ra_facts **f, size_t n, size_t *cap) {
        if (n < *cap)
                return 0;
        size_t c = *cap ? *cap * 2 : 16;
        struct ra_facts *g = realloc(*f, c * sizeof(*g));
        if (!g)
                return -ENOMEM;
        *f = g;
        *cap = c;
        return 0;
}

/* The whole disks and the NFS mounts (by their bdi) there are now: what
 * advise watches, as readahead-ctl advise does with no device named. */
static int devices_now(struct udev *udev, struct ra_facts **ret, size_t *ret_n) {
        struct udev_enumerate *e = udev_enumerate_new(udev);
        struct udev_list_entry *entry;
        struct ra_facts *f = NULL;
        size_t n = 0, cap = 0;
        int r;

        if (!e)
                return -ENOMEM;
        udev_enumerate_add_match_subsystem(e, "block");
        udev_enumerate_add_match_subsystem(e, "bdi");
        r = udev_enumerate_scan_devices(e);
        udev_list_entry_foreach(entry, r < 0 ? NULL : udev_enumerate_get_list_entry(e)) {
                struct udev_device *dev = udev_device_new_from_syspath(udev, udev_list_entry_get_name(entry));
                if (!dev)
                        continue; /* gone since the scan */
                const char *name = udev_device_get_sysname(dev);
                enum watch_event kind =
                        watch_classify(udev_device_get_subsystem(dev), udev_device_get_devtype(dev), "add");
                bool disk = kind == WATCH_BLOCK;
                bool bdi = kind == WATCH_BDI && name && strncmp(name, "0:", 2) == 0; /* NFS's are anonymous */
                if ((disk || bdi) && (r = grow(&f, n, &cap)) < 0) {
                        udev_device_unref(dev);
                        break;
                }
                if (disk || bdi) {
                        ra_facts_init(&f[n]);
                        int g = disk ? ra_gather_block(dev, &f[n]) : ra_gather_bdi(name, &f[n]);
                        /* a mount not there yet, a disk gone: not watched this window */
                        if (g >= 0 && (disk || ra_advise_is_nfs(&f[n])))
                                n++;
                        else
                                ra_facts_done(&f[n]);
                }
                udev_device_unref(dev);
        }
        udev_enumerate_unref(e);
        if (r < 0) {
                devices_free(f, n);
                return r;
        }
        *ret = f;
        *ret_n = n;
        return 0;
}

static void facts_done(struct advise_run *a) {
        devices_free(a->facts, a->n);
        a->facts = NULL;
        a->n = 0;
}

/* The last window's devices again, with only their read_ahead_kb read anew
 * (a write by hand or by Tune=yes sends no event). False when one cannot be
 * read: it is gone, and every device is gathered again. */
static bool facts_refresh(struct advise_run *a) {
        for (size_t i = 0; i < a->n; i++)
                if (!ra_gather_current_kb(&a->facts[i]))
                        return false;
        return true;
}

/* A new window. Over the same devices (no event, mount change or periodic
 * check since their facts were gathered: devices_changed), it goes on from
 * the last window's last sample with their read_ahead_kb read again.
 * Otherwise over the devices there are now, from a first sample: gathering
 * every device's facts, and the cgroup sampler's first look at every
 * process, were most of what observing cost on an idle machine (strace:
 * about 1,100 opens, path lookups and directory reads at a window's start
 * on 10 block devices, against 19 in a second's sample). */
static void window_start(struct advise_run *a, struct udev *udev, uint64_t now) {
        struct ra_advise_target *t = NULL;
        int r;

        advise_clock_start(&a->clock, now);
        if (a->win && !a->devices_changed && facts_refresh(a)) {
                ra_advise_window_restart(a->win);
                return;
        }
        a->win = ra_advise_window_free(a->win);
        facts_done(a);
        a->devices_changed = false;
        r = devices_now(udev, &a->facts, &a->n);
        if (r >= 0 && !(t = calloc(a->n ? a->n : 1, sizeof(*t))))
                r = -ENOMEM;
        for (size_t i = 0; r >= 0 && i < a->n; i++)
                t[i] = ra_advise_target_of(&a->facts[i]);
        if (r >= 0)
                r = ra_advise_window_new(t, a->n, ra_mountinfo_path(), &a->win);
        free(t);
        if (r >= 0)
                r = ra_advise_window_sample(a->win, (double) now / 1000);
        /* -errno of /proc/diskstats or vmstat: the next sample spans both */
        if (r < 0 && !a->win && !a->failed)
                agent_log(LOG_WARNING, NULL, 0, "advise: cannot start a window: %s; trying again in %u s",
                          strerror(-r), a->clock.window_sec);
        a->failed = r < 0 && !a->win;
}

/* One device's advice in the log: its numbers in the message, the advice in
 * fields. No signal is not logged. */
static void log_advice(const struct ra_facts *f, const struct ra_advice *v, bool tuning) {
        char device[RA_NAME_MAX + 24], advice[40], suggested[64], current[64], n1[RA_U64_TEXT], n2[RA_U64_TEXT];
        char a[24], b[24];

        ra_str_join(device, sizeof(device), "READAHEAD_DEVICE=", f->name, NULL);
        ra_str_join(advice, sizeof(advice), "READAHEAD_ADVICE=", ra_advice_to_string(v->kind), NULL);
        ra_str_join(suggested, sizeof(suggested), "READAHEAD_SUGGESTED_KB=", ra_u64_text(n1, v->suggested_kb),
                    NULL);
        ra_str_join(current, sizeof(current), "READAHEAD_KB=", ra_u64_text(n2, f->current_kb), NULL);
        const char *fields[] = { device, advice, suggested, current };
        agent_log(LOG_INFO, fields, 4,
                  "%s: advice %s, read_ahead_kb %s suggested (%s now, %s): %.1f MiB/s in %.0fK "
                  "requests, %.0f%% busy: %s",
                  f->name, ra_advice_to_string(v->kind), ra_format_size_kb(v->suggested_kb, a),
                  ra_format_size_kb(f->current_kb, b), tuning ? "Tune=yes" : "observing only",
                  v->read_bytes_per_s / (1 << 20), v->request_kb,
                  v->busy * 100, v->reason);
}

/* The window's advice: logged, and kept as the record status prints.
 * Returns how many devices had a signal. */
static size_t window_advise(const struct agent_options *o, struct advise_run *a) {
        struct ra_config *config = NULL;
        struct ra_advice_record *last = NULL, *records = NULL;
        const char **watched = NULL;
        size_t n_last = 0, n_records = 0;
        int64_t made = (int64_t) time(NULL);

        if (ra_config_load(o->root, &config) < 0 || !(records = calloc(a->n ? a->n : 1, sizeof(*records))) ||
            !(watched = calloc(a->n ? a->n : 1, sizeof(*watched)))) {
                agent_log(LOG_WARNING, NULL, 0, "advise: out of memory, this window's advice is lost");
                goto out;
        }
        if (ra_advice_records_load(config->root, &last, &n_last) < 0)
                n_last = 0;
        struct tune_pass tune;
        tune_pass_begin(&tune);
        for (size_t i = 0; i < a->n; i++) {
                const struct ra_facts *f = &a->facts[i];
                bool held = ra_advice_records_held(last, n_last, f);
                struct ra_advise_limits l = ra_advise_limits_of(f, &config->profile, held,
                                                                ra_advice_records_raised_from(last, n_last, f));
                struct tune_target target;
                tune_target_of(o, config, f, &target);
                l.raised_here = l.raised_here || tune_raised_here(config, &tune, &target, f);
                struct ra_advice v;
                ra_advise_evidence(ra_advise_window_evidence(a->win, i), &l, &v);
                tune_device(config, &tune, &target, f, &v, made);
                if (v.kind != RA_ADVICE_NO_SIGNAL)
                        log_advice(f, &v, target.tunes);
                n_records += ra_advice_record_of(f, &v, held, made, &records[n_records]);
                watched[i] = f->name;
        }
        tune_pass_end(config, &tune);
        /* A quiet window after a quiet one changes nothing: no write, and a
         * record a hand-run advise left (its hold) stays. */
        if (n_records == 0 && a->signals == 0)
                goto out;
        int r = ra_advice_records_save(config, records, n_records, watched, a->n);
        if (r < 0 && !a->save_failed)
                agent_log(LOG_WARNING, NULL, 0,
                          "advise: cannot keep the advice for status in %s/run/readahead-agent: %s",
                          config->root, strerror(-r));
        a->save_failed = r < 0;
out:
        free(last);
        free(records);
        free(watched);
        ra_config_free(config);
        return n_records;
}

void advise_start(const struct agent_options *o, struct udev *udev, struct advise_run *a, uint64_t now) {
        a->clock.window_sec = o->advise_sec;
        if (a->clock.window_sec == 0)
                return;
        /* A window over new devices allocates the cgroup sampler's tables
         * (several MiB, touched only as far as there are cgroups), and
         * frees the last one's. glibc raises its mmap threshold to a freed
         * mapping's size, so the next window's tables came from the heap,
         * zeroed by calloc: 8 MiB more resident for good (measured). A
         * fixed threshold keeps them mappings, untouched where unused and
         * returned at the end. */
        (void) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        window_start(a, udev, now);
}

int advise_timeout_ms(const struct advise_run *a, uint64_t now) {
        return advise_clock_timeout_ms(&a->clock, now);
}

bool advise_continue(const struct agent_options *o, struct udev *udev, struct advise_run *a, uint64_t now) {
        if (!advise_clock_due(&a->clock, now))
                return false;
        if (!a->win) {
                /* the last start failed: again once a window has passed */
                if (advise_clock_sampled(&a->clock, now))
                        window_start(a, udev, now);
                return false;
        }
        (void) ra_advise_window_sample(a->win, (double) now / 1000);
        if (!advise_clock_sampled(&a->clock, now))
                return false;
        size_t signals = window_advise(o, a);
        /* The file again when there is advice, or advice to take away. */
        bool write = signals > 0 || a->signals > 0;
        a->signals = signals;
        window_start(a, udev, now);
        return write;
}

void advise_stop(struct advise_run *a) {
        a->win = ra_advise_window_free(a->win);
        facts_done(a);
}
