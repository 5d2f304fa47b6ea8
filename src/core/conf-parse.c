/* SPDX-License-Identifier: MIT */
/*
 * What one configuration file says: the line reader below splits it into
 * section headers and Key=Value lines, and one table (keys[] below) says
 * which keys each section has and how to read them. Which files are read is
 * conf-files.c's business.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"
#include "size.h"
#include "text.h"

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

/* ---- parse state ------------------------------------------------------ */

enum section {
        SECTION_NONE,    /* before the first header */
        SECTION_UNKNOWN, /* a bad header: its keys are skipped, it was reported once */
        SECTION_AGENT,   /* [Agent] in readahead.conf */
        SECTION_PROFILE, /* [Profile] */
        SECTION_RULE,    /* [Rule NAME] */
};

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
        enum section section;
        size_t rule;
        unsigned limits_line; /* the last [Profile] Default=, Minimum= or Maximum= */
        /* A limit that could not be read: its order is not checked, which
         * would compare the value before it. */
        bool profile_limit_failed;
        bool rule_limit_failed[RA_RULES_MAX];
        /* A rule with an error in this file: its sections here are dropped. */
        bool rule_dropped[RA_RULES_MAX];
};

/*
 * Two kinds of error. One in a rule's section (an unknown key, a value that
 * cannot be read, no Size=, Minimum= above Maximum=) drops that rule's
 * sections of this file, and the rest of the file applies: a rule is whole or
 * it is not there. Any other (the file's syntax, a section header, [Profile],
 * [Agent]) drops the whole file, and the next file of its name stands in:
 * [Profile]'s Default= and Minimum= reach every rule's Size=, and [Agent]
 * picks the profile.
 */
#define file_error(ctx, ...)                                                                       \
        do {                                                                                       \
                (ctx)->errors++;                                                                   \
                ra_config_diag((ctx)->c, RA_DIAG_ERROR, (ctx)->path, (ctx)->line, __VA_ARGS__);    \
        } while (0)

/* Rule i is dropped, for msg at line; the message says what that leaves. */
static void rule_error(struct parse_ctx *ctx, size_t i, unsigned line, const char *msg) {
        ctx->rule_dropped[i] = true;
        ra_config_diag(ctx->c, RA_DIAG_ERROR, ctx->path, line, "[Rule %s] %s: %s",
                       ctx->profile->rules[i].section,
                       i < ctx->first_new_rule ? "unchanged by this file" : "dropped", msg);
}

/* An error in a key or its value: the rule's, in a rule, else the file's. */
static void parse_error(struct parse_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void parse_error(struct parse_ctx *ctx, const char *fmt, ...) {
        char msg[sizeof(((struct ra_diag *) 0)->message)];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (ctx->section == SECTION_RULE)
                rule_error(ctx, ctx->rule, ctx->line, msg);
        else
                file_error(ctx, "%s", msg);
}

/* ---- section headers -------------------------------------------------- */

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
                file_error(ctx, "too many rules (at most %d)", RA_RULES_MAX);
                return -E2BIG;
        }
        struct ra_rule *rules = realloc(p->rules, (p->n_rules + 1) * sizeof(struct ra_rule));
        if (!rules)
                return -ENOMEM;
        p->rules = rules;

        struct ra_rule *r = &rules[p->n_rules];
        *r = (struct ra_rule){ .kind = -1, .rotational = -1, .removable = -1, .virtual_disk = -1, .line = ctx->line };
        ra_str_join(r->section, sizeof(r->section), name, NULL);
        ra_str_join(r->file, sizeof(r->file), ctx->path, NULL);
        ctx->rule = p->n_rules++;
        return 0;
}

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
                        file_error(ctx, "invalid rule name '%s' (letters, digits, '-', '_', '.')", name);
                        ctx->section = SECTION_UNKNOWN;
                        return;
                }
                ctx->section = rule_add(ctx, name) < 0 ? SECTION_UNKNOWN : SECTION_RULE;
                return;
        }
        file_error(ctx, "unknown section [%s]%s", section,
                    ctx->agent ? " (expected [Agent])" : " (expected [Profile] or [Rule NAME])");
        ctx->section = SECTION_UNKNOWN;
}

/*
 * The one place that says what a section header is: a line that starts with
 * '[', named up to the first ']'. Returns false for any other line.
 */
static bool section_header(struct parse_ctx *ctx, char *line) {
        if (line[0] != '[')
                return false;
        char *end = strchr(line, ']');
        if (!end) {
                file_error(ctx, "section header without ']'");
                ctx->section = SECTION_UNKNOWN;
        } else {
                *end = 0;
                on_section(ctx, line + 1);
        }
        return true;
}

/* ---- keys ------------------------------------------------------------- */

struct key;
/* Reads value into field (inside the section's struct); reports its own
 * errors with file:line and returns < 0 on them. */
typedef int (*key_parse_fn)(struct parse_ctx *ctx, const struct key *k, const char *value, void *field);

struct key {
        enum section section;
        const char *name;
        key_parse_fn parse;
        size_t offset, size; /* the field in ra_agent_settings, ra_profile or ra_rule */
        unsigned max;        /* the largest number, or how many names a mask knows */
        const char *(*name_of)(unsigned); /* masks: the name of each bit */
        bool limit;          /* sets a limit: its line is where the limits were last set */
};

static int key_size(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        assert(k->size == sizeof(uint64_t));
        int r = ra_parse_size_kb(value, field);
        if (r == -ERANGE)
                parse_error(ctx, "%s=%s is larger than 1G", k->name, value);
        else if (r < 0)
                parse_error(ctx, "%s=%s is not a size (a whole number with K, M or G)", k->name, value);
        return r;
}

static int bool_value(struct parse_ctx *ctx, const char *name, const char *value, bool *ret) {
        int r = ra_parse_bool(value, ret);
        if (r < 0)
                parse_error(ctx, "%s=%s is not a boolean (yes or no)", name, value);
        return r;
}

static int key_bool(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        assert(k->size == sizeof(bool));
        return bool_value(ctx, k->name, value, field);
}

/* A boolean, or empty for "either" (-1). */
static int key_tristate(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        int *ret = field;
        bool b;

        assert(k->size == sizeof(int));
        if (*value == 0) {
                *ret = -1;
                return 0;
        }
        if (bool_value(ctx, k->name, value, &b) < 0)
                return -EINVAL;
        *ret = b;
        return 0;
}

static int copy_value(struct parse_ctx *ctx, const char *name, const char *value, char *dst, size_t size) {
        if (strlen(value) >= size) {
                parse_error(ctx, "%s= is longer than %zu characters", name, size - 1);
                return -E2BIG;
        }
        strcpy(dst, value);
        return 0;
}

static int key_string(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        return copy_value(ctx, k->name, value, field, k->size);
}

/* A space-separated list of names, as a bit mask. */
static int key_mask(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        unsigned mask = 0;
        char buf[RA_MATCH_MAX], *save = NULL;

        assert(k->size == sizeof(unsigned) && k->max <= 32);
        if (copy_value(ctx, k->name, value, buf, sizeof(buf)) < 0)
                return -E2BIG;
        for (char *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
                unsigned i;
                for (i = 0; i < k->max; i++)
                        if (strcmp(w, k->name_of(i)) == 0)
                                break;
                if (i == k->max) {
                        parse_error(ctx, "%s=%s: unknown %s '%s'", k->name, value, k->name, w);
                        return -EINVAL;
                }
                mask |= 1u << i;
        }
        *(unsigned *) field = mask;
        return 0;
}

static const char *class_name(unsigned i) {
        return ra_class_to_string((enum ra_class) i);
}

static const char *transport_name(unsigned i) {
        return ra_transport_to_string((enum ra_transport) i);
}

static int key_kind(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        int *kind = field;

        (void) k; /* only the assertion reads it */
        assert(k->size == sizeof(int));
        if (*value == 0) {
                *kind = -1;
                return 0;
        }
        int r = ra_kind_from_string(value);
        if (r < 0) {
                parse_error(ctx, "Kind=%s: expected %s or %s", value, ra_kind_to_string(RA_KIND_BLOCK),
                            ra_kind_to_string(RA_KIND_MOUNT));
                return -EINVAL;
        }
        *kind = r;
        return 0;
}

/* Size=: "keep" or an expression; field is the whole rule. */
static int key_rule_size(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        struct ra_rule *r = field;
        char err[128];

        (void) k;
        if (strcmp(value, "keep") == 0) {
                r->keep = true;
                r->size = (struct ra_expr){};
        } else if (ra_expr_compile(value, &r->size, err, sizeof(err)) < 0 ||
                   ra_expr_check_constants(&r->size, err, sizeof(err)) < 0) {
                /* Also what fails whatever the device: "1M/0" would make
                 * every device it matches fail at run time. */
                parse_error(ctx, "Size=%s: %s", value, err);
                r->has_size = true; /* not also "no Size=": the rule is dropped anyway */
                return -EINVAL;
        } else
                r->keep = false;
        r->has_size = true;
        ra_str_join(r->size_text, sizeof(r->size_text), value, NULL);
        ra_str_join(r->size_file, sizeof(r->size_file), ctx->path, NULL);
        r->size_line = ctx->line;
        return 0;
}

/* Property=KEY=GLOB adds a match, empty resets the list; field is the whole rule. */
static int key_rule_property(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        struct ra_rule *r = field;
        const char *eq = strchr(value, '=');

        (void) k;
        if (*value == 0) {
                r->n_props = 0;
                return 0;
        }
        if (!eq || eq == value) {
                parse_error(ctx, "Property=%s: expected KEY=GLOB", value);
                return -EINVAL;
        }
        if (r->n_props >= RA_RULE_PROPS_MAX) {
                parse_error(ctx, "too many Property= matches (at most %d)", RA_RULE_PROPS_MAX);
                return -E2BIG;
        }
        struct ra_rule_prop *rp = &r->props[r->n_props];
        size_t kl = (size_t) (eq - value);
        if (kl >= sizeof(rp->key) || strlen(eq + 1) >= sizeof(rp->glob)) {
                parse_error(ctx, "Property=%s is too long", value);
                return -E2BIG;
        }
        memcpy(rp->key, value, kl);
        rp->key[kl] = 0;
        strcpy(rp->glob, eq + 1);
        r->n_props++;
        return 0;
}

static int key_profile_name(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        if (!valid_name(value, k->size)) {
                parse_error(ctx, "%s=%s is not a profile name", k->name, value);
                return -EINVAL;
        }
        strcpy(field, value);
        /* For "not found": the line to fix. */
        ra_str_join(ctx->agent->profile_file, sizeof(ctx->agent->profile_file), ctx->path, NULL);
        ctx->agent->profile_line = ctx->line;
        return 0;
}

static int key_seconds(struct parse_ctx *ctx, const struct key *k, const char *value, void *field) {
        assert(k->size == sizeof(unsigned));
        if (ra_parse_uint(value, 0, k->max, (unsigned *) field) < 0) {
                parse_error(ctx, "%s=%s: expected seconds, 0 to %u", k->name, value, k->max);
                return -EINVAL;
        }
        return 0;
}

#define FIELD(type, member) .offset = offsetof(type, member), .size = sizeof(((type *) 0)->member)
#define AGENT(member)       FIELD(struct ra_agent_settings, member)
#define PROFILE(member)     FIELD(struct ra_profile, member)
#define RULE(member)        FIELD(struct ra_rule, member)
#define WHOLE_RULE          .offset = 0, .size = sizeof(struct ra_rule)

/*
 * Every key there is: the parser, check and readahead-ctl --list-keys read
 * it, and tests/tables holds the man page, the README, the fuzz dictionary
 * and corpus to it. A new key is a row here and its field in config.h; a
 * rule key also its test in decide.c's rule_matches(), on a fact that
 * facts.h and gather.c may have to add.
 */
static const struct key keys[] = {
        { SECTION_AGENT,   "Profile",        key_profile_name,  AGENT(profile) },
        { SECTION_AGENT,   "MountWaitSec",   key_seconds,       AGENT(mount_wait_sec),
          .max = RA_MOUNT_WAIT_SEC_MAX },

        { SECTION_PROFILE, "Description",    key_string,        PROFILE(description) },
        { SECTION_PROFILE, "Default",        key_size,          PROFILE(default_kb), .limit = true },
        { SECTION_PROFILE, "Minimum",        key_size,          PROFILE(minimum_kb), .limit = true },
        { SECTION_PROFILE, "Maximum",        key_size,          PROFILE(maximum_kb), .limit = true },
        { SECTION_PROFILE, "MemoryCap",      key_bool,          PROFILE(memory_cap) },
        { SECTION_PROFILE, "SmallDeviceCap", key_bool,          PROFILE(small_device_cap) },

        { SECTION_RULE,    "Kind",           key_kind,          RULE(kind) },
        { SECTION_RULE,    "Class",          key_mask,          RULE(classes),
          .max = _RA_CLASS_MAX, .name_of = class_name },
        { SECTION_RULE,    "Transport",      key_mask,          RULE(transports),
          .max = _RA_TRANSPORT_MAX, .name_of = transport_name },
        { SECTION_RULE,    "Rotational",     key_tristate,      RULE(rotational) },
        { SECTION_RULE,    "Removable",      key_tristate,      RULE(removable) },
        { SECTION_RULE,    "Virtual",        key_tristate,      RULE(virtual_disk) },
        { SECTION_RULE,    "Name",           key_string,        RULE(names) },
        { SECTION_RULE,    "MountPoint",     key_string,        RULE(mount_points) },
        { SECTION_RULE,    "FsType",         key_string,        RULE(fstypes) },
        { SECTION_RULE,    "Server",         key_string,        RULE(servers) },
        { SECTION_RULE,    "NfsVersion",     key_string,        RULE(nfs_versions) },
        { SECTION_RULE,    "Property",       key_rule_property, WHOLE_RULE },
        { SECTION_RULE,    "Size",           key_rule_size,     WHOLE_RULE },
        { SECTION_RULE,    "Minimum",        key_size,          RULE(min_kb), .limit = true },
        { SECTION_RULE,    "Maximum",        key_size,          RULE(max_kb), .limit = true },
        { SECTION_RULE,    "Tune",           key_bool,          RULE(tune) },
};

const char *ra_config_key(size_t i, const char **ret_section) {
        static const char *const section_names[] = {
                [SECTION_AGENT] = "Agent",
                [SECTION_PROFILE] = "Profile",
                [SECTION_RULE] = "Rule",
        };

        if (i >= sizeof(keys) / sizeof(keys[0]))
                return NULL;
        *ret_section = section_names[keys[i].section];
        return keys[i].name;
}

static const struct key *key_find(enum section section, const char *name) {
        /* The first letter before strcmp(): every event parses every key. */
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                if (keys[i].section == section && keys[i].name[0] == name[0] &&
                    strcmp(keys[i].name, name) == 0)
                        return &keys[i];
        return NULL;
}

static void on_key(struct parse_ctx *ctx, const char *name, const char *value) {
        struct ra_rule *rule = NULL;
        void *base;

        switch (ctx->section) {
        case SECTION_NONE:
                file_error(ctx, "%s= outside of any section", name);
                return;
        case SECTION_UNKNOWN:
                return; /* reported once at the section header */
        case SECTION_AGENT:
                base = ctx->agent;
                break;
        case SECTION_PROFILE:
                base = ctx->profile;
                break;
        case SECTION_RULE:
                base = rule = &ctx->profile->rules[ctx->rule];
                break;
        default:
                abort();
        }

        /* A misspelled match would leave the rule matching every device. */
        const struct key *k = key_find(ctx->section, name);
        if (!k) {
                if (rule)
                        parse_error(ctx, "unknown key %s=", name);
                else
                        parse_error(ctx, "unknown key %s= in [%s]", name, ctx->agent ? "Agent" : "Profile");
        } else if (k->parse(ctx, k, value, (char *) base + k->offset) >= 0) {
                if (k->limit)
                        *(rule ? &rule->limits_line : &ctx->limits_line) = ctx->line;
        } else if (k->limit)
                *(rule ? &ctx->rule_limit_failed[ctx->rule] : &ctx->profile_limit_failed) = true;
}

/* ---- lines ------------------------------------------------------------ */

/*
 * Lines are split here rather than by inih's parser: its line buffer is a
 * build option (200 bytes in Debian), and its versions treat a line that
 * fills it differently (r55 reads the rest as the next line, r59 skips it and
 * the lines after). A line may be as long as the file; what is too long is a
 * value, reported by its key at its line. The syntax is inih's as Debian
 * builds it: '=' or ':' ends the key, "; " after a blank starts a comment.
 */

static char *lskip(char *s) {
        while (isspace((unsigned char) *s))
                s++;
        return s;
}

static void rstrip(char *s, char *end) {
        while (end > s && isspace((unsigned char) end[-1]))
                *--end = 0;
}

/* The first of chars, or the start of an inline comment: ';' after a blank. */
static char *find_chars_or_comment(char *s, const char *chars) {
        bool was_space = false;
        while (*s && !(chars && strchr(chars, *s)) && !(was_space && *s == ';')) {
                was_space = isspace((unsigned char) *s);
                s++;
        }
        return s;
}

static void parse_line(struct parse_ctx *ctx, char *line) {
        char *start = lskip(line), *end, *value;

        if (*start == '#' || *start == ';')
                return; /* a comment, not measured by strlen(): most lines of a profile */
        rstrip(start, start + strlen(start));
        if (*start == 0 || section_header(ctx, start))
                return;
        end = find_chars_or_comment(start, "=:");
        if (*end != '=' && *end != ':') {
                file_error(ctx, "syntax error (expected [Section] or Key=Value)");
                return;
        }
        *end = 0;
        rstrip(start, end);
        value = end + 1;
        end = find_chars_or_comment(value, NULL);
        *end = 0;
        value = lskip(value);
        rstrip(value, end);
        on_key(ctx, start, value);
}

/* Splits buf into lines (LF or CRLF, a UTF-8 byte order mark first) and
 * parses each; the caller's buffer stays as it was. */
static int parse_lines(struct parse_ctx *ctx, const char *buf, size_t len) {
        char *copy = malloc(len + 1), *p;

        if (!copy)
                return -ENOMEM;
        memcpy(copy, buf, len);
        copy[len] = 0;
        p = copy;
        if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
                p += 3;
        while (*p) {
                char *nl = strchr(p, '\n'), *next = nl ? nl + 1 : p + strlen(p);
                if (nl)
                        *nl = 0;
                ctx->line++;
                parse_line(ctx, p); /* a trailing '\r' is a blank to it */
                p = next;
        }
        free(copy);
        return 0;
}

/* ---- files ------------------------------------------------------------ */

/* What only the whole file can tell; also after errors in its lines, so
 * that check prints every problem at once. */
static bool is_profile_ok(struct parse_ctx *ctx, struct ra_profile *p) {
        struct ra_config *c = ctx->c;

        for (size_t i = ctx->first_new_rule; i < p->n_rules; i++)
                if (!p->rules[i].has_size)
                        rule_error(ctx, i, p->rules[i].line, "no Size=");
        /* This file broke the order: it set one of them, at limits_line. */
        if (!ctx->profile_limit_failed && (p->minimum_kb > p->default_kb || p->default_kb > p->maximum_kb)) {
                ctx->errors++;
                ra_config_diag(c, RA_DIAG_ERROR, ctx->path, ctx->limits_line,
                               "Minimum=, Default= and Maximum= must be in ascending order");
        }
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct ra_rule *r = &p->rules[i];
                if (!ctx->rule_limit_failed[i] && r->min_kb > 0 && r->max_kb > 0 && r->min_kb > r->max_kb)
                        rule_error(ctx, i, r->limits_line ? r->limits_line : r->line,
                                   "Minimum= is above Maximum=");
        }
        return ctx->errors == 0;
}

/* Takes the dropped rules out of tmp: a rule this file added goes, one it
 * amended is as the files before left it (orig). Returns how many. */
static unsigned drop_rules(struct parse_ctx *ctx, struct ra_profile *tmp, const struct ra_profile *orig) {
        unsigned n = 0;

        for (size_t i = tmp->n_rules; i-- > 0;) {
                if (!ctx->rule_dropped[i])
                        continue;
                n++;
                if (i < ctx->first_new_rule)
                        tmp->rules[i] = orig->rules[i];
                else {
                        memmove(&tmp->rules[i], &tmp->rules[i + 1],
                                (tmp->n_rules - i - 1) * sizeof(struct ra_rule));
                        tmp->n_rules--;
                }
        }
        return n;
}

static int parse_buffer(struct parse_ctx *ctx, const char *buf, size_t len) {
        const char *nul = memchr(buf, 0, len);

        if (nul) {
                ctx->line = 1;
                for (const char *q = buf; q < nul; q++)
                        ctx->line += *q == '\n';
                file_error(ctx, "binary data (NUL byte) in file");
                return -EINVAL;
        }
        /* Errors in lines are counted in ctx, for the caller to add its own. */
        return parse_lines(ctx, buf, len);
}

int ra_profile_parse_buffer(struct ra_config *c, struct ra_profile *p, const char *path,
                            const char *buf, size_t len) {
        struct ra_profile tmp;
        int r;

        /* Work on a copy: a file with an error outside its rules leaves p as
         * it was, a rule with one is taken back out. */
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
        unsigned dropped = drop_rules(&ctx, &tmp, p);
        ra_profile_done(p);
        *p = tmp;
        return (int) dropped;
}

int ra_agent_parse_buffer(struct ra_config *c, struct ra_agent_settings *settings, const char *path,
                          const char *buf, size_t len) {
        struct ra_agent_settings tmp = *settings;
        struct parse_ctx ctx = { .c = c, .path = path, .agent = &tmp };
        int r = parse_buffer(&ctx, buf, len);
        if (r < 0)
                return r;
        if (ctx.errors > 0)
                return -EINVAL;
        *settings = tmp;
        return 0;
}
