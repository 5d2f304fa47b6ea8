/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expr.h"
#include "facts.h"

/*
 * Configuration: the active profile with its rules, read from INI files.
 *
 * Search path, first directory wins for each basename:
 *   ROOT/etc/readahead-agent, ROOT/run/readahead-agent, ROOT/VENDOR_DIR
 * readahead.conf picks the profile ([Agent] Profile=); profiles/NAME.conf
 * holds [Profile] and [Rule NAME] sections. NAME.conf.d/\*.conf drop-ins,
 * from all directories, merge in basename order over the main file. A file
 * that is empty or a symlink to /dev/null masks the ones below it.
 *
 * A rule with an error (an unknown key, a value that cannot be read, no Size=)
 * is dropped whole: a rule the file adds is not there, a rule it amends stays
 * as the files before left it; the rest of the file applies. Any other error
 * (syntax, a section header, [Profile], [Agent]) drops the whole file, and
 * the next file of that name down the search path stands in its place. Either
 * way no device ever meets half a rule, and every other device keeps its own.
 *
 * config.c loads; conf-files.c decides which files (search path, masks,
 * drop-ins); conf-parse.c reads each one (its keys[] table lists every key).
 */

#define RA_MATCH_MAX 256
#define RA_RULE_PROPS_MAX 8
#define RA_RULES_MAX 256
/* Drop-ins per NAME.conf.d, all directories together; beyond, an error. */
#define RA_DROPINS_MAX 1024
#define RA_DIAGS_MAX 128
#define RA_FILE_SIZE_MAX (64 * 1024)
#define RA_PROFILE_NAME_MAX 64

struct ra_rule_prop {
        char key[64];
        char glob[128];
};

struct ra_rule {
        char section[64];
        char file[RA_PATH_MAX];
        unsigned line;

        /* Match; an empty string or -1 matches anything. */
        int kind; /* enum ra_kind */
        unsigned classes;    /* bit mask of enum ra_class */
        unsigned transports; /* bit mask of enum ra_transport */
        int rotational;
        int removable;
        int virtual_disk; /* Virtual= */
        char names[RA_MATCH_MAX]; /* space-separated globs */
        char mount_points[RA_MATCH_MAX];
        char fstypes[RA_MATCH_MAX];
        char servers[RA_MATCH_MAX];
        char nfs_versions[RA_MATCH_MAX];
        struct ra_rule_prop props[RA_RULE_PROPS_MAX];
        unsigned n_props;

        /* Action. keep: leave the device as the kernel set it. */
        bool has_size;
        bool keep;
        struct ra_expr size;
        char size_text[RA_EXPR_MAX_LEN];
        char size_file[RA_PATH_MAX]; /* where Size= was last set */
        unsigned size_line;
        uint64_t min_kb, max_kb; /* 0: no clamp */
        unsigned limits_line;    /* Minimum=/Maximum= in the file being parsed; 0: not there */
        /* Tune=yes: the agent may move the value within [Minimum, Maximum]
         * by what advise sees (advise-tune.h) */
        bool tune;
};

struct ra_profile {
        char name[RA_PROFILE_NAME_MAX];
        char description[RA_MATCH_MAX];
        uint64_t default_kb;
        uint64_t minimum_kb;
        uint64_t maximum_kb;
        bool memory_cap;
        bool small_device_cap;
        struct ra_rule *rules; /* evaluated in order; the last match wins */
        size_t n_rules;
};

enum ra_file_state {
        RA_FILE_USED,
        RA_FILE_MASKED,    /* a file of the same name higher up wins */
        RA_FILE_MASK,      /* empty or /dev/null: masks, adds nothing */
        RA_FILE_BROKEN,    /* had errors, ignored */
};

struct ra_config_file {
        char path[RA_PATH_MAX];
        enum ra_file_state state;
        bool dropin;
        unsigned dropped_rules; /* used, but this many of its rules had errors */
        /* What identifies this version of the file (stat(), 0 if it failed). */
        uint64_t dev, ino, size, mtime_ns;
};

enum ra_diag_level {
        RA_DIAG_ERROR,
        RA_DIAG_WARNING,
};

struct ra_diag {
        enum ra_diag_level level;
        char file[RA_PATH_MAX];
        unsigned line; /* 0: the whole file */
        char message[200];
};

/* readahead.conf [Agent] */
struct ra_agent_settings {
        char profile[RA_PROFILE_NAME_MAX];
        char profile_file[RA_PATH_MAX]; /* where Profile= was set, "" for the default */
        unsigned profile_line;
        unsigned mount_wait_sec; /* how long to wait for a network mount after its bdi appears */
};

#define RA_MOUNT_WAIT_SEC_DEFAULT 30
#define RA_MOUNT_WAIT_SEC_MAX 600

/* Whether the active profile is there: masked or missing, its drop-ins are
 * not read either and every device is left alone. */
enum ra_profile_state {
        RA_PROFILE_FOUND,
        RA_PROFILE_MASKED,
        RA_PROFILE_NOT_FOUND,
        RA_PROFILE_BROKEN, /* every file of its name has errors */
};

/* The longest configuration root: every path below it must fit RA_PATH_MAX. */
#define RA_ROOT_MAX (RA_PATH_MAX / 2 - 1)

/* -ENAMETOOLONG for a root longer than RA_ROOT_MAX: refused, so that nothing
 * built from it (a drop-in, the advice record, a stamp) lands on the host. */
int ra_root_check(const char *root);

struct ra_config {
        char root[RA_PATH_MAX];
        bool root_refused; /* the root given was too long: root is "", write nothing below it */
        struct ra_agent_settings agent;
        struct ra_profile profile;
        enum ra_profile_state profile_state;
        struct ra_config_file *files; /* grown as needed */
        size_t n_files;
        struct ra_diag *diags; /* at most RA_DIAGS_MAX; n_errors counts them all */
        size_t n_diags;
        size_t n_errors;
};

/*
 * Loads the configuration below root ("" or NULL for /). Problems in files
 * become diagnostics, never a failure: the result is always usable. Returns
 * -ENOMEM only.
 */
int ra_config_load(const char *root, struct ra_config **ret);
struct ra_config *ra_config_free(struct ra_config *c);

/* "profile 'x' not found: devices are left alone" or "... is masked: ...",
 * the one text for check, cat-config and the agent's log; NULL when the
 * profile is there. */
const char *ra_config_profile_problem(const struct ra_config *c, char *buf, size_t size);

/* "FILE:LINE", or "FILE" for a problem of the whole file (line 0). */
const char *ra_diag_where(const struct ra_diag *d, char *buf, size_t size);

/* The udev property keys p's rules match on (Property=), each once, pointing
 * into p: an allocated array (NULL when there are none) and its length. */
int ra_profile_property_keys(const struct ra_profile *p, const char ***ret, size_t *ret_n);

/*
 * Changes whenever a file considered changes (path, state, device, inode,
 * size, mtime), one appears or goes, or the problems found change: the agent
 * logs problems once per fingerprint, not once per event.
 */
uint64_t ra_config_fingerprint(const struct ra_config *c);

/* Directories searched, in order of precedence, without root. */
extern const char *const ra_config_dirs[];

/*
 * The i-th key of the parser's table: its name and its section ("Agent",
 * "Profile" or "Rule"); NULL past the last. For readahead-ctl --list-keys,
 * which the tests compare with the man page, the README and the fuzzer's
 * dictionary.
 */
const char *ra_config_key(size_t i, const char **ret_section);

/* Parses one profile file into p (used by load, the fuzzer and the tests).
 * Returns < 0 for a file dropped whole (p as it was), else how many of its
 * rules were dropped. */
int ra_profile_parse_buffer(struct ra_config *c, struct ra_profile *p, const char *path,
                            const char *buf, size_t len);
void ra_profile_init(struct ra_profile *p);
void ra_profile_done(struct ra_profile *p);
