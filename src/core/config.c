/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "size.h"
#include "text.h"

const char *const ra_config_dirs[] = {
        "/etc/readahead-agent",
        "/run/readahead-agent",
        RA_VENDOR_DIR,
        NULL,
};

#define DEFAULT_PROFILE "default"

/* ---- diagnostics ------------------------------------------------------ */

/* Appends one zeroed element; arrays grow in small steps because the agent
 * usually needs none at all. */
static void *append(void **array, size_t *n, size_t max, size_t elem_size) {
        if (*n >= max)
                return NULL;
        if (*n % 8 == 0) {
                void *a = realloc(*array, (*n + 8) * elem_size);
                if (!a)
                        return NULL;
                *array = a;
        }
        void *e = (char *) *array + (*n)++ * elem_size;
        memset(e, 0, elem_size);
        return e;
}

static void diag(struct ra_config *c, enum ra_diag_level level, const char *file, unsigned line,
                 const char *fmt, ...) {
        if (level == RA_DIAG_ERROR)
                c->n_errors++;
        struct ra_diag *d = append((void **) &c->diags, &c->n_diags, RA_DIAGS_MAX, sizeof(*d));
        va_list ap;

        if (!d)
                return;
        d->level = level;
        d->line = line;
        snprintf(d->file, sizeof(d->file), "%s", file);
        va_start(ap, fmt);
        vsnprintf(d->message, sizeof(d->message), fmt, ap);
        va_end(ap);
        ra_utf8_trim_cut(d->message); /* a quoted value may be cut mid-character */
}

static bool diag_exists(const struct ra_config *c, const char *file, unsigned line) {
        for (size_t i = 0; i < c->n_diags; i++)
                if (c->diags[i].line == line && strcmp(c->diags[i].file, file) == 0)
                        return true;
        return false;
}

/* ---- profiles --------------------------------------------------------- */

void ra_profile_init(struct ra_profile *p) {
        *p = (struct ra_profile){
                .default_kb = 512,
                .minimum_kb = 32,
                .maximum_kb = 128 * 1024,
                .memory_cap = true,
                .small_device_cap = true,
        };
}

void ra_profile_done(struct ra_profile *p) {
        free(p->rules);
        p->rules = NULL;
        p->n_rules = 0;
}

static int profile_copy(struct ra_profile *dst, const struct ra_profile *src) {
        *dst = *src;
        dst->rules = NULL;
        if (src->n_rules == 0)
                return 0;
        dst->rules = malloc(src->n_rules * sizeof(struct ra_rule));
        if (!dst->rules)
                return -ENOMEM;
        memcpy(dst->rules, src->rules, src->n_rules * sizeof(struct ra_rule));
        return 0;
}

/* What the INI callbacks need: where they are and what they fill. */
struct parse_ctx {
        struct ra_config *c;
        const char *path;
        unsigned line;
        unsigned errors;
        size_t first_new_rule;

        /* Exactly one of these is set. */
        struct ra_profile *profile;
        struct ra_agent_settings *agent; /* readahead.conf */

        /* Current section. */
        enum { SECTION_NONE, SECTION_UNKNOWN, SECTION_PROFILE, SECTION_AGENT, SECTION_RULE } section;
        size_t rule;
        unsigned limits_line; /* the last [Profile] Default=, Minimum= or Maximum= */
};

#define parse_error(ctx, ...)                                                                      \
        do {                                                                                       \
                (ctx)->errors++;                                                                   \
                diag((ctx)->c, RA_DIAG_ERROR, (ctx)->path, (ctx)->line, __VA_ARGS__);              \
        } while (0)
#define parse_warning(ctx, ...) diag((ctx)->c, RA_DIAG_WARNING, (ctx)->path, (ctx)->line, __VA_ARGS__)

static bool valid_name(const char *s, size_t max) {
        size_t n = 0;
        for (; s[n]; n++)
                if (!isalnum((unsigned char) s[n]) && !strchr("-_.", s[n]))
                        return false;
        return n > 0 && n < max;
}

static int rule_add(struct parse_ctx *ctx, const char *name) {
        struct ra_profile *p = ctx->profile;

        for (size_t i = 0; i < p->n_rules; i++)
                if (strcmp(p->rules[i].section, name) == 0) {
                        ctx->rule = i;
                        return 0;
                }

        if (p->n_rules >= RA_RULES_MAX) {
                parse_error(ctx, "too many rules (at most %d)", RA_RULES_MAX);
                return -E2BIG;
        }
        struct ra_rule *rules = realloc(p->rules, (p->n_rules + 1) * sizeof(struct ra_rule));
        if (!rules)
                return -ENOMEM;
        p->rules = rules;

        struct ra_rule *r = &rules[p->n_rules];
        *r = (struct ra_rule){ .kind = -1, .rotational = -1, .removable = -1, .line = ctx->line };
        snprintf(r->section, sizeof(r->section), "%s", name);
        snprintf(r->file, sizeof(r->file), "%s", ctx->path);
        ctx->rule = p->n_rules++;
        return 0;
}

/* Called by our line reader for every "[...]" line, so that empty or unknown
 * sections are reported too (inih only calls back for keys). */
static void on_section(struct parse_ctx *ctx, const char *section) {
        if (ctx->agent) {
                if (strcmp(section, "Agent") == 0) {
                        ctx->section = SECTION_AGENT;
                        return;
                }
        } else if (strcmp(section, "Profile") == 0) {
                ctx->section = SECTION_PROFILE;
                return;
        } else if (strncmp(section, "Rule ", 5) == 0) {
                const char *name = section + 5;
                while (*name == ' ')
                        name++;
                if (!valid_name(name, sizeof(((struct ra_rule *) 0)->section))) {
                        parse_error(ctx, "invalid rule name '%s' (letters, digits, '-', '_', '.')",
                                    name);
                        ctx->section = SECTION_UNKNOWN;
                        return;
                }
                ctx->section = rule_add(ctx, name) < 0 ? SECTION_UNKNOWN : SECTION_RULE;
                return;
        }
        parse_error(ctx, "unknown section [%s]%s", section,
                    ctx->agent ? " (expected [Agent])" : " (expected [Profile] or [Rule NAME])");
        ctx->section = SECTION_UNKNOWN;
}

static int parse_size_key(struct parse_ctx *ctx, const char *name, const char *value, uint64_t *ret) {
        int r = ra_parse_size_kb(value, ret);
        if (r == -ERANGE)
                parse_error(ctx, "%s=%s is larger than 1G", name, value);
        else if (r < 0)
                parse_error(ctx, "%s=%s is not a size (a whole number with K, M or G)", name, value);
        return r;
}

static int parse_bool_key(struct parse_ctx *ctx, const char *name, const char *value, bool *ret) {
        int r = ra_parse_bool(value, ret);
        if (r < 0)
                parse_error(ctx, "%s=%s is not a boolean (yes or no)", name, value);
        return r;
}

static int parse_tristate_key(struct parse_ctx *ctx, const char *name, const char *value, int *ret) {
        bool b;
        if (*value == 0) {
                *ret = -1;
                return 0;
        }
        if (parse_bool_key(ctx, name, value, &b) < 0)
                return -EINVAL;
        *ret = b;
        return 0;
}

static int parse_string_key(struct parse_ctx *ctx, const char *name, const char *value, char *dst,
                            size_t size) {
        if (strlen(value) >= size) {
                parse_error(ctx, "%s= is longer than %zu characters", name, size - 1);
                return -E2BIG;
        }
        strcpy(dst, value);
        return 0;
}

/* Parses a space-separated list of names into a bit mask. */
static int parse_mask_key(struct parse_ctx *ctx, const char *name, const char *value,
                          const char *(*to_string)(unsigned), unsigned max, unsigned *ret) {
        unsigned mask = 0;
        char buf[RA_MATCH_MAX], *save = NULL;

        if (parse_string_key(ctx, name, value, buf, sizeof(buf)) < 0)
                return -EINVAL;
        for (char *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
                unsigned i;
                for (i = 0; i < max; i++)
                        if (strcmp(w, to_string(i)) == 0)
                                break;
                if (i == max) {
                        parse_error(ctx, "%s=%s: unknown %s '%s'", name, value, name, w);
                        return -EINVAL;
                }
                mask |= 1u << i;
        }
        *ret = mask;
        return 0;
}

static const char *class_name(unsigned i) {
        return ra_class_to_string((enum ra_class) i);
}

static const char *transport_name(unsigned i) {
        return ra_transport_to_string((enum ra_transport) i);
}

static void rule_key(struct parse_ctx *ctx, struct ra_rule *r, const char *name, const char *value) {
        if (strcmp(name, "Size") == 0) {
                char err[128];
                if (strcmp(value, "keep") == 0) {
                        r->keep = true;
                        r->size = (struct ra_expr){};
                } else if (ra_expr_compile(value, &r->size, err, sizeof(err)) < 0 ||
                           ra_expr_check_constants(&r->size, err, sizeof(err)) < 0) {
                        /* Also what fails whatever the device: "1M/0" would make
                         * every device it matches fail at run time. */
                        parse_error(ctx, "Size=%s: %s", value, err);
                        return;
                } else
                        r->keep = false;
                r->has_size = true;
                snprintf(r->size_text, sizeof(r->size_text), "%s", value);
                snprintf(r->size_file, sizeof(r->size_file), "%s", ctx->path);
                r->size_line = ctx->line;
        } else if (strcmp(name, "Minimum") == 0) {
                if (parse_size_key(ctx, name, value, &r->min_kb) >= 0)
                        r->limits_line = ctx->line;
        } else if (strcmp(name, "Maximum") == 0) {
                if (parse_size_key(ctx, name, value, &r->max_kb) >= 0)
                        r->limits_line = ctx->line;
        } else if (strcmp(name, "Kind") == 0) {
                if (strcmp(value, "block") == 0)
                        r->kind = RA_KIND_BLOCK;
                else if (strcmp(value, "mount") == 0)
                        r->kind = RA_KIND_MOUNT;
                else if (*value == 0)
                        r->kind = -1;
                else
                        parse_error(ctx, "Kind=%s: expected block or mount", value);
        } else if (strcmp(name, "Class") == 0)
                (void) parse_mask_key(ctx, name, value, class_name, _RA_CLASS_MAX, &r->classes);
        else if (strcmp(name, "Transport") == 0)
                (void) parse_mask_key(ctx, name, value, transport_name, _RA_TRANSPORT_MAX,
                                      &r->transports);
        else if (strcmp(name, "Rotational") == 0)
                (void) parse_tristate_key(ctx, name, value, &r->rotational);
        else if (strcmp(name, "Removable") == 0)
                (void) parse_tristate_key(ctx, name, value, &r->removable);
        else if (strcmp(name, "Name") == 0)
                (void) parse_string_key(ctx, name, value, r->names, sizeof(r->names));
        else if (strcmp(name, "MountPoint") == 0)
                (void) parse_string_key(ctx, name, value, r->mount_points, sizeof(r->mount_points));
        else if (strcmp(name, "FsType") == 0)
                (void) parse_string_key(ctx, name, value, r->fstypes, sizeof(r->fstypes));
        else if (strcmp(name, "Server") == 0)
                (void) parse_string_key(ctx, name, value, r->servers, sizeof(r->servers));
        else if (strcmp(name, "NfsVersion") == 0)
                (void) parse_string_key(ctx, name, value, r->nfs_versions, sizeof(r->nfs_versions));
        else if (strcmp(name, "Property") == 0) {
                const char *eq = strchr(value, '=');
                if (*value == 0) { /* an empty assignment resets the list */
                        r->n_props = 0;
                        return;
                }
                if (!eq || eq == value) {
                        parse_error(ctx, "Property=%s: expected KEY=GLOB", value);
                        return;
                }
                if (r->n_props >= RA_RULE_PROPS_MAX) {
                        parse_error(ctx, "too many Property= matches (at most %d)",
                                    RA_RULE_PROPS_MAX);
                        return;
                }
                struct ra_rule_prop *rp = &r->props[r->n_props];
                size_t kl = (size_t) (eq - value);
                if (kl >= sizeof(rp->key) || strlen(eq + 1) >= sizeof(rp->glob)) {
                        parse_error(ctx, "Property=%s is too long", value);
                        return;
                }
                memcpy(rp->key, value, kl);
                rp->key[kl] = 0;
                strcpy(rp->glob, eq + 1);
                r->n_props++;
        } else
                parse_warning(ctx, "unknown key %s= in [Rule %s], ignoring", name, r->section);
}

static void profile_key(struct parse_ctx *ctx, struct ra_profile *p, const char *name,
                        const char *value) {
        if (strcmp(name, "Description") == 0)
                (void) parse_string_key(ctx, name, value, p->description, sizeof(p->description));
        else if (strcmp(name, "Default") == 0 || strcmp(name, "Minimum") == 0 ||
                 strcmp(name, "Maximum") == 0) {
                uint64_t *dst = name[0] == 'D' ? &p->default_kb
                                : name[1] == 'i' ? &p->minimum_kb
                                                 : &p->maximum_kb;
                if (parse_size_key(ctx, name, value, dst) >= 0)
                        ctx->limits_line = ctx->line;
        }
        else if (strcmp(name, "MemoryCap") == 0)
                (void) parse_bool_key(ctx, name, value, &p->memory_cap);
        else if (strcmp(name, "SmallDeviceCap") == 0)
                (void) parse_bool_key(ctx, name, value, &p->small_device_cap);
        else
                parse_warning(ctx, "unknown key %s= in [Profile], ignoring", name);
}

static int on_key(void *user, const char *section, const char *name, const char *value) {
        struct parse_ctx *ctx = user;
        (void) section; /* tracked by on_section(), which also sees empty sections */

        switch (ctx->section) {
        case SECTION_NONE:
                parse_error(ctx, "%s= outside of any section", name);
                break;
        case SECTION_UNKNOWN:
                break; /* reported once at the section header */
        case SECTION_PROFILE:
                profile_key(ctx, ctx->profile, name, value);
                break;
        case SECTION_RULE:
                rule_key(ctx, &ctx->profile->rules[ctx->rule], name, value);
                break;
        case SECTION_AGENT:
                if (strcmp(name, "Profile") == 0) {
                        if (!valid_name(value, RA_PROFILE_NAME_MAX))
                                parse_error(ctx, "Profile=%s is not a profile name", value);
                        else
                                strcpy(ctx->agent->profile, value);
                } else if (strcmp(name, "MountWaitSec") == 0) {
                        char *end;
                        unsigned long v = strtoul(value, &end, 10);
                        if (!isdigit((unsigned char) *value) || *end || v > RA_MOUNT_WAIT_SEC_MAX)
                                parse_error(ctx, "MountWaitSec=%s: expected seconds, 0 to %d", value,
                                            RA_MOUNT_WAIT_SEC_MAX);
                        else
                                ctx->agent->mount_wait_sec = (unsigned) v;
                } else
                        parse_warning(ctx, "unknown key %s= in [Agent], ignoring", name);
                break;
        }
        return 1; /* our own errors are counted in ctx; inih's return is syntax only */
}

/* Feeds inih one line at a time, counting lines and enforcing the limits. */
struct line_reader {
        struct parse_ctx *ctx;
        const char *buf;
        size_t len, pos;
};

static char *read_line(char *str, int num, void *stream) {
        struct line_reader *lr = stream;
        struct parse_ctx *ctx = lr->ctx;

        if (lr->pos >= lr->len)
                return NULL;

        const char *start = lr->buf + lr->pos;
        const char *nl = memchr(start, '\n', lr->len - lr->pos);
        size_t n = nl ? (size_t) (nl - start) : lr->len - lr->pos;
        lr->pos += n + (nl ? 1 : 0);
        ctx->line++;

        if (n > 0 && start[n - 1] == '\r') /* CRLF files */
                n--;
        if (ctx->line == 1 && n >= 3 && memcmp(start, "\xef\xbb\xbf", 3) == 0) {
                start += 3; /* UTF-8 byte order mark */
                n -= 3;
        }
        if (n + 1 > (size_t) num) {
                parse_error(ctx, "line longer than %d characters", num - 1);
                str[0] = 0;
                return str;
        }
        /* Leading blanks are dropped: indenting keys is fine, and inih's
         * continuation lines (an indented line extends the value above) are
         * not a syntax we offer. */
        while (n > 0 && (*start == ' ' || *start == '\t')) {
                start++;
                n--;
        }
        memcpy(str, start, n);
        str[n] = 0;

        /* Section headers go to on_section(); inih sees them too, harmlessly. */
        const char *s = str;
        if (*s == '[') {
                const char *end = strchr(s, ']');
                char name[RA_PATH_MAX];
                if (!end) {
                        parse_error(ctx, "section header without ']'");
                        ctx->section = SECTION_UNKNOWN;
                        str[0] = 0;
                        return str;
                }
                size_t nl2 = (size_t) (end - s - 1);
                if (nl2 >= sizeof(name))
                        nl2 = sizeof(name) - 1;
                memcpy(name, s + 1, nl2);
                name[nl2] = 0;
                on_section(ctx, name);
        }
        return str;
}

static bool is_profile_ok(struct parse_ctx *ctx, struct ra_profile *p) {
        struct ra_config *c = ctx->c;

        for (size_t i = ctx->first_new_rule; i < p->n_rules; i++)
                if (!p->rules[i].has_size) {
                        ctx->errors++;
                        diag(c, RA_DIAG_ERROR, ctx->path, p->rules[i].line,
                             "[Rule %s] has no Size=", p->rules[i].section);
                }
        /* This file broke the order: it set one of them, at limits_line. */
        if (p->minimum_kb > p->default_kb || p->default_kb > p->maximum_kb) {
                ctx->errors++;
                diag(c, RA_DIAG_ERROR, ctx->path, ctx->limits_line,
                     "Minimum=, Default= and Maximum= must be in ascending order");
        }
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct ra_rule *r = &p->rules[i];
                if (r->min_kb > 0 && r->max_kb > 0 && r->min_kb > r->max_kb) {
                        ctx->errors++;
                        diag(c, RA_DIAG_ERROR, ctx->path, r->limits_line ? r->limits_line : r->line,
                             "[Rule %s] Minimum= is above Maximum=", r->section);
                }
        }
        return ctx->errors == 0;
}

static int parse_buffer(struct parse_ctx *ctx, const char *buf, size_t len) {
        struct line_reader lr = { .ctx = ctx, .buf = buf, .len = len };
        const char *nul = memchr(buf, 0, len);

        if (nul) {
                unsigned line = 1;
                for (const char *q = buf; q < nul; q++)
                        line += *q == '\n';
                ctx->errors++;
                diag(ctx->c, RA_DIAG_ERROR, ctx->path, line, "binary data (NUL byte) in file");
                return -EINVAL;
        }

        int r = ini_parse_stream(read_line, &lr, on_key, ctx);
        if (r < 0)
                return -ENOMEM;
        if (r > 0 && !diag_exists(ctx->c, ctx->path, (unsigned) r)) {
                /* inih names only the first line it could not read. */
                ctx->errors++;
                diag(ctx->c, RA_DIAG_ERROR, ctx->path, (unsigned) r,
                     "syntax error (expected [Section] or Key=Value)");
        }
        return ctx->errors > 0 ? -EINVAL : 0;
}

int ra_profile_parse_buffer(struct ra_config *c, struct ra_profile *p, const char *path,
                            const char *buf, size_t len) {
        struct ra_profile tmp;
        int r;

        /* Work on a copy: a file with any error leaves p as it was. */
        r = profile_copy(&tmp, p);
        if (r < 0)
                return r;

        /* limits_line says where this file set a rule's limits. */
        for (size_t i = 0; i < tmp.n_rules; i++)
                tmp.rules[i].limits_line = 0;
        struct parse_ctx ctx = { .c = c, .path = path, .profile = &tmp, .first_new_rule = tmp.n_rules };
        r = parse_buffer(&ctx, buf, len);
        if (r == 0 && !is_profile_ok(&ctx, &tmp))
                r = -EINVAL;
        if (r < 0) {
                ra_profile_done(&tmp);
                return r;
        }
        ra_profile_done(p);
        *p = tmp;
        return 0;
}

static int agent_parse_buffer(struct ra_config *c, struct ra_agent_settings *settings,
                              const char *path, const char *buf, size_t len) {
        struct ra_agent_settings tmp = *settings;
        struct parse_ctx ctx = { .c = c, .path = path, .agent = &tmp };
        int r = parse_buffer(&ctx, buf, len);
        if (r < 0)
                return r;
        *settings = tmp;
        return 0;
}

/* ---- files and layering ----------------------------------------------- */

/* A path that does not fit is not looked at, rather than looked at cut short. */
static bool join(char *buf, size_t size, const char *root, const char *dir, const char *rel,
                 const char *suffix) {
        int n = snprintf(buf, size, "%s%s/%s%s", root, dir, rel, suffix);
        return n > 0 && (size_t) n < size;
}

static void note_file(struct ra_config *c, const char *path, enum ra_file_state state, bool dropin) {
        struct ra_config_file *f = append((void **) &c->files, &c->n_files, SIZE_MAX, sizeof(*f));
        struct stat st;

        if (!f)
                return;
        snprintf(f->path, sizeof(f->path), "%s", path);
        f->state = state;
        f->dropin = dropin;
        if (stat(path, &st) == 0) {
                f->dev = st.st_dev;
                f->ino = st.st_ino;
                f->size = (uint64_t) st.st_size;
                f->mtime_ns = (uint64_t) st.st_mtim.tv_sec * 1000000000u + (uint64_t) st.st_mtim.tv_nsec;
        }
}

/* FNV-1a, 64 bits: enough to tell one configuration from the next. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len) {
        const unsigned char *p = data;
        for (size_t i = 0; i < len; i++)
                h = (h ^ p[i]) * UINT64_C(0x100000001b3);
        return h;
}

uint64_t ra_config_fingerprint(const struct ra_config *c) {
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        for (size_t i = 0; i < c->n_files; i++) {
                const struct ra_config_file *f = &c->files[i];
                uint64_t nums[] = { f->state, f->dev, f->ino, f->size, f->mtime_ns };
                h = fnv1a(h, f->path, strlen(f->path) + 1);
                h = fnv1a(h, nums, sizeof(nums));
        }
        for (size_t i = 0; i < c->n_diags; i++) {
                const struct ra_diag *d = &c->diags[i];
                uint64_t nums[] = { d->level, d->line };
                h = fnv1a(h, d->file, strlen(d->file) + 1);
                h = fnv1a(h, d->message, strlen(d->message) + 1);
                h = fnv1a(h, nums, sizeof(nums));
        }
        return fnv1a(h, &c->n_errors, sizeof(c->n_errors));
}

/* A symlink to /dev/null or an empty file masks the files below it. */
static bool is_mask(const char *path, const struct stat *st) {
        char target[16];
        if (S_ISLNK(st->st_mode)) {
                ssize_t n = readlink(path, target, sizeof(target) - 1);
                if (n > 0) {
                        target[n] = 0;
                        if (strcmp(target, "/dev/null") == 0)
                                return true;
                }
        }
        struct stat tst;
        return stat(path, &tst) == 0 && S_ISREG(tst.st_mode) && tst.st_size == 0;
}

static int read_file(struct ra_config *c, const char *path, char **ret, size_t *ret_len) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        char *buf;
        ssize_t n;

        if (fd < 0) {
                diag(c, RA_DIAG_ERROR, path, 0, "cannot open: %s", strerror(errno));
                return -errno;
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                diag(c, RA_DIAG_ERROR, path, 0, "not a regular file");
                close(fd);
                return -EINVAL;
        }
        if (st.st_size > RA_FILE_SIZE_MAX) {
                /* Name the line the limit falls in: where to start cutting. */
                char *head = malloc(RA_FILE_SIZE_MAX);
                unsigned line = 1;
                ssize_t got = head ? read(fd, head, RA_FILE_SIZE_MAX) : -1;
                for (ssize_t i = 0; i < got; i++)
                        line += head[i] == '\n';
                free(head);
                diag(c, RA_DIAG_ERROR, path, line, "file larger than %d bytes (the limit is in this line)",
                     RA_FILE_SIZE_MAX);
                close(fd);
                return -EFBIG;
        }
        buf = malloc((size_t) st.st_size + 1);
        if (!buf) {
                close(fd);
                return -ENOMEM;
        }
        n = read(fd, buf, (size_t) st.st_size + 1);
        close(fd);
        if (n < 0 || n > st.st_size) {
                diag(c, RA_DIAG_ERROR, path, 0, "cannot read: %s", n < 0 ? strerror(errno) : "file grew");
                free(buf);
                return -EIO;
        }
        *ret = buf;
        *ret_len = (size_t) n;
        return 0;
}

typedef int (*parse_fn)(struct ra_config *c, void *target, const char *path, const char *buf,
                        size_t len);

static int parse_profile_cb(struct ra_config *c, void *target, const char *path, const char *buf,
                            size_t len) {
        return ra_profile_parse_buffer(c, target, path, buf, len);
}

static int parse_agent_cb(struct ra_config *c, void *target, const char *path, const char *buf,
                          size_t len) {
        return agent_parse_buffer(c, target, path, buf, len);
}

enum {
        LOAD_NONE,   /* no such file */
        LOAD_USED,   /* a file was parsed and used */
        LOAD_MASKED, /* the highest file is a mask */
};

/* Loads the highest file named rel (relative to each config dir) that parses. */
static int load_one(struct ra_config *c, const char *rel, bool dropin, parse_fn parse, void *target) {
        bool done = false;
        int result = LOAD_NONE;

        for (const char *const *dir = ra_config_dirs; *dir; dir++) {
                char path[RA_PATH_MAX];
                struct stat st;

                if (!join(path, sizeof(path), c->root, *dir, rel, "")) {
                        diag(c, RA_DIAG_ERROR, *dir, 0, "path of %.80s... longer than %d bytes, not read",
                             rel, RA_PATH_MAX - 1);
                        continue;
                }
                if (lstat(path, &st) < 0)
                        continue;
                if (done) {
                        note_file(c, path, RA_FILE_MASKED, dropin);
                        continue;
                }
                if (is_mask(path, &st)) {
                        note_file(c, path, RA_FILE_MASK, dropin);
                        done = true;
                        result = LOAD_MASKED;
                        continue;
                }

                char *buf = NULL;
                size_t len = 0;
                int r = read_file(c, path, &buf, &len);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0) {
                        r = parse(c, target, path, buf, len);
                        free(buf);
                        if (r == -ENOMEM)
                                return r;
                }
                if (r < 0) {
                        note_file(c, path, RA_FILE_BROKEN, dropin);
                        continue; /* the next one down stands in */
                }
                note_file(c, path, RA_FILE_USED, dropin);
                done = true;
                result = LOAD_USED;
        }
        return result;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Drop-ins rel.d/\*.conf from every directory, in basename order: all of
 * them, or the first RA_DROPINS_MAX by name and an error for the rest. */
static int load_dropins(struct ra_config *c, const char *rel, parse_fn parse, void *target) {
        char **names = NULL;
        size_t n = 0, allocated = 0;
        int r = 0;

        for (const char *const *dir = ra_config_dirs; *dir && r >= 0; dir++) {
                char path[RA_PATH_MAX];
                if (!join(path, sizeof(path), c->root, *dir, rel, ".d"))
                        continue; /* load_one() already said the root is too long */
                DIR *d = opendir(path);
                if (!d)
                        continue;
                for (struct dirent *de; (de = readdir(d));) {
                        size_t l = strlen(de->d_name);
                        bool seen = false;
                        if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".conf") != 0)
                                continue;
                        for (size_t i = 0; i < n && !seen; i++)
                                seen = strcmp(names[i], de->d_name) == 0;
                        if (seen)
                                continue;
                        if (n == allocated) {
                                size_t na = allocated ? allocated * 2 : 16;
                                char **nn = realloc(names, na * sizeof(char *));
                                if (!nn) {
                                        r = -ENOMEM;
                                        break;
                                }
                                names = nn;
                                allocated = na;
                        }
                        if (!(names[n] = strdup(de->d_name))) {
                                r = -ENOMEM;
                                break;
                        }
                        n++;
                }
                closedir(d);
        }
        if (r < 0)
                goto out;

        if (n > 0)
                qsort(names, n, sizeof(char *), cmp_str);
        if (n > RA_DROPINS_MAX) {
                char dir[RA_PATH_MAX];
                snprintf(dir, sizeof(dir), "%s.d", rel);
                diag(c, RA_DIAG_ERROR, dir, 0,
                     "%zu drop-ins, more than %d: from %.60s on, in name order, none is read", n,
                     RA_DROPINS_MAX, names[RA_DROPINS_MAX]);
        }
        for (size_t i = 0; i < n && i < RA_DROPINS_MAX && r >= 0; i++) {
                char drel[RA_PATH_MAX];
                if (snprintf(drel, sizeof(drel), "%s.d/%s", rel, names[i]) >= (int) sizeof(drel)) {
                        diag(c, RA_DIAG_ERROR, rel, 0, "drop-in name %.60s... too long, not read",
                             names[i]);
                        continue;
                }
                r = load_one(c, drel, true, parse, target);
        }
out:
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        return r < 0 ? r : 0;
}

int ra_config_load(const char *root, struct ra_config **ret) {
        struct ra_config *c = calloc(1, sizeof(*c));
        char rel[RA_PATH_MAX];
        int r;

        if (!c)
                return -ENOMEM;
        ra_profile_init(&c->profile);
        c->agent = (struct ra_agent_settings){
                .profile = DEFAULT_PROFILE,
                .mount_wait_sec = RA_MOUNT_WAIT_SEC_DEFAULT,
        };
        snprintf(c->profile.name, sizeof(c->profile.name), "%s", c->agent.profile);
        if (root && strlen(root) >= sizeof(c->root) / 2) {
                /* Configuration paths below it could not be read whole. */
                diag(c, RA_DIAG_ERROR, root, 0, "configuration root longer than %zu bytes: devices are left alone",
                     sizeof(c->root) / 2 - 1);
                *ret = c;
                return 0;
        }
        if (root && strcmp(root, "/") != 0)
                snprintf(c->root, sizeof(c->root), "%s", root);

        r = load_one(c, "readahead.conf", false, parse_agent_cb, &c->agent);
        if (r >= 0)
                r = load_dropins(c, "readahead.conf", parse_agent_cb, &c->agent);
        if (r < 0)
                goto fail;
        const char *profile_name = c->agent.profile;

        snprintf(c->profile.name, sizeof(c->profile.name), "%s", profile_name);
        snprintf(rel, sizeof(rel), "profiles/%s.conf", profile_name);
        r = load_one(c, rel, false, parse_profile_cb, &c->profile);
        if (r < 0)
                goto fail;
        if (r == LOAD_MASKED)
                /* Masking a profile switches it off, drop-ins and all. */
                diag(c, RA_DIAG_WARNING, rel, 0, "profile '%s' is masked: devices are left alone",
                     profile_name);
        else {
                if (r == LOAD_NONE)
                        diag(c, RA_DIAG_ERROR, rel, 0,
                             "profile '%s' not found: devices are left alone", profile_name);
                r = load_dropins(c, rel, parse_profile_cb, &c->profile);
                if (r < 0)
                        goto fail;
        }

        *ret = c;
        return 0;
fail:
        ra_config_free(c);
        return r;
}

struct ra_config *ra_config_free(struct ra_config *c) {
        if (c) {
                ra_profile_done(&c->profile);
                free(c->files);
                free(c->diags);
                free(c);
        }
        return NULL;
}
