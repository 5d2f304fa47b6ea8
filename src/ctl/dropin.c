/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "devices.h"
#include "dropin.h"
#include "fileio.h"
#include "mkdir-parents.h"
#include "output.h"
#include "size.h"
#include "write-read-ahead.h"
#include "write.h"

/* How much of an escaped id a rule's name keeps: "calibrate-ID_SERIAL-",
 * this, "-" and the hash fit a section name (63 bytes). */
#define DROPIN_VALUE_MAX 24

/* "VERB-KEY-VALUE": the key in the name, so that ID_WWN=X and ID_SERIAL=X
 * differ; the value escaped one to one (a byte outside [A-Za-z0-9.-] becomes
 * _XX, its hex), so that X/1 and X:1 differ. Long values keep their start
 * and get a hash of the whole; dropin_write() refuses a file that holds
 * another id, so even a hash collision overwrites nothing. */
static void rule_name(const char *verb, const struct ra_stable_id *id, char *buf, size_t size) {
        char clean[3 * RA_STABLE_ID_MAX + 1];
        size_t n = 0;
        uint32_t hash = 2166136261u; /* FNV-1a */

        for (const char *p = id->key; *p; p++)
                hash = (hash ^ (uint8_t) *p) * 16777619u;
        for (const char *p = id->value; *p && n + 4 <= sizeof(clean); p++) {
                hash = (hash ^ (uint8_t) *p) * 16777619u;
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                    *p == '-' || *p == '.')
                        clean[n++] = *p;
                else
                        n += (size_t) snprintf(clean + n, sizeof(clean) - n, "_%02x", (uint8_t) *p);
        }
        clean[n] = 0;
        if (n > DROPIN_VALUE_MAX)
                snprintf(buf, size, "%s-%s-%.*s-%08x", verb, id->key, DROPIN_VALUE_MAX, clean, hash);
        else
                snprintf(buf, size, "%s-%s-%s", verb, id->key, clean);
}

/* The id as a glob that matches only itself. */
static void glob_escape(const char *s, char *buf, size_t size) {
        size_t n = 0;
        for (; *s && n + 3 < size; s++) {
                if (strchr("*?[]\\", *s))
                        buf[n++] = '\\';
                buf[n++] = *s;
        }
        buf[n] = 0;
}

/* The lines of a rule that pick the device: a disk by a udev property, an
 * NFS mount by its server and mount point, each escaped as a glob that
 * matches only itself. */
static int rule_selector(const struct ra_stable_id *id, char *buf, size_t size) {
        char glob[2 * RA_STABLE_ID_MAX + 1], server[2 * RA_STABLE_ID_MAX + 1];
        int n;

        glob_escape(id->value, glob, sizeof(glob));
        if (id->server) {
                glob_escape(id->server, server, sizeof(server));
                n = snprintf(buf, size, "Kind=mount\nServer=%s\nMountPoint=%s\n", server, glob);
        } else
                n = snprintf(buf, size, "Kind=block\nProperty=%s=%s\n", id->key, glob);
        if (n < 0 || (size_t) n >= size)
                return -ENAMETOOLONG;
        return 0;
}

/* An earlier drop-in of this name for another device (a hash collision of
 * long ids, or a file edited by hand) is not overwritten: any line that
 * picks a device and is not one of `selector`'s says so. */
static int dropin_holds_other_rule(const char *verb, const char *path, const char *selector) {
        static const char *const picks[] = { "Property=", "MountPoint=", "Server=" };
        char line[256];
        bool other = false;
        FILE *f = fopen(path, "re");

        if (!f)
                return errno == ENOENT ? 0 : -errno;
        while (fgets(line, sizeof(line), f))
                for (size_t i = 0; i < sizeof(picks) / sizeof(picks[0]); i++)
                        if (strncmp(line, picks[i], strlen(picks[i])) == 0 && !strstr(selector, line))
                                other = true;
        fclose(f);
        if (other) {
                ctl_error(verb, "%s holds a rule for another device: not overwritten", path);
                return -EEXIST;
        }
        return 0;
}

/* Whether the rule rule_selector() writes for id picks device o as well:
 * a disk with the same property, whichever id ra_find_stable_id() would pick
 * for it; a mount with the same server and mount point. */
static bool rule_would_pick(const struct ra_stable_id *id, const struct ra_facts *o) {
        if (id->server)
                return o->kind == RA_KIND_MOUNT && o->mount_point && o->server &&
                       strcmp(o->mount_point, id->value) == 0 && strcmp(o->server, id->server) == 0;
        const char *v = ra_facts_get_prop(o, id->key);
        return o->kind == RA_KIND_BLOCK && v && strcmp(v, id->value) == 0;
}

int dropin_check_unique(struct ctl *ctl, const char *verb, const struct ra_facts *f, const struct ra_stable_id *id) {
        struct ctl_device *list = NULL;
        size_t n = 0;
        int r = devices_enumerate(ctl->udev, ctl->config, &list, &n);

        if (r < 0) {
                ctl_error(verb, "cannot list devices to check that %s=%s names %s alone: %s", id->key, id->value,
                          f->name, strerror(-r));
                return r;
        }
        for (size_t i = 0; i < n && r == 0; i++) {
                const struct ra_facts *o = &list[i].facts;
                if (strcmp(o->name, f->name) != 0 && rule_would_pick(id, o)) {
                        ctl_error(verb,
                                  "%s=%s names %s and %s too: a rule by it would decide both; nothing written, "
                                  "add a rule by hand",
                                  id->key, id->value, f->name, o->name);
                        r = -ENOTUNIQ;
                }
        }
        devices_free(list, n);
        return r;
}

const char *dropin_refused_class(const struct ra_facts *f) {
        if (f->class == RA_CLASS_MEMORY)
                return "a memory device (zram, brd, pmem): readahead would only copy RAM to RAM";
        if (f->class == RA_CLASS_OPTICAL)
                return "an optical drive: its firmware reads ahead on its own";
        return NULL;
}

int dropin_write(const struct ctl *ctl, const char *verb, unsigned order, const struct ra_stable_id *id,
                 const char *comment, uint64_t size_kb, char *section, size_t section_size, char *path,
                 size_t path_size) {
        const struct ra_config *cfg = ctl->config;
        char tmp[RA_PATH_MAX + 16], selector[5 * RA_STABLE_ID_MAX], d[24], when[32];
        time_t now = time(NULL);
        struct tm tm;
        int fd, r;

        if (cfg->root_refused) {
                ctl_error(verb, "the configuration root is refused: nothing written");
                return -ENAMETOOLONG;
        }
        rule_name(verb, id, section, section_size);
        int len = snprintf(path, path_size, "%s%s/profiles/%s.conf.d/%02u-%s.conf", cfg->root, ra_config_dirs[0],
                           cfg->agent.profile, order, section);
        if (len < 0 || (size_t) len >= path_size) {
                ctl_error(verb, "the drop-in's path below %s is too long: nothing written", cfg->root);
                return -ENAMETOOLONG;
        }
        r = rule_selector(id, selector, sizeof(selector));
        if (r < 0)
                return r; /* ra_find_stable_id() bounds the values: not reached */
        r = dropin_holds_other_rule(verb, path, selector);
        if (r < 0)
                return r;
        r = ra_mkdir_parents(path);
        if (r < 0) {
                ctl_error(verb, "cannot create the directory of %s: %s", path,
                          strerror(-r));
                return r;
        }
        snprintf(tmp, sizeof(tmp), "%s.%d~", path, (int) getpid());
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
                r = -errno;
                ctl_error(verb, "cannot create %s: %s", tmp, strerror(-r));
                return r;
        }
        FILE *out = fdopen(fd, "w");
        if (!out) {
                r = -errno;
                close(fd);
                unlink(tmp);
                return r;
        }
        gmtime_r(&now, &tm);
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
        /* Short lines: a profile line may hold at most 199 characters. */
        fprintf(out,
                "# Written by readahead-ctl %s on %s.\n"
                "%s"
                "# Remove this file and run `readahead-ctl apply` to go back to the profile.\n"
                "[Rule %s]\n"
                "%s"
                "Size=%s\n",
                verb, when, comment, section, selector, ra_format_size_kb(size_kb, d));
        r = fflush(out) == 0 && fsync(fd) == 0 ? 0 : -errno;
        if (fclose(out) != 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                ctl_error(verb, "cannot write %s: %s", path, strerror(-r));
                unlink(tmp);
        }
        return r;
}

static int apply_rule(struct ctl *ctl, const char *verb, const char *name, const char *path,
                      const char *section, uint64_t *ret_after_kb) {
        struct ra_config *cfg = NULL;
        struct ctl_device d;
        int r = ra_config_load(ctl->root, &cfg);

        if (r < 0) {
                ctl_error(verb, "cannot load configuration: %s", strerror(-r));
                return r;
        }
        for (size_t i = 0; i < cfg->n_diags; i++)
                if (strcmp(cfg->diags[i].file, path) == 0 && cfg->diags[i].level == RA_DIAG_ERROR) {
                        char where[RA_PATH_MAX + 16];
                        fprintf(stderr, "%s: error: %s\n", ra_diag_where(&cfg->diags[i], where, sizeof(where)),
                                cfg->diags[i].message);
                        r = -EINVAL;
                }
        if (r < 0) {
                unlink(path);
                ctl_error(verb, "removed %s again", path);
                ra_config_free(cfg);
                return r;
        }
        r = device_find(ctl->udev, cfg, name, &d);
        if (r < 0) {
                ctl_error(verb, "%s vanished: %s", name, strerror(-r));
                ra_config_free(cfg);
                return r;
        }
        const struct ra_rule *rule = d.plan.decision.rule;
        if (!rule || strcmp(rule->file, path) != 0 || strcmp(rule->section, section) != 0) {
                ctl_error(verb,
                          "wrote %s, but %s decides %s (it comes later, or the "
                          "profile is masked); see readahead-ctl explain %s",
                          path, d.plan.rule[0] ? d.plan.rule : "no rule", name, name);
                r = -EEXIST;
        } else
                r = apply_device(&d) == WRITE_OK ? 0 : -EIO;
        uint64_t now_kb;
        if (d.facts.attr_path && ra_read_u64_file(d.facts.attr_path, &now_kb) >= 0)
                *ret_after_kb = now_kb;
        device_done(&d);
        ra_config_free(cfg);
        return r;
}

int dropin_apply(struct ctl *ctl, const char *verb, const char *name, const char *path, const char *section,
                 bool line_on_stderr, uint64_t *ret_after_kb) {
        int saved = -1, r;

        /* Whatever the verb printed comes before apply's line and messages. */
        fflush(stdout);
        if (line_on_stderr) {
                saved = dup(STDOUT_FILENO);
                if (saved >= 0)
                        dup2(STDERR_FILENO, STDOUT_FILENO);
        }
        r = apply_rule(ctl, verb, name, path, section, ret_after_kb);
        fflush(stdout);
        if (saved >= 0) {
                dup2(saved, STDOUT_FILENO);
                close(saved);
        }
        return r;
}

void stable_id_missing(const char *verb, const struct ra_facts *f) {
        if (f->kind == RA_KIND_MOUNT)
                ctl_error(verb,
                          "%s: a rule names an NFS mount by its server and mount point, and %s's cannot stand "
                          "in a profile line unchanged (spaces, quotes, comment characters, over %d bytes); "
                          "run without --write and add a rule by hand",
                          f->name, f->mount_point ? f->mount_point : "its mount point", RA_STABLE_ID_MAX);
        else
                ctl_error(verb,
                          "%s has no stable id (ID_WWN, ID_SERIAL, MD_UUID or DM_UUID) that a rule could use "
                          "on every boot; run without --write and add a rule by hand",
                          f->name);
}
