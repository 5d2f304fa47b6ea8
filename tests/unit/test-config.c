/* SPDX-License-Identifier: MIT */
/*
 * Profile loading: the search path (/etc over /run over the vendor dir), same
 * basename masking, drop-ins, broken files dropped whole, diagnostics with
 * file and line. Every case builds its own root below $TMPDIR.
 */

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "config.h"
#include "test-util.h"
#include "test.h"

#define ETC "/etc/readahead-agent"
#define RUN_DIR "/run/readahead-agent"
#define VENDOR RA_VENDOR_DIR

static char root[PATH_MAX];

static void root_setup(void) {
        const char *tmp = getenv("TMPDIR");

        snprintf(root, sizeof(root), "%s/ra-unit-config.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(root)) {
                perror("mkdtemp");
                abort();
        }
}

static void root_teardown(void) {
        if (!getenv("TEST_KEEP_ROOT"))
                test_rm_rf(root);
        else
                printf("    root kept: %s\n", root);
}

/* A case that runs in a fresh root. */
#define ROOT_CASE(name)                                                                 \
        static void name##_body(void);                                                  \
        static void name(void)                                                          \
        {                                                                               \
                root_setup();                                                           \
                name##_body();                                                          \
                root_teardown();                                                        \
        }                                                                               \
        static void name##_body(void)

/* Writes a file at root + rel. */
static void put(const char *rel, const char *content) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s%s", root, rel);
        test_write_bytes(path, content, strlen(content));
}

static void put_bytes(const char *rel, const void *data, size_t len) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s%s", root, rel);
        test_write_bytes(path, data, len);
}

/* A symlink at root + rel with the text target. */
static void put_link(const char *rel, const char *target) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s%s", root, rel);
        test_mkdir_parent(path);
        if (symlink(target, path) < 0) {
                perror("symlink");
                abort();
        }
}

static void unlink_path(const char *rel) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s%s", root, rel);
        REQUIRE(unlink(path) == 0);
}

static void put_devnull(const char *rel) {
        put_link(rel, "/dev/null");
}

/* The vendor configuration as an install lays it out. */
static void install_vendor(void) {
        static const char *const files[] = {
                "config/readahead.conf",   "profiles/default.conf",    "profiles/embedded.conf",
                "profiles/throughput.conf", "profiles/database.conf",
        };
        static const char *const dest[] = {
                VENDOR "/readahead.conf",           VENDOR "/profiles/default.conf",
                VENDOR "/profiles/embedded.conf",   VENDOR "/profiles/throughput.conf",
                VENDOR "/profiles/database.conf",
        };

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                char *text = test_read_source(files[i], NULL);

                put(dest[i], text);
                free(text);
        }
}

static const char *state_name(enum ra_file_state s) {
        switch (s) {
        case RA_FILE_USED: return "used";
        case RA_FILE_MASKED: return "masked";
        case RA_FILE_MASK: return "mask";
        case RA_FILE_BROKEN: return "broken";
        }
        return "?";
}

/* Prints what was loaded; ctest shows it when a case fails. */
static void dump(const struct ra_config *c) {
        printf("    profile '%s', %zu rules, %zu errors\n", c->profile.name, c->profile.n_rules,
               c->n_errors);
        for (size_t i = 0; i < c->n_files; i++)
                printf("    file %-6s%s %s\n", state_name(c->files[i].state),
                       c->files[i].dropin ? " dropin" : "", c->files[i].path);
        for (size_t i = 0; i < c->n_diags; i++)
                printf("    %s:%u: %s: %s\n", c->diags[i].file, c->diags[i].line,
                       c->diags[i].level == RA_DIAG_ERROR ? "error" : "warning",
                       c->diags[i].message);
        for (size_t i = 0; i < c->profile.n_rules; i++)
                printf("    rule %s (%s:%u) size '%s'\n", c->profile.rules[i].section,
                       c->profile.rules[i].file, c->profile.rules[i].line,
                       c->profile.rules[i].size_text);
}

static struct ra_config *load(void) {
        struct ra_config *c = NULL;

        CHECK_INT(0, ra_config_load(root, &c));
        if (!c) {
                fprintf(stderr, "ra_config_load returned no configuration\n");
                abort();
        }
        dump(c);
        return c;
}

/* The file whose path is root + rel, or NULL. */
static const struct ra_config_file *file_at(const struct ra_config *c, const char *rel) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s%s", root, rel);
        for (size_t i = 0; i < c->n_files; i++)
                if (strcmp(c->files[i].path, path) == 0)
                        return &c->files[i];
        return NULL;
}

#define CHECK_FILE(c, rel, st, is_dropin)                                               \
        do {                                                                            \
                const struct ra_config_file *f_ = file_at((c), (rel));                  \
                if (!f_) {                                                              \
                        test_fail(__FILE__, __LINE__, "file listed");                   \
                        fprintf(stderr, "    %s\n", (rel));                             \
                } else {                                                                \
                        CHECK_STR(state_name(st), state_name(f_->state));               \
                        CHECK_INT((is_dropin), f_->dropin);                             \
                }                                                                       \
        } while (0)

/* A diagnostic of level for root + rel (or any file when rel is NULL) at line. */
static const struct ra_diag *diag_at(const struct ra_config *c, enum ra_diag_level level,
                                     const char *rel, unsigned line) {
        char path[PATH_MAX];

        if (rel)
                snprintf(path, sizeof(path), "%s%s", root, rel);
        for (size_t i = 0; i < c->n_diags; i++)
                if (c->diags[i].level == level && (!rel || strcmp(c->diags[i].file, path) == 0) &&
                    c->diags[i].line == line)
                        return &c->diags[i];
        return NULL;
}

/* An error of root + rel at line, with exactly this message. */
#define CHECK_ERROR_AT(c, rel, line, text)                                              \
        do {                                                                            \
                const struct ra_diag *d_ = diag_at((c), RA_DIAG_ERROR, (rel), (line));  \
                if (!d_) {                                                              \
                        test_fail(__FILE__, __LINE__, "error at its line");             \
                        fprintf(stderr, "    %s:%u\n", (rel), (unsigned) (line));       \
                } else                                                                  \
                        CHECK_STR((text), d_->message);                                 \
        } while (0)

static size_t count_level(const struct ra_config *c, enum ra_diag_level level) {
        size_t n = 0;

        for (size_t i = 0; i < c->n_diags; i++)
                n += c->diags[i].level == level;
        return n;
}

static const struct ra_rule *rule_named(const struct ra_profile *p, const char *section) {
        for (size_t i = 0; i < p->n_rules; i++)
                if (strcmp(p->rules[i].section, section) == 0)
                        return &p->rules[i];
        return NULL;
}

/* Size= of the rule of this section, or a marker when there is none. */
static const char *size_text_of(const struct ra_profile *p, const char *section) {
        const struct ra_rule *r = rule_named(p, section);

        return r ? r->size_text : "(no such rule)";
}

static long rule_index(const struct ra_profile *p, const char *section) {
        const struct ra_rule *r = rule_named(p, section);

        return r ? r - p->rules : -1;
}

static uint64_t eval_size(const struct ra_rule *r, uint64_t default_kb, uint64_t stripe_kb) {
        struct ra_vars v = { 0 };
        uint64_t kb = 0;

        v.value[RA_VAR_DEFAULT] = default_kb;
        v.value[RA_VAR_STRIPE] = stripe_kb;
        v.known = (1u << RA_VAR_DEFAULT) | (1u << RA_VAR_STRIPE);
        if (ra_expr_eval(&r->size, &v, &kb, NULL) < 0)
                return UINT64_MAX;
        return kb;
}

/* ---- loading from a root ---------------------------------------------------- */

ROOT_CASE(test_vendor_default) {
        struct ra_config *c;
        static const char *const sections[] = { "disk", "memory", "optical", "nfs", "other-network" };

        install_vendor();
        c = load();

        CHECK_STR(root, c->root);
        CHECK_INT(0, c->n_errors);
        CHECK_INT(0, count_level(c, RA_DIAG_WARNING));
        CHECK_STR("default", c->profile.name);
        CHECK_STR("512 KiB disks, two stripes for RAID, 4 x rsize for NFS", c->profile.description);
        CHECK_U64(512, c->profile.default_kb);
        CHECK_U64(8, c->profile.minimum_kb);
        CHECK_U64(131072, c->profile.maximum_kb);
        CHECK(c->profile.memory_cap);
        CHECK(c->profile.small_device_cap);

        REQUIRE(c->profile.n_rules == 7);
        CHECK_STR("disk", c->profile.rules[0].section);
        CHECK_STR("btrfs", c->profile.rules[1].section);
        CHECK_STR("raid", c->profile.rules[2].section);
        CHECK_STR("memory", c->profile.rules[3].section);
        CHECK_STR("optical", c->profile.rules[4].section);
        CHECK_STR("nfs", c->profile.rules[5].section);
        CHECK_STR("other-network", c->profile.rules[6].section);
        for (size_t i = 0; i < 5; i++)
                CHECK(rule_named(&c->profile, sections[i]) != NULL);

        CHECK_STR("btrfs", c->profile.rules[1].fstypes);
        CHECK_SUFFIX(c->profile.rules[2].file, VENDOR "/profiles/default.conf");
        CHECK_INT(45, c->profile.rules[2].line);
        CHECK_STR("max(default, 2 * stripe)", c->profile.rules[2].size_text);
        CHECK_INT(1u << RA_CLASS_RAID, c->profile.rules[2].classes);
        CHECK_U64(3072, eval_size(&c->profile.rules[2], 512, 1536));
        CHECK_INT(RA_KIND_BLOCK, c->profile.rules[0].kind);
        CHECK(c->profile.rules[3].keep);
        CHECK_INT((1u << RA_CLASS_NETFS) | (1u << RA_CLASS_FUSE), c->profile.rules[6].classes);

        CHECK_FILE(c, VENDOR "/readahead.conf", RA_FILE_USED, false);
        CHECK_FILE(c, VENDOR "/profiles/default.conf", RA_FILE_USED, false);
        /* Profiles that are not active are not part of the configuration. */
        CHECK(file_at(c, VENDOR "/profiles/throughput.conf") == NULL);
        ra_config_free(c);
}

/* ---- which files stand: one table of roots, one loop ------------------------- */

/* A file put below the root over the vendor configuration; text NULL makes it
 * a symlink to /dev/null. */
struct put_file {
        const char *rel, *text;
};

static void put_file(const struct put_file *f) {
        if (!f->rel)
                return;
        if (f->text)
                put(f->rel, f->text);
        else
                put_devnull(f->rel);
}

static bool is_dropin(const char *rel) {
        return strstr(rel, ".conf.d/") != NULL;
}

struct file_state {
        const char *rel;
        enum ra_file_state state;
};

static const struct layer_case {
        const char *name;
        struct put_file put[2];
        /* Expected: the active profile, its Default=, its rules, and files in these states. */
        const char *profile;
        uint64_t default_kb;
        size_t n_rules;
        struct file_state files[3];
} layer_cases[] = {
        { "/etc picks the profile",
          { { ETC "/readahead.conf", "[Agent]\nProfile=throughput\n" } },
          "throughput", 1024, 8,
          { { ETC "/readahead.conf", RA_FILE_USED },
            { VENDOR "/readahead.conf", RA_FILE_MASKED },
            { VENDOR "/profiles/throughput.conf", RA_FILE_USED } } },
        { "/run picks the profile",
          { { RUN_DIR "/readahead.conf", "[Agent]\nProfile=embedded\n" } },
          "embedded", 128, 7,
          { { RUN_DIR "/readahead.conf", RA_FILE_USED },
            { VENDOR "/readahead.conf", RA_FILE_MASKED },
            { VENDOR "/profiles/embedded.conf", RA_FILE_USED } } },
        { "/etc over /run over the vendor dir",
          { { RUN_DIR "/readahead.conf", "[Agent]\nProfile=embedded\n" },
            { ETC "/readahead.conf", "[Agent]\nProfile=database\n" } },
          "database", 32, 8,
          { { ETC "/readahead.conf", RA_FILE_USED },
            { RUN_DIR "/readahead.conf", RA_FILE_MASKED },
            { VENDOR "/readahead.conf", RA_FILE_MASKED } } },
        { "a readahead.conf drop-in picks the profile",
          { { ETC "/readahead.conf.d/profile.conf", "[Agent]\nProfile=database\n" } },
          "database", 32, 8,
          { { VENDOR "/readahead.conf", RA_FILE_USED },
            { ETC "/readahead.conf.d/profile.conf", RA_FILE_USED } } },
        { "/run replaces the vendor profile",
          { { RUN_DIR "/profiles/default.conf", "[Profile]\nDefault=64K\n\n[Rule all]\nSize=default\n" } },
          "default", 64, 1,
          { { RUN_DIR "/profiles/default.conf", RA_FILE_USED },
            { VENDOR "/profiles/default.conf", RA_FILE_MASKED } } },
        /* Masked on purpose: no rules, every device is left alone. */
        { "an empty file masks the profile",
          { { ETC "/profiles/default.conf", "" } },
          "default", 512, 0,
          { { ETC "/profiles/default.conf", RA_FILE_MASK },
            { VENDOR "/profiles/default.conf", RA_FILE_MASKED } } },
        { "a symlink to /dev/null masks the profile",
          { { ETC "/profiles/default.conf", NULL } },
          "default", 512, 0,
          { { ETC "/profiles/default.conf", RA_FILE_MASK },
            { VENDOR "/profiles/default.conf", RA_FILE_MASKED } } },
};

static void run_layer_case(const void *arg) {
        const struct layer_case *t = arg;
        struct ra_config *c;

        root_setup();
        install_vendor();
        for (size_t j = 0; j < sizeof(t->put) / sizeof(t->put[0]); j++)
                put_file(&t->put[j]);
        c = load();
        CHECK_INT(0, c->n_errors);
        CHECK_STR(t->profile, c->profile.name);
        CHECK_U64(t->default_kb, c->profile.default_kb);
        CHECK_INT(t->n_rules, c->profile.n_rules);
        for (size_t j = 0; j < sizeof(t->files) / sizeof(t->files[0]) && t->files[j].rel; j++)
                CHECK_FILE(c, t->files[j].rel, t->files[j].state, is_dropin(t->files[j].rel));
        ra_config_free(c);
        root_teardown();
}

ROOT_CASE(test_etc_profile_replaces_vendor) {
        struct ra_config *c;

        install_vendor();
        put(ETC "/profiles/default.conf",
            "[Profile]\n"
            "Default=256K\n"
            "\n"
            "[Rule all]\n"
            "Kind=block\n"
            "Size=default\n");
        c = load();
        CHECK_INT(0, c->n_errors);
        CHECK_STR("default", c->profile.name);
        CHECK_U64(256, c->profile.default_kb);
        REQUIRE(c->profile.n_rules == 1);
        CHECK_STR("all", c->profile.rules[0].section);
        CHECK_SUFFIX(c->profile.rules[0].file, ETC "/profiles/default.conf");
        CHECK_INT(4, c->profile.rules[0].line);
        CHECK_FILE(c, ETC "/profiles/default.conf", RA_FILE_USED, false);
        CHECK_FILE(c, VENDOR "/profiles/default.conf", RA_FILE_MASKED, false);
        ra_config_free(c);
}

/* A link masks by what it resolves to, not by its text. */
ROOT_CASE(test_relative_devnull_link_masks_profile) {
        struct ra_config *c;
        char up[400] = "";

        /* Enough ".." to reach / from any $TMPDIR: extra ones stay at /. */
        for (int i = 0; i < 64; i++)
                strcat(up, "../");
        strcat(up, "dev/null");
        install_vendor();
        put_link(ETC "/profiles/default.conf", up);
        /* A link to a link to /dev/null, as "../../dev/null" often is. */
        put_devnull(RUN_DIR "/null");
        put_link(ETC "/readahead.conf.d/50-x.conf", "../../../run/readahead-agent/null");
        c = load();
        CHECK_INT(0, c->profile.n_rules);
        CHECK_FILE(c, ETC "/profiles/default.conf", RA_FILE_MASK, false);
        CHECK_FILE(c, VENDOR "/profiles/default.conf", RA_FILE_MASKED, false);
        CHECK_FILE(c, ETC "/readahead.conf.d/50-x.conf", RA_FILE_MASK, true);
        ra_config_free(c);
}

/* A link to another character device is not a mask but a broken file. */
ROOT_CASE(test_link_to_other_device_does_not_mask) {
        struct ra_config *c;

        install_vendor();
        put_link(ETC "/profiles/default.conf", "/dev/zero");
        c = load();
        CHECK(c->profile.n_rules > 0);
        CHECK_FILE(c, VENDOR "/profiles/default.conf", RA_FILE_USED, false);
        ra_config_free(c);
}

ROOT_CASE(test_masked_profile_ignores_dropins) {
        /* Masking the profile leaves devices alone: drop-ins of a masked
         * profile (here one shipped by another package) add nothing. */
        struct ra_config *c;

        install_vendor();
        put(ETC "/profiles/default.conf", "");
        put(VENDOR "/profiles/default.conf.d/50-vendor.conf", "[Rule vendor]\nKind=block\nSize=1M\n");
        put(ETC "/profiles/default.conf.d/60-local.conf", "[Rule local]\nName=sda\nSize=2M\n");
        c = load();
        CHECK_INT(0, c->profile.n_rules);
        CHECK(rule_named(&c->profile, "vendor") == NULL);
        CHECK(rule_named(&c->profile, "local") == NULL);
        ra_config_free(c);
}

/* A profile that is not there leaves devices alone, drop-ins or not, and
 * the error names the line that asked for it. */
ROOT_CASE(test_missing_profile_ignores_dropins) {
        struct ra_config *c;
        const struct ra_diag *d;
        char text[128];

        install_vendor();
        put(ETC "/readahead.conf.d/50-profile.conf", "[Agent]\nProfile=nosuch\n");
        put(ETC "/profiles/nosuch.conf.d/50-disk.conf", "[Rule disk]\nKind=block\nSize=1M\n");
        c = load();
        CHECK_INT(0, c->profile.n_rules);
        CHECK_INT(RA_PROFILE_NOT_FOUND, c->profile_state);
        CHECK_INT(1, c->n_errors);
        CHECK_INT(1, c->n_diags);
        d = diag_at(c, RA_DIAG_ERROR, ETC "/readahead.conf.d/50-profile.conf", 2);
        REQUIRE(d);
        CHECK_STR("profile 'nosuch' not found: devices are left alone", d->message);
        CHECK_STR("profile 'nosuch' not found: devices are left alone",
                  ra_config_profile_problem(c, text, sizeof(text)));
        ra_config_free(c);

        /* The default profile, named by the vendor's readahead.conf. */
        unlink_path(ETC "/readahead.conf.d/50-profile.conf");
        unlink_path(VENDOR "/profiles/default.conf");
        put(ETC "/profiles/default.conf.d/50-disk.conf", "[Rule disk]\nKind=block\nSize=1M\n");
        c = load();
        CHECK_INT(0, c->profile.n_rules);
        d = diag_at(c, RA_DIAG_ERROR, VENDOR "/readahead.conf", 9);
        REQUIRE(d);
        CHECK_STR("profile 'default' not found: devices are left alone", d->message);
        ra_config_free(c);

        /* Named by nobody: no line to blame. */
        unlink_path(VENDOR "/readahead.conf");
        c = load();
        CHECK_INT(0, c->profile.n_rules);
        d = diag_at(c, RA_DIAG_ERROR, NULL, 0);
        REQUIRE(d);
        CHECK_STR("profiles/default.conf", d->file);
        CHECK_STR("profile 'default' not found: devices are left alone", d->message);
        CHECK_STR("profiles/default.conf", ra_diag_where(d, text, sizeof(text)));
        ra_config_free(c);

        /* There, but with errors in every file of its name. */
        put(VENDOR "/profiles/default.conf", "[Profile]\nDefault=lots\n");
        put(ETC "/profiles/default.conf.d/50-disk.conf", "[Rule disk]\nKind=block\nSize=1M\n");
        c = load();
        CHECK_INT(0, c->profile.n_rules);
        CHECK_INT(2, c->n_errors);
        d = diag_at(c, RA_DIAG_ERROR, NULL, 0);
        REQUIRE(d);
        CHECK_STR("profiles/default.conf", d->file);
        CHECK_STR("profile 'default' has errors in every file of its name: devices are left alone", d->message);
        ra_config_free(c);
}

/* A drop-in whose /etc path is 255 bytes: read, and no error for the
 * longer vendor path where no such file is. */
ROOT_CASE(test_long_dropin_name_fits_below_etc) {
        static const char dir[] = ETC "/profiles/default.conf.d/";
        struct ra_config *c;
        const struct ra_diag *d;
        char name[NAME_MAX + 1], rel[PATH_MAX], vrel[PATH_MAX];
        size_t n = 255 - strlen(root) - strlen(dir);

        REQUIRE(n >= 6 && n <= NAME_MAX && strlen(VENDOR) > strlen(ETC));
        memset(name, 'a', n - 5);
        strcpy(name + n - 5, ".conf");
        snprintf(rel, sizeof(rel), "%s%s", dir, name);
        install_vendor();
        put(rel, "[Rule long-name]\nName=sdz\nSize=1M\n");
        c = load();
        CHECK_INT(0, c->n_errors);
        CHECK_INT(0, c->n_diags);
        CHECK_STR("1M", size_text_of(&c->profile, "long-name"));
        CHECK_FILE(c, rel, RA_FILE_USED, true);
        ra_config_free(c);

        /* The same name below the vendor directory is there and too long. */
        unlink_path(rel);
        snprintf(vrel, sizeof(vrel), "%s/profiles/default.conf.d/%s", VENDOR, name);
        put(vrel, "[Rule long-name]\nName=sdz\nSize=1M\n");
        c = load();
        CHECK_INT(1, c->n_errors);
        d = diag_at(c, RA_DIAG_ERROR, NULL, 0);
        REQUIRE(d);
        CHECK_STR(VENDOR, d->file);
        CHECK_CONTAINS(d->message, "longer than 255 bytes, not read");
        CHECK(rule_named(&c->profile, "long-name") == NULL);
        ra_config_free(c);
}

ROOT_CASE(test_dropins_merge_in_basename_order) {
        struct ra_config *c;

        install_vendor();
        put(VENDOR "/profiles/default.conf.d/10-a.conf", "[Profile]\nDefault=100K\n[Rule a]\nSize=1M\n");
        put(ETC "/profiles/default.conf.d/15-c.conf", "[Profile]\nDefault=150K\n[Rule c]\nSize=1M\n");
        put(RUN_DIR "/profiles/default.conf.d/20-b.conf", "[Profile]\nDefault=200K\n[Rule b]\nSize=1M\n");
        put(VENDOR "/profiles/default.conf.d/30-d.conf", "[Rule d]\nSize=1M\n");
        /* Not drop-ins: wrong suffix. */
        put(ETC "/profiles/default.conf.d/README", "[Rule readme]\nSize=1M\n");
        put(ETC "/profiles/default.conf.d/40-e.conf.bak", "[Rule bak]\nSize=1M\n");

        c = load();
        CHECK_INT(0, c->n_errors);
        CHECK_U64(200, c->profile.default_kb);
        REQUIRE(c->profile.n_rules == 11);
        CHECK_STR("disk", c->profile.rules[0].section);
        CHECK_STR("other-network", c->profile.rules[6].section);
        CHECK_STR("a", c->profile.rules[7].section);
        CHECK_STR("c", c->profile.rules[8].section);
        CHECK_STR("b", c->profile.rules[9].section);
        CHECK_STR("d", c->profile.rules[10].section);
        CHECK(rule_named(&c->profile, "readme") == NULL);
        CHECK(rule_named(&c->profile, "bak") == NULL);
        CHECK_SUFFIX(c->profile.rules[8].file, ETC "/profiles/default.conf.d/15-c.conf");
        CHECK_FILE(c, VENDOR "/profiles/default.conf.d/10-a.conf", RA_FILE_USED, true);
        CHECK_FILE(c, ETC "/profiles/default.conf.d/15-c.conf", RA_FILE_USED, true);
        CHECK_FILE(c, RUN_DIR "/profiles/default.conf.d/20-b.conf", RA_FILE_USED, true);
        CHECK_FILE(c, VENDOR "/profiles/default.conf.d/30-d.conf", RA_FILE_USED, true);
        ra_config_free(c);
}

ROOT_CASE(test_etc_dropin_masks_vendor_dropin) {
        struct ra_config *c;

        install_vendor();
        put(VENDOR "/profiles/default.conf.d/10-a.conf", "[Rule vendor-a]\nSize=1M\n");
        put(RUN_DIR "/profiles/default.conf.d/10-a.conf", "[Rule run-a]\nSize=1M\n");
        put(ETC "/profiles/default.conf.d/10-a.conf", "[Rule etc-a]\nSize=2M\n");
        put(VENDOR "/profiles/default.conf.d/20-b.conf", "[Rule vendor-b]\nSize=1M\n");
        put(ETC "/profiles/default.conf.d/20-b.conf", "");
        put(VENDOR "/profiles/default.conf.d/30-c.conf", "[Rule vendor-c]\nSize=1M\n");
        put_devnull(ETC "/profiles/default.conf.d/30-c.conf");

        c = load();
        CHECK_INT(0, c->n_errors);
        REQUIRE(c->profile.n_rules == 8);
        CHECK_STR("etc-a", c->profile.rules[7].section);
        CHECK(rule_named(&c->profile, "vendor-a") == NULL);
        CHECK(rule_named(&c->profile, "run-a") == NULL);
        CHECK(rule_named(&c->profile, "vendor-b") == NULL);
        CHECK(rule_named(&c->profile, "vendor-c") == NULL);
        CHECK_FILE(c, ETC "/profiles/default.conf.d/10-a.conf", RA_FILE_USED, true);
        CHECK_FILE(c, RUN_DIR "/profiles/default.conf.d/10-a.conf", RA_FILE_MASKED, true);
        CHECK_FILE(c, VENDOR "/profiles/default.conf.d/10-a.conf", RA_FILE_MASKED, true);
        CHECK_FILE(c, ETC "/profiles/default.conf.d/20-b.conf", RA_FILE_MASK, true);
        CHECK_FILE(c, VENDOR "/profiles/default.conf.d/20-b.conf", RA_FILE_MASKED, true);
        CHECK_FILE(c, ETC "/profiles/default.conf.d/30-c.conf", RA_FILE_MASK, true);
        CHECK_FILE(c, VENDOR "/profiles/default.conf.d/30-c.conf", RA_FILE_MASKED, true);
        ra_config_free(c);
}

ROOT_CASE(test_dropin_changes_one_key_and_adds_rule) {
        struct ra_config *c;
        const struct ra_rule *raid, *sda;

        install_vendor();
        put(ETC "/profiles/default.conf.d/50-local.conf",
            "[Rule raid]\n"
            "Size=3 * stripe\n"
            "\n"
            "[Rule sda]\n"
            "Name=sda\n"
            "Size=1M\n");
        c = load();
        CHECK_INT(0, c->n_errors);
        REQUIRE(c->profile.n_rules == 8);

        /* The raid rule keeps its place and its match, only Size changes. */
        CHECK_INT(2, rule_index(&c->profile, "raid"));
        raid = &c->profile.rules[2];
        CHECK_INT(1u << RA_CLASS_RAID, raid->classes);
        CHECK(raid->has_size);
        CHECK(!raid->keep);
        CHECK_STR("3 * stripe", raid->size_text);
        CHECK_U64(4608, eval_size(raid, 512, 1536));
        CHECK_SUFFIX(raid->size_file, ETC "/profiles/default.conf.d/50-local.conf");
        CHECK_INT(2, raid->size_line);

        /* The new rule comes last. */
        sda = &c->profile.rules[7];
        CHECK_STR("sda", sda->section);
        CHECK_STR("sda", sda->names);
        CHECK_U64(1024, eval_size(sda, 512, 0));
        CHECK_SUFFIX(sda->file, ETC "/profiles/default.conf.d/50-local.conf");
        CHECK_INT(4, sda->line);

        /* Everything else is as the vendor wrote it. */
        CHECK_U64(512, c->profile.default_kb);
        CHECK_STR("max(1M, 4 * rsize)", size_text_of(&c->profile, "nfs"));
        CHECK_FILE(c, ETC "/profiles/default.conf.d/50-local.conf", RA_FILE_USED, true);
        CHECK_FILE(c, VENDOR "/profiles/default.conf", RA_FILE_USED, false);
        ra_config_free(c);
}

ROOT_CASE(test_dropin_changes_profile_key) {
        struct ra_config *c;

        install_vendor();
        put(ETC "/profiles/default.conf.d/50-bigger.conf", "[Profile]\nDefault=1M\n");
        c = load();
        CHECK_INT(0, c->n_errors);
        CHECK_U64(1024, c->profile.default_kb);
        CHECK_U64(8, c->profile.minimum_kb);
        CHECK_U64(131072, c->profile.maximum_kb);
        CHECK_INT(7, c->profile.n_rules);
        ra_config_free(c);
}

/*
 * A file with an error outside its rules (syntax, a section header, [Profile],
 * [Agent]) is dropped whole, and the next file of that name down the search
 * path (if any) stands in: nothing of it is used, the vendor profile stays as
 * it was. Errors in a rule drop only the rule (test_bad_rule_dropped_whole).
 */
static const struct broken_case {
        const char *name;
        struct put_file other; /* put first: the file that stands in, or one the broken file names */
        struct put_file broken;
        /* Expected: the one error, in the broken file, */
        unsigned line;
        const char *message;
        /* the file used in its place (NULL: none), the profile's rules, and a
         * rule of the broken file that is not there. */
        const char *stands;
        size_t n_rules;
        const char *absent_rule;
} broken_cases[] = {
        { "a bad size in an /etc profile",
          { NULL },
          { ETC "/profiles/default.conf",
            "[Profile]\n"
            "Description=typo\n"
            "Default=12Q\n"
            "\n"
            "[Rule all]\n"
            "Kind=block\n"
            "Size=default\n" },
          3, "Default=12Q is not a size (a whole number with K, M or G)",
          VENDOR "/profiles/default.conf", 7, "all" },
        { "an unknown key in an /etc profile's [Profile]",
          { NULL },
          { ETC "/profiles/default.conf",
            "[Profile]\n"
            "Default=256K\n"
            "Maximun=1M\n"
            "\n"
            "[Rule all]\n"
            "Size=default\n" },
          3, "unknown key Maximun= in [Profile]",
          VENDOR "/profiles/default.conf", 7, "all" },
        { "a broken drop-in falls back to the vendor's of the same name",
          { VENDOR "/profiles/default.conf.d/50-x.conf", "[Rule vendor-x]\nName=sdz\nSize=2M\n" },
          { ETC "/profiles/default.conf.d/50-x.conf",
            "[Rule etc-x]\n"
            "Name=sdz\n"
            "Size=2M\n"
            "Minimum lots\n" },
          4, "syntax error (expected [Section] or Key=Value)",
          VENDOR "/profiles/default.conf.d/50-x.conf", 8, "etc-x" },
        /* The rule is fine, [Profile] is not: neither is applied, as the
         * rule's Size= may well count on the Default= it meant to set. */
        { "a bad [Profile] drops the rules of its file",
          { NULL },
          { ETC "/profiles/default.conf.d/50-y.conf",
            "[Rule raid]\n"
            "Size=8 * stripe\n"
            "[Rule new]\n"
            "Size=default\n"
            "[Profile]\n"
            "Defualt=1M\n" },
          6, "unknown key Defualt= in [Profile]",
          NULL, 7, "new" },
        { "an unknown key in /etc/readahead.conf",
          { NULL },
          { ETC "/readahead.conf", "[Agent]\nProfile=throughput\nMountWaitSecs=5\n" },
          3, "unknown key MountWaitSecs= in [Agent]",
          VENDOR "/readahead.conf", 7, NULL },
        { "an unknown section",
          { NULL },
          { ETC "/profiles/default.conf.d/50-s.conf",
            "[Rule a]\n"
            "Size=1M\n"
            "[Frobnicate]\n"
            "X=1\n" },
          3, "unknown section [Frobnicate] (expected [Profile] or [Rule NAME])",
          NULL, 7, "a" },
        { "a line that is not Key=Value in /etc/readahead.conf",
          { NULL },
          { ETC "/readahead.conf", "[Agent]\nProfile=throughput\nthis line has no equals sign\n" },
          3, "syntax error (expected [Section] or Key=Value)",
          VENDOR "/readahead.conf", 7, NULL },
        /* A profile is a name, not a path, even when the path exists. */
        { "a profile named by a path",
          { ETC "/profiles/sub/evil.conf", "[Profile]\nDefault=1G\n[Rule all]\nSize=1G\n" },
          { ETC "/readahead.conf", "[Agent]\nProfile=sub/evil\n" },
          2, "Profile=sub/evil is not a profile name",
          VENDOR "/readahead.conf", 7, "all" },
};

static void run_broken_case(const void *arg) {
        const struct broken_case *t = arg;
        const struct ra_diag *d;
        struct ra_config *c;

        root_setup();
        install_vendor();
        put_file(&t->other);
        put_file(&t->broken);
        c = load();
        CHECK_INT(1, c->n_errors);
        d = diag_at(c, RA_DIAG_ERROR, t->broken.rel, t->line);
        CHECK(d != NULL);
        if (d)
                CHECK_STR(t->message, d->message);
        CHECK_FILE(c, t->broken.rel, RA_FILE_BROKEN, is_dropin(t->broken.rel));
        if (t->stands)
                CHECK_FILE(c, t->stands, RA_FILE_USED, is_dropin(t->stands));
        /* The vendor profile as it was. */
        CHECK_STR("default", c->profile.name);
        CHECK_STR("512 KiB disks, two stripes for RAID, 4 x rsize for NFS", c->profile.description);
        CHECK_U64(512, c->profile.default_kb);
        CHECK_STR("max(default, 2 * stripe)", size_text_of(&c->profile, "raid"));
        CHECK_INT(t->n_rules, c->profile.n_rules);
        if (t->absent_rule)
                CHECK(rule_named(&c->profile, t->absent_rule) == NULL);
        ra_config_free(c);
        root_teardown();
}

/*
 * Issue 34: a misspelled match made a rule match every device. A rule with
 * an unknown key or a bad value is dropped whole, at its file and line; the
 * rest of its file and the other files apply.
 */
ROOT_CASE(test_bad_rule_dropped_whole) {
        static const char *const f = ETC "/profiles/default.conf.d/50-data.conf";
        struct ra_config *c;

        install_vendor();
        put(f, "[Rule data]\n"        /* 1: new, and its only match misspelled */
               "MountPiont=/data\n"   /* 2 */
               "Size=16M\n"           /* 3 */
               "\n"                   /* 4 */
               "[Rule sdz]\n"         /* 5: new and fine */
               "Name=sdz\n"           /* 6 */
               "Size=2M\n"            /* 7 */
               "\n"                   /* 8 */
               "[Rule raid]\n"        /* 9: the vendor's, amended */
               "Size=4 * stripe\n"    /* 10 */
               "Transport=sata\n"     /* 11: not a transport */
               "[Rule disk]\n"        /* 12: the vendor's, amended and fine */
               "Size=1M\n");          /* 13 */
        put(ETC "/profiles/default.conf.d/60-other.conf", "[Rule usb]\nTransport=usb\nSize=128K\n");
        c = load();
        CHECK_INT(2, c->n_errors);
        CHECK_INT(2, c->n_diags);
        CHECK_ERROR_AT(c, f, 2, "[Rule data] dropped: unknown key MountPiont=");
        CHECK_ERROR_AT(c, f, 11,
                       "[Rule raid] unchanged by this file: Transport=sata: unknown Transport 'sata'");
        /* Not there: no device meets it, with or without its match. */
        CHECK(rule_named(&c->profile, "data") == NULL);
        /* As the vendor wrote it, not half of this file's amendment. */
        CHECK_STR("max(default, 2 * stripe)", size_text_of(&c->profile, "raid"));
        CHECK_INT(0, c->profile.rules[rule_index(&c->profile, "raid")].transports);
        CHECK_INT(2, rule_index(&c->profile, "raid"));
        /* The rest of the file, and the other file, apply. */
        CHECK_STR("2M", size_text_of(&c->profile, "sdz"));
        CHECK_STR("1M", size_text_of(&c->profile, "disk"));
        CHECK_STR("128K", size_text_of(&c->profile, "usb"));
        REQUIRE(c->profile.n_rules == 9);
        CHECK_STR("sdz", c->profile.rules[7].section);
        CHECK_STR("usb", c->profile.rules[8].section);
        CHECK_FILE(c, f, RA_FILE_USED, true);
        CHECK_INT(2, file_at(c, f)->dropped_rules);
        CHECK_INT(0, file_at(c, ETC "/profiles/default.conf.d/60-other.conf")->dropped_rules);
        ra_config_free(c);

        /* Dropped in an /etc copy of the profile: its other rules and its
         * [Profile] stand, the vendor file stays masked. */
        unlink_path(f);
        unlink_path(ETC "/profiles/default.conf.d/60-other.conf");
        put(ETC "/profiles/default.conf",
            "[Profile]\n"
            "Default=256K\n"
            "\n"
            "[Rule disk]\n"
            "Kind=block\n"
            "Size=2 * strpe\n"
            "\n"
            "[Rule nfs]\n"
            "Class=nfs\n"
            "Size=4M\n");
        c = load();
        CHECK_ERROR_AT(c, ETC "/profiles/default.conf", 6,
                       "[Rule disk] dropped: Size=2 * strpe: unknown variable 'strpe'");
        CHECK_U64(256, c->profile.default_kb);
        CHECK(rule_named(&c->profile, "disk") == NULL);
        CHECK_STR("4M", size_text_of(&c->profile, "nfs"));
        CHECK_FILE(c, ETC "/profiles/default.conf", RA_FILE_USED, false);
        CHECK_FILE(c, VENDOR "/profiles/default.conf", RA_FILE_MASKED, false);
        ra_config_free(c);
}

ROOT_CASE(test_long_line_is_limited_by_its_value) {
        struct ra_config *c;
        const struct ra_diag *d;
        char text[512];

        install_vendor();
        strcpy(text, "[Rule long]\nName=");
        memset(text + strlen(text), 'a', 245); /* line 2: 250 characters */
        strcpy(text + 17 + 245, "\nSize=1M\n");
        put(ETC "/profiles/default.conf.d/50-l.conf", text);
        c = load();
        CHECK_INT(0, c->n_errors);
        CHECK_STR("1M", size_text_of(&c->profile, "long"));
        CHECK_FILE(c, ETC "/profiles/default.conf.d/50-l.conf", RA_FILE_USED, true);
        ra_config_free(c);

        strcpy(text, "[Rule long]\nName=");
        memset(text + strlen(text), 'a', 256); /* one more than Name= holds */
        strcpy(text + 17 + 256, "\nSize=1M\n");
        put(ETC "/profiles/default.conf.d/50-l.conf", text);
        c = load();
        d = diag_at(c, RA_DIAG_ERROR, ETC "/profiles/default.conf.d/50-l.conf", 2);
        REQUIRE(d);
        CHECK_STR("[Rule long] dropped: Name= is longer than 255 characters", d->message);
        CHECK(rule_named(&c->profile, "long") == NULL);
        CHECK_FILE(c, ETC "/profiles/default.conf.d/50-l.conf", RA_FILE_USED, true);
        ra_config_free(c);
}

ROOT_CASE(test_binary_garbage_is_an_error) {
        static const char garbage[] = "[Rule bin]\nSize=1M\n\0\0\x01\x02\xff\xfe[Rule x]\nSize=\0 1M\n";
        struct ra_config *c;

        install_vendor();
        put_bytes(ETC "/profiles/default.conf.d/50-bin.conf", garbage, sizeof(garbage) - 1);
        c = load();
        CHECK(c->n_errors >= 1);
        CHECK(rule_named(&c->profile, "bin") == NULL);
        CHECK_INT(7, c->profile.n_rules);
        CHECK_FILE(c, ETC "/profiles/default.conf.d/50-bin.conf", RA_FILE_BROKEN, true);
        ra_config_free(c);
}

ROOT_CASE(test_missing_profile_leaves_devices_alone) {
        struct ra_config *c;
        bool named = false;

        install_vendor();
        put(ETC "/readahead.conf", "[Agent]\nProfile=nosuch\n");
        c = load();
        CHECK(c->n_errors >= 1);
        for (size_t i = 0; i < c->n_diags; i++)
                if (c->diags[i].level == RA_DIAG_ERROR && strstr(c->diags[i].message, "nosuch"))
                        named = true;
        CHECK(named);
        CHECK_INT(0, c->profile.n_rules);
        ra_config_free(c);
}

ROOT_CASE(test_oversized_file_is_an_error) {
        struct ra_config *c;
        size_t n = RA_FILE_SIZE_MAX + 4096;
        char *text = malloc(n + 1);

        REQUIRE(text);
        install_vendor();
        /* A valid rule, then comment lines past RA_FILE_SIZE_MAX. */
        memset(text, '#', n);
        memcpy(text, "[Rule big]\nSize=1M\n", 19);
        for (size_t i = 100; i < n; i += 80)
                text[i] = '\n';
        text[n] = '\0';
        put(ETC "/profiles/default.conf.d/50-big.conf", text);
        free(text);
        c = load();
        CHECK(c->n_errors >= 1);
        /* Named at the line the limit falls in: 2 + 65536 / 80 lines in. */
        CHECK(c->n_diags >= 1 && c->diags[0].line > 800 && c->diags[0].line < 830);
        CHECK(rule_named(&c->profile, "big") == NULL);
        CHECK_FILE(c, ETC "/profiles/default.conf.d/50-big.conf", RA_FILE_BROKEN, true);
        ra_config_free(c);
}

/*
 * More drop-ins than any fixed table would hold. All of them apply,
 * in name order, whatever order the directories list them in: files are
 * created in reverse and spread over /etc, /run and the vendor dir.
 */
ROOT_CASE(test_many_dropins_all_apply_in_name_order) {
        static const char *const dirs[] = { ETC, RUN_DIR, VENDOR };
        struct ra_config *c;
        char rel[PATH_MAX], text[64];

        install_vendor();
        for (int i = 199; i >= 0; i--) {
                snprintf(rel, sizeof(rel), "%s/profiles/default.conf.d/%03d-d.conf", dirs[i % 3], i);
                snprintf(text, sizeof(text), "[Rule disk]\nSize=%dK\n[Rule r%03d]\nSize=1M\n", 4 * (i + 1), i);
                put(rel, text);
        }
        c = load();
        CHECK_INT(0, c->n_errors);
        /* The last by name, 199-d.conf, sets Size=800K. */
        CHECK_STR("800K", size_text_of(&c->profile, "disk"));
        /* The vendor default.conf has 7 rules; the drop-ins' follow in name order. */
        REQUIRE(c->profile.n_rules == 7 + 200);
        for (int i = 0; i < 200; i++) {
                snprintf(text, sizeof(text), "r%03d", i);
                CHECK_STR(text, c->profile.rules[7 + i].section);
        }
        CHECK_INT(1 + 1 + 200, c->n_files); /* readahead.conf, default.conf, drop-ins */
        ra_config_free(c);
}

/* Beyond RA_DROPINS_MAX: an error check reports, and a result that does not
 * depend on directory order (the first RA_DROPINS_MAX by name). */
ROOT_CASE(test_too_many_dropins_is_an_error) {
        struct ra_config *c;
        char rel[PATH_MAX], text[64];

        install_vendor();
        for (int i = RA_DROPINS_MAX + 4; i >= 0; i--) {
                snprintf(rel, sizeof(rel), "%s/profiles/default.conf.d/%05d.conf", ETC, i);
                snprintf(text, sizeof(text), "[Rule disk]\nSize=%dK\n", 4 * (i + 1));
                put(rel, text);
        }
        c = load();
        CHECK_INT(1, c->n_errors);
        CHECK(c->n_diags >= 1 && strstr(c->diags[0].message, "more than 1024") != NULL);
        CHECK_STR("4096K", size_text_of(&c->profile, "disk")); /* 01023.conf */
        ra_config_free(c);
}

/* Defect 6: what check must catch, at the drop-in and line that did it. */
ROOT_CASE(test_check_errors_name_dropin_and_line) {
        struct ra_config *c;
        const struct ra_diag *d;

        install_vendor();
        put(ETC "/profiles/default.conf.d/60-div.conf", "# constant\n[Rule disk]\nSize=1M/0\n");
        put(ETC "/profiles/default.conf.d/61-minmax.conf", "[Rule disk]\nMinimum=1M\n\nMaximum=256K\n");
        put(ETC "/profiles/default.conf.d/62-order.conf", "[Profile]\nDefault=512K\nMaximum=256K\n");
        put(ETC "/profiles/default.conf.d/63-const.conf", "[Rule raid]\nSize=max(stripe, 1M - 2M)\n");
        put(ETC "/profiles/default.conf.d/64-var.conf", "[Rule raid]\nSize=stripe / 0\n");
        c = load();
        CHECK_INT(5, c->n_errors);
        d = diag_at(c, RA_DIAG_ERROR, ETC "/profiles/default.conf.d/60-div.conf", 3);
        CHECK(d && strstr(d->message, "division by zero"));
        d = diag_at(c, RA_DIAG_ERROR, ETC "/profiles/default.conf.d/61-minmax.conf", 4);
        CHECK(d && strstr(d->message, "Minimum= is above Maximum="));
        d = diag_at(c, RA_DIAG_ERROR, ETC "/profiles/default.conf.d/62-order.conf", 3);
        CHECK(d && strstr(d->message, "ascending order"));
        d = diag_at(c, RA_DIAG_ERROR, ETC "/profiles/default.conf.d/63-const.conf", 2);
        CHECK(d && strstr(d->message, "out of range"));
        d = diag_at(c, RA_DIAG_ERROR, ETC "/profiles/default.conf.d/64-var.conf", 2);
        CHECK(d && strstr(d->message, "division by zero"));
        CHECK_STR("default", size_text_of(&c->profile, "disk")); /* every drop-in dropped */
        ra_config_free(c);

        /* Valid limits from two files are fine; the drop-in that crosses them is blamed. */
        install_vendor();
        put(ETC "/profiles/default.conf.d/70-min.conf", "[Rule disk]\nMinimum=64K\n");
        put(ETC "/profiles/default.conf.d/71-max.conf", "[Rule disk]\n\nMaximum=32K\n");
        c = load();
        CHECK_INT(5 + 1, c->n_errors);
        CHECK(diag_at(c, RA_DIAG_ERROR, ETC "/profiles/default.conf.d/71-max.conf", 3) != NULL);
        ra_config_free(c);
}

/* An error in a line does not hide what only the whole file tells. */
ROOT_CASE(test_check_errors_after_a_bad_line) {
        static const char *const f = ETC "/profiles/default.conf.d/60-all.conf";
        struct ra_config *c;

        install_vendor();
        put(f, "[Profile]\n"       /* 1 */
               "Minimum=1M\n"      /* 2: above Default= 512K */
               "[Rule disk]\n"     /* 3 */
               "Size=1M/0\n"       /* 4 */
               "Minimum=1M\n"      /* 5 */
               "Maximum=256K\n"    /* 6: below Minimum= */
               "[Rule nosize]\n"   /* 7 */
               "Name=sdz\n"        /* 8 */
               "[Rule badlimit]\n" /* 9 */
               "Size=1M\n"         /* 10 */
               "Minimum=1Q\n"      /* 11 */
               "Maximum=64K\n");   /* 12 */
        c = load();
        CHECK_INT(5, c->n_errors);
        CHECK_ERROR_AT(c, f, 2, "Minimum=, Default= and Maximum= must be in ascending order");
        CHECK_ERROR_AT(c, f, 4,
                       "[Rule disk] unchanged by this file: "
                       "Size=1M/0: division by zero whatever the device");
        CHECK_ERROR_AT(c, f, 6, "[Rule disk] unchanged by this file: Minimum= is above Maximum=");
        CHECK_ERROR_AT(c, f, 7, "[Rule nosize] dropped: no Size=");
        /* Minimum=1Q is the error; not also an order it never set. */
        CHECK_ERROR_AT(c, f, 11,
                       "[Rule badlimit] dropped: Minimum=1Q is not a size (a whole number with K, M or G)");
        CHECK_FILE(c, f, RA_FILE_BROKEN, true);
        ra_config_free(c);
}

/* The configuration's fingerprint follows its files and problems. */
ROOT_CASE(test_fingerprint_changes_with_files) {
        struct ra_config *c;
        uint64_t a, b;
        char path[PATH_MAX];
        struct timespec times[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };

        install_vendor();
        put(ETC "/profiles/default.conf.d/70-bad.conf", "[Rule disk]\nColour=blue\n");
        c = load();
        a = ra_config_fingerprint(c);
        ra_config_free(c);
        c = load();
        CHECK_U64(a, ra_config_fingerprint(c)); /* nothing changed */
        ra_config_free(c);
        snprintf(path, sizeof(path), "%s%s", root, ETC "/profiles/default.conf.d/70-bad.conf");
        REQUIRE(utimensat(AT_FDCWD, path, times, 0) == 0);
        c = load();
        b = ra_config_fingerprint(c);
        CHECK(a != b); /* touched */
        ra_config_free(c);
        put(ETC "/profiles/default.conf.d/71-other.conf", "[Rule x]\nSize=1M\n");
        c = load();
        CHECK(b != ra_config_fingerprint(c)); /* a file more */
        ra_config_free(c);
}

static void test_free_null(void) {
        CHECK(ra_config_free(NULL) == NULL);
}

static void test_search_path(void) {
        CHECK_STR("/etc/readahead-agent", ra_config_dirs[0]);
        CHECK_STR("/run/readahead-agent", ra_config_dirs[1]);
        CHECK_STR(RA_VENDOR_DIR, ra_config_dirs[2]);
        CHECK(ra_config_dirs[3] == NULL);
}

/* ---- ra_profile_parse_buffer: one file, exact lines ------------------------- */

struct parsed {
        struct ra_config *c;
        struct ra_profile p;
        int r;
};

static void parse_len(struct parsed *t, const char *buf, size_t len) {
        t->c = calloc(1, sizeof(*t->c));
        REQUIRE(t->c);
        ra_profile_init(&t->p);
        t->r = ra_profile_parse_buffer(t->c, &t->p, "/test/p.conf", buf, len);
        t->c->profile.name[0] = '\0';
        dump(t->c);
        for (size_t i = 0; i < t->p.n_rules; i++)
                printf("    parsed rule %s line %u size '%s'\n", t->p.rules[i].section,
                       t->p.rules[i].line, t->p.rules[i].size_text);
}

static void parse(struct parsed *t, const char *buf) {
        parse_len(t, buf, strlen(buf));
}

static void parsed_done(struct parsed *t) {
        ra_profile_done(&t->p);
        ra_config_free(t->c); /* frees the diagnostics parse_buffer grew */
}

static const struct ra_diag *pdiag(const struct parsed *t, enum ra_diag_level level, unsigned line) {
        for (size_t i = 0; i < t->c->n_diags; i++)
                if (t->c->diags[i].level == level && t->c->diags[i].line == line)
                        return &t->c->diags[i];
        return NULL;
}

static void test_parse_all_keys(void) {
        struct parsed t;
        const struct ra_rule *r;

        parse(&t, "# comment\n"                  /* 1 */
                  "[Profile]\n"                  /* 2 */
                  "Description=Test profile\n"   /* 3 */
                  "Default=256K\n"               /* 4 */
                  "Minimum=16K\n"                /* 5 */
                  "Maximum=2M\n"                 /* 6 */
                  "MemoryCap=no\n"               /* 7 */
                  "SmallDeviceCap=off\n"         /* 8 */
                  "\n"                           /* 9 */
                  "[Rule usb]\n"                 /* 10 */
                  "Kind=block\n"                 /* 11 */
                  "Class=removable hdd\n"        /* 12 */
                  "Transport=usb mmc\n"          /* 13 */
                  "Rotational=yes\n"             /* 14 */
                  "Removable=1\n"                /* 15 */
                  "Name=sd* mmcblk*\n"           /* 16 */
                  "Property=ID_BUS=usb\n"        /* 17 */
                  "Property=ID_MODEL=Cruzer*\n"  /* 18 */
                  "Size=min(default, 128K)\n"    /* 19 */
                  "Minimum=8K\n"                 /* 20 */
                  "Maximum=1M\n"                 /* 21 */
                  "; another comment\n"          /* 22 */
                  "[Rule nfs]\n"                 /* 23 */
                  "Kind=mount\n"                 /* 24 */
                  "Class=nfs\n"                  /* 25 */
                  "MountPoint=/srv/* /data\n"    /* 26 */
                  "FsType=nfs nfs4\n"            /* 27 */
                  "Server=10.0.0.*\n"            /* 28 */
                  "NfsVersion=4.2 4.1\n"         /* 29 */
                  "Size=keep\n"                  /* 30 */
                  "\n"                           /* 31 */
                  "[Rule any]\n"                 /* 32 */
                  "Size=default\n");             /* 33 */
        CHECK_INT(0, t.r);
        CHECK_INT(0, t.c->n_diags);
        CHECK_STR("Test profile", t.p.description);
        CHECK_U64(256, t.p.default_kb);
        CHECK_U64(16, t.p.minimum_kb);
        CHECK_U64(2048, t.p.maximum_kb);
        CHECK(!t.p.memory_cap);
        CHECK(!t.p.small_device_cap);
        REQUIRE(t.p.n_rules == 3);

        r = &t.p.rules[0];
        CHECK_STR("usb", r->section);
        CHECK_STR("/test/p.conf", r->file);
        CHECK_INT(10, r->line);
        CHECK_INT(RA_KIND_BLOCK, r->kind);
        CHECK_INT((1u << RA_CLASS_REMOVABLE) | (1u << RA_CLASS_HDD), r->classes);
        CHECK_INT((1u << RA_TRANSPORT_USB) | (1u << RA_TRANSPORT_MMC), r->transports);
        CHECK_INT(1, r->rotational);
        CHECK_INT(1, r->removable);
        CHECK_STR("sd* mmcblk*", r->names);
        REQUIRE(r->n_props == 2);
        CHECK_STR("ID_BUS", r->props[0].key);
        CHECK_STR("usb", r->props[0].glob);
        CHECK_STR("ID_MODEL", r->props[1].key);
        CHECK_STR("Cruzer*", r->props[1].glob);
        CHECK(r->has_size);
        CHECK(!r->keep);
        CHECK_STR("min(default, 128K)", r->size_text);
        CHECK_STR("/test/p.conf", r->size_file);
        CHECK_INT(19, r->size_line);
        CHECK_U64(128, eval_size(r, 256, 0));
        CHECK_U64(8, r->min_kb);
        CHECK_U64(1024, r->max_kb);
        CHECK_STR("", r->mount_points);

        r = &t.p.rules[1];
        CHECK_STR("nfs", r->section);
        CHECK_INT(23, r->line);
        CHECK_INT(RA_KIND_MOUNT, r->kind);
        CHECK_INT(1u << RA_CLASS_NFS, r->classes);
        CHECK_STR("/srv/* /data", r->mount_points);
        CHECK_STR("nfs nfs4", r->fstypes);
        CHECK_STR("10.0.0.*", r->servers);
        CHECK_STR("4.2 4.1", r->nfs_versions);
        CHECK(r->has_size);
        CHECK(r->keep);
        CHECK_INT(30, r->size_line);
        /* Not given: matches anything. */
        CHECK_INT(0, r->transports);
        CHECK_INT(-1, r->rotational);
        CHECK_INT(-1, r->removable);
        CHECK_STR("", r->names);
        CHECK_INT(0, r->n_props);
        CHECK_U64(0, r->min_kb);
        CHECK_U64(0, r->max_kb);

        r = &t.p.rules[2];
        CHECK_STR("any", r->section);
        CHECK_INT(-1, r->kind);
        CHECK_INT(0, r->classes);
        CHECK(r->has_size);
        CHECK_INT(33, r->size_line);
        parsed_done(&t);
}

/* A bad line put in a rule or in [Profile], as line 3 of the file, and the case's name. */
#define IN_RULE(l)    .name = l, .text = "[Rule a]\nKind=block\n" l "\nSize=1M\n", .line = 3, .dropped = true
#define IN_PROFILE(l) .name = l, .text = "[Profile]\nDescription=x\n" l "\n", .line = 3
#define CHARS_70         "a123456789b123456789c123456789d123456789e123456789f123456789g123456789"

/* A file with one error, at its line with exactly this message: in rule a,
 * the rule is dropped and the message says so; elsewhere the file is refused. */
static const struct parse_error_case {
        const char *name;
        const char *text;
        unsigned line;
        const char *message;
        bool dropped;
} parse_error_cases[] = {
        { "unknown variable in Size=",
          "[Profile]\n"      /* 1 */
          "Default=512K\n"   /* 2 */
          "\n"               /* 3 */
          "[Rule a]\n"       /* 4 */
          "Kind=block\n"     /* 5 */
          "Size=2 * strpe\n" /* 6 */
          "Minimum=32K\n",   /* 7 */
          6, "Size=2 * strpe: unknown variable 'strpe'", true },

        /* Keys: a misspelled match would have the rule match every device. */
        { IN_RULE("MountPiont=/data"), .message = "unknown key MountPiont=" },
        { IN_RULE("Colour=blue"), .message = "unknown key Colour=" },
        { IN_PROFILE("Maximun=1M"), .message = "unknown key Maximun= in [Profile]" },

        /* Values. */
        { IN_RULE("Kind=disk"), .message = "Kind=disk: expected block or mount" },
        { IN_RULE("Class=floppy"), .message = "Class=floppy: unknown Class 'floppy'" },
        { IN_RULE("Class=hdd floppy"), .message = "Class=hdd floppy: unknown Class 'floppy'" },
        { IN_RULE("Transport=firewire"), .message = "Transport=firewire: unknown Transport 'firewire'" },
        { IN_RULE("Rotational=maybe"), .message = "Rotational=maybe is not a boolean (yes or no)" },
        { IN_RULE("Removable=2"), .message = "Removable=2 is not a boolean (yes or no)" },
        { IN_RULE("Minimum=12Q"), .message = "Minimum=12Q is not a size (a whole number with K, M or G)" },
        { IN_RULE("Maximum=-1"), .message = "Maximum=-1 is not a size (a whole number with K, M or G)" },
        { IN_RULE("Maximum=2G"), .message = "Maximum=2G is larger than 1G" },
        { IN_RULE("Minimum=1.5M"), .message = "Minimum=1.5M is not a size (a whole number with K, M or G)" },
        { IN_RULE("Property=NOEQUALS"), .message = "Property=NOEQUALS: expected KEY=GLOB" },
        { IN_RULE("Size=max(1,"), .message = "Size=max(1,: expected a number, a name or '(' at the end" },
        { IN_RULE("Size=1 + * 2"), .message = "Size=1 + * 2: expected a number, a name or '(' at '*'" },
        { IN_RULE("Size=max(1 2)"), .message = "Size=max(1 2): expected ',' or ')' in max() at '2)'" },
        { IN_RULE("Size=00000000000000000000000000000000001"),
          .message = "Size=00000000000000000000000000000000001: number or name "
                     "'000000000000000000000000...' is longer than 31 characters" },
        { IN_RULE("Size=1.5M"), .message = "Size=1.5M: unexpected '.5M'" },
        { IN_RULE("Size=2 * chunkk"), .message = "Size=2 * chunkk: unknown variable 'chunkk'" },
        { IN_PROFILE("Default=12Q"), .message = "Default=12Q is not a size (a whole number with K, M or G)" },
        { IN_PROFILE("Default=2G"), .message = "Default=2G is larger than 1G" },
        { IN_PROFILE("Minimum=abc"), .message = "Minimum=abc is not a size (a whole number with K, M or G)" },
        { IN_PROFILE("Maximum=lots"), .message = "Maximum=lots is not a size (a whole number with K, M or G)" },
        { IN_PROFILE("MemoryCap=perhaps"), .message = "MemoryCap=perhaps is not a boolean (yes or no)" },
        { IN_PROFILE("SmallDeviceCap=2"), .message = "SmallDeviceCap=2 is not a boolean (yes or no)" },

        /* Values that do not fit: a property glob (ra_rule_prop.glob, 128). */
        { "overlong Property= glob", "[Rule a]\nProperty=ID_SERIAL=" CHARS_70 CHARS_70 "\nSize=1M\n", 2,
          "Property=ID_SERIAL=" CHARS_70 CHARS_70 " is too long", true },

        /* Sections and syntax. */
        { "unknown section", "[Rule a]\nSize=1M\n\n[Frobnicate]\nX=1\n", 4,
          "unknown section [Frobnicate] (expected [Profile] or [Rule NAME])", false },
        { "[Rule] without a name", "[Rule]\nSize=1M\n", 1,
          "unknown section [Rule] (expected [Profile] or [Rule NAME])", false },
        /* Longer than ra_rule.section (64). */
        { "overlong rule name", "[Rule " CHARS_70 "]\nSize=1M\n", 1,
          "invalid rule name '" CHARS_70 "' (letters, digits, '-', '_', '.')", false },
        /* No inline comment in a header: it is part of the name. */
        { "comment in a header", "[Rule a ;comment]\nSize=1M\n", 1,
          "invalid rule name 'a ;comment' (letters, digits, '-', '_', '.')", false },
        { "key before any section", "Default=512K\n[Profile]\n", 1, "Default= outside of any section",
          false },
        { "no '='", "[Profile]\nDefault 512K\n", 2, "syntax error (expected [Section] or Key=Value)",
          false },
        { "header without ']'", "[Profile]\nDefault=512K\n[Rule a\nSize=1M\n", 3,
          "section header without ']'", false },
};

static void run_parse_error_case(const void *arg) {
        const struct parse_error_case *e = arg;
        const struct ra_diag *d;
        struct parsed t;

        char message[256];

        parse(&t, e->text);
        if (e->dropped) {
                CHECK_INT(1, t.r);
                CHECK_INT(0, t.p.n_rules);
                CHECK_U64(512, t.p.default_kb);
                snprintf(message, sizeof(message), "[Rule a] dropped: %s", e->message);
        } else {
                CHECK(t.r < 0);
                snprintf(message, sizeof(message), "%s", e->message);
        }
        CHECK_INT(1, t.c->n_errors);
        d = pdiag(&t, RA_DIAG_ERROR, e->line);
        CHECK(d != NULL);
        if (d) {
                CHECK_STR("/test/p.conf", d->file);
                CHECK_STR(message, d->message);
        }
        parsed_done(&t);
}

/* Files that parse without a word: their Default=, rules and the first rule. */
static const struct parse_good_case {
        const char *name;
        const char *text;
        size_t len; /* 0: all of text */
        uint64_t default_kb;
        size_t n_rules;
        const char *names, *size_text; /* of the first rule */
} parse_good_cases[] = {
        { "empty", "", 0, 512, 0, NULL, NULL },
        { "comments only", "# only a comment\n\n; and another\n", 0, 512, 0, NULL, NULL },
        /* Editors on other systems start files with a byte order mark; the
         * first section header must still count. */
        { "byte order mark", "\xef\xbb\xbf[Profile]\nDefault=256K\n[Rule a]\nSize=1M\n", 0, 256, 1, "", "1M" },
        { "CRLF", "[Profile]\r\nDefault=256K\r\n[Rule a]\r\nName=sda\r\nSize=1M\r\n", 0, 256, 1, "sda", "1M" },
        /* Only len bytes are read: the rest of the buffer is not part of the file. */
        { "length", "[Profile]\nDefault=256K\n[Rule a]\nSize=12Q\n", 23, 256, 0, NULL, NULL },
};

static void run_parse_good_case(const void *arg) {
        const struct parse_good_case *g = arg;
        struct parsed t;

        parse_len(&t, g->text, g->len ? g->len : strlen(g->text));
        CHECK_INT(0, t.r);
        CHECK_INT(0, t.c->n_diags);
        CHECK_U64(g->default_kb, t.p.default_kb);
        CHECK_INT(g->n_rules, t.p.n_rules);
        if (g->n_rules > 0 && t.p.n_rules > 0) {
                CHECK_STR(g->names, t.p.rules[0].names);
                CHECK_STR(g->size_text, t.p.rules[0].size_text);
        }
        parsed_done(&t);
}

/* Only the rule with the unknown key goes; the one of the same name later
 * in the file goes with it (the rule is whole or not there), b stays. */
static void test_parse_unknown_key_drops_the_rule(void) {
        struct parsed t;
        const struct ra_diag *d;

        parse(&t, "[Rule a]\n"
                  "Kind=block\n"
                  "Colour=blue\n"
                  "Size=1M\n"
                  "[Rule b]\n"
                  "Size=2M\n"
                  "[Rule a]\n"
                  "Name=sda\n");
        CHECK_INT(1, t.r);
        CHECK_INT(1, t.c->n_errors);
        CHECK_INT(1, t.c->n_diags);
        d = pdiag(&t, RA_DIAG_ERROR, 3);
        REQUIRE(d);
        CHECK_STR("[Rule a] dropped: unknown key Colour=", d->message);
        REQUIRE(t.p.n_rules == 1);
        CHECK_STR("b", t.p.rules[0].section);
        CHECK_STR("2M", t.p.rules[0].size_text);
        parsed_done(&t);
}

/* Parses a [Profile] whose line 3 is a Description= of n characters, then tail. */
/* "[Profile]\nDefault=512K\n", then line 3: KEY= and n - strlen(KEY=) x's, then tail. */
static void parse_long_line(struct parsed *t, const char *key, size_t n, const char *tail) {
        static const char head[] = "[Profile]\nDefault=512K\n";
        size_t len = sizeof(head) - 1, kl = strlen(key);
        char *buf = malloc(len + n + strlen(tail) + 1);

        REQUIRE(buf && n >= kl);
        memcpy(buf, head, len);
        memcpy(buf + len, key, kl);
        memset(buf + len + kl, 'x', n - kl);
        strcpy(buf + len + n, tail);
        parse(t, buf);
        free(buf);
}

static void test_parse_line_length(void) {
        static const char tail[] = "\n[Rule a]\nSize=1M\nColour=blue\n"; /* line 6: an error of its own */
        struct parsed t;
        const struct ra_diag *d;

        /* What limits a line is its value, whatever line buffer inih was
         * built with (200 bytes in Debian; r55 and r59 differ at its end).
         * The line of the error after it says the lines were counted right. */
        parse_long_line(&t, "Description=", 199, tail);
        CHECK_INT(1, t.r);
        CHECK_INT(1, t.c->n_errors);
        CHECK_INT(187, strlen(t.p.description));
        CHECK(pdiag(&t, RA_DIAG_ERROR, 6) != NULL);
        parsed_done(&t);

        parse_long_line(&t, "Description=", 200, tail);
        CHECK_INT(1, t.r);
        CHECK_INT(188, strlen(t.p.description));
        CHECK(pdiag(&t, RA_DIAG_ERROR, 6) != NULL);
        parsed_done(&t);

        /* The documented 255 characters, on a 267-character line. */
        parse_long_line(&t, "Description=", 267, tail);
        CHECK_INT(1, t.r);
        CHECK_INT(1, t.c->n_errors);
        CHECK_INT(255, strlen(t.p.description));
        CHECK(pdiag(&t, RA_DIAG_ERROR, 6) != NULL);
        parsed_done(&t);

        /* One more is the value's error, at its line; line 6 is still line 6. */
        parse_long_line(&t, "Description=", 268, tail);
        CHECK(t.r < 0);
        CHECK_INT(2, t.c->n_errors);
        d = pdiag(&t, RA_DIAG_ERROR, 3);
        REQUIRE(d);
        CHECK_STR("Description= is longer than 255 characters", d->message);
        CHECK(pdiag(&t, RA_DIAG_ERROR, 6) != NULL);
        parsed_done(&t);

        /* A comment as long as you like; the bad line after it is line 4. */
        parse_long_line(&t, "# ", 5000, "\nDefault=12Q\n");
        CHECK(t.r < 0);
        CHECK_INT(1, t.c->n_errors);
        d = pdiag(&t, RA_DIAG_ERROR, 4);
        REQUIRE(d);
        CHECK_STR("Default=12Q is not a size (a whole number with K, M or G)", d->message);
        parsed_done(&t);
}

/* A MountPoint= list of 255 characters, on one 266-character line. */
static void test_parse_long_mount_point_list(void) {
        char buf[400] = "[Rule shares]\nKind=mount\nMountPoint=";
        struct parsed t;

        for (int i = 0; i < 25; i++) /* 25 x 10 characters */
                sprintf(buf + strlen(buf), "/srv/%02d/* ", i);
        strcat(buf, "/tmp*\nSize=1M\n");
        parse(&t, buf);
        CHECK_INT(0, t.r);
        CHECK_INT(0, t.c->n_errors);
        REQUIRE(t.p.n_rules == 1);
        CHECK_INT(255, strlen(t.p.rules[0].mount_points));
        CHECK_SUFFIX(t.p.rules[0].mount_points, "/srv/23/* /srv/24/* /tmp*");
        parsed_done(&t);
}

/* The syntax inih gave: ':' ends a key too, ';' after a blank starts a
 * comment, blanks around keys and values go, an indented line is a line. */
static void test_parse_inih_syntax(void) {
        struct parsed t;
        const struct ra_diag *d;

        parse(&t, "[Profile]\n"
                  "Default: 1M ; one megabyte\n"
                  "  Description =  a;b #c  \r\n");
        CHECK_INT(0, t.r);
        CHECK_U64(1024, t.p.default_kb);
        CHECK_STR("a;b #c", t.p.description);
        parsed_done(&t);

        parse(&t, "[Profile]\n"
                  "\n"
                  "  Minimum ; x = 4K\n"
                  "Maximum\n");
        CHECK(t.r < 0);
        CHECK_INT(2, t.c->n_errors);
        d = pdiag(&t, RA_DIAG_ERROR, 3);
        REQUIRE(d);
        CHECK_STR("syntax error (expected [Section] or Key=Value)", d->message);
        CHECK(pdiag(&t, RA_DIAG_ERROR, 4) != NULL);
        parsed_done(&t);
}

static void test_parse_nul_bytes(void) {
        static const char buf[] = "[Profile]\nDescription=a\0b\nDefault=512K\n";
        static const char tail[] = "[Profile]\nDefault=512K\n\0";
        struct parsed t;

        parse_len(&t, buf, sizeof(buf) - 1);
        CHECK(t.r < 0);
        CHECK(t.c->n_errors >= 1);
        CHECK(pdiag(&t, RA_DIAG_ERROR, 2) != NULL);
        parsed_done(&t);

        /* A NUL at the very end is garbage too. */
        parse_len(&t, tail, sizeof(tail) - 1);
        CHECK(t.r < 0);
        CHECK(t.c->n_errors >= 1);
        parsed_done(&t);
}

static void test_parse_limits(void) {
        struct parsed t;
        char *buf;
        size_t n = 0;

        /* More rules than RA_RULES_MAX. */
        buf = malloc(32 * 300 + 1);
        REQUIRE(buf);
        for (int i = 0; i < 300; i++)
                n += (size_t)sprintf(buf + n, "[Rule r%d]\nSize=1M\n", i);
        parse(&t, buf);
        CHECK(t.r < 0);
        CHECK(t.c->n_errors >= 1);
        CHECK(t.p.n_rules <= RA_RULES_MAX);
        parsed_done(&t);
        free(buf);

        /* More than RA_RULE_PROPS_MAX Property= lines in one rule. */
        buf = malloc(4096);
        REQUIRE(buf);
        n = (size_t)sprintf(buf, "[Rule p]\n");
        for (int i = 0; i < 12; i++)
                n += (size_t)sprintf(buf + n, "Property=K%d=v\n", i);
        parse(&t, buf);
        CHECK_INT(1, t.r); /* the rule is dropped */
        CHECK(pdiag(&t, RA_DIAG_ERROR, 10) != NULL); /* the ninth Property= */
        CHECK_INT(0, t.p.n_rules);
        parsed_done(&t);
        free(buf);

        /* More problems than RA_DIAGS_MAX: counted, never overrun. */
        buf = malloc(64 * 200 + 16);
        REQUIRE(buf);
        n = (size_t)sprintf(buf, "[Rule a]\n");
        for (int i = 0; i < 200; i++)
                n += (size_t)sprintf(buf + n, "Colour%d=blue\n", i);
        parse(&t, buf);
        CHECK(t.c->n_diags <= RA_DIAGS_MAX);
        parsed_done(&t);
        free(buf);
}

static void test_parse_indented_key(void) {
        /* An indented "Key=Value" line is a key of its own (or an error with
         * its line); it must not silently become part of the previous value,
         * which here would make the rule match no device at all. */
        struct parsed t;

        parse(&t, "[Rule a]\n"
                  "Name=sda\n"
                  "  Minimum=64K\n"
                  "Size=1M\n");
        if (t.r == 0) {
                REQUIRE(t.p.n_rules == 1);
                CHECK_STR("sda", t.p.rules[0].names);
                CHECK_U64(64, t.p.rules[0].min_kb);
        } else {
                CHECK(pdiag(&t, RA_DIAG_ERROR, 3) != NULL);
        }
        parsed_done(&t);
}

static void test_parse_same_rule_twice_in_one_buffer(void) {
        /* A later section of the same name amends the rule, like a drop-in. */
        struct parsed t;

        parse(&t, "[Rule a]\nClass=hdd\nSize=1M\n[Rule b]\nSize=2M\n[Rule a]\nSize=3M\n");
        CHECK_INT(0, t.r);
        REQUIRE(t.p.n_rules == 2);
        CHECK_STR("a", t.p.rules[0].section);
        CHECK_STR("3M", t.p.rules[0].size_text);
        CHECK_INT(1u << RA_CLASS_HDD, t.p.rules[0].classes);
        CHECK_INT(7, t.p.rules[0].size_line);
        parsed_done(&t);
}

/* The agent looks up only these udev properties: every rule's keys, once each. */
static void test_profile_property_keys(void) {
        struct parsed t;
        const char **keys = NULL;
        size_t n = 99;

        parse(&t, "[Rule a]\nSize=1M\n");
        CHECK_INT(0, t.r);
        CHECK_INT(0, ra_profile_property_keys(&t.p, &keys, &n));
        CHECK_INT(0, n);
        CHECK(keys == NULL);
        parsed_done(&t);

        parse(&t, "[Rule a]\nProperty=ID_WWN=0x5*\nProperty=ID_BUS=usb\nSize=1M\n"
                  "[Rule b]\nProperty=ID_BUS=ata\nProperty=DM_NAME=vg-*\nSize=2M\n");
        CHECK_INT(0, t.r);
        CHECK_INT(0, ra_profile_property_keys(&t.p, &keys, &n));
        REQUIRE(n == 3);
        CHECK_STR("ID_WWN", keys[0]);
        CHECK_STR("ID_BUS", keys[1]);
        CHECK_STR("DM_NAME", keys[2]);
        free(keys);
        parsed_done(&t);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_profile_property_keys);
        RUN(test_vendor_default);
        RUN_TABLE(layer_cases, run_layer_case);
        RUN(test_etc_profile_replaces_vendor);
        RUN(test_relative_devnull_link_masks_profile);
        RUN(test_link_to_other_device_does_not_mask);
        RUN(test_masked_profile_ignores_dropins);
        RUN(test_missing_profile_ignores_dropins);
        RUN(test_long_dropin_name_fits_below_etc);
        RUN(test_dropins_merge_in_basename_order);
        RUN(test_etc_dropin_masks_vendor_dropin);
        RUN(test_dropin_changes_one_key_and_adds_rule);
        RUN(test_dropin_changes_profile_key);
        RUN_TABLE(broken_cases, run_broken_case);
        RUN(test_bad_rule_dropped_whole);
        RUN(test_long_line_is_limited_by_its_value);
        RUN(test_binary_garbage_is_an_error);
        RUN(test_missing_profile_leaves_devices_alone);
        RUN(test_oversized_file_is_an_error);
        RUN(test_many_dropins_all_apply_in_name_order);
        RUN(test_too_many_dropins_is_an_error);
        RUN(test_check_errors_name_dropin_and_line);
        RUN(test_check_errors_after_a_bad_line);
        RUN(test_fingerprint_changes_with_files);
        RUN(test_free_null);
        RUN(test_search_path);
        RUN(test_parse_all_keys);
        RUN_TABLE(parse_error_cases, run_parse_error_case);
        RUN_TABLE(parse_good_cases, run_parse_good_case);
        RUN(test_parse_unknown_key_drops_the_rule);
        RUN(test_parse_line_length);
        RUN(test_parse_long_mount_point_list);
        RUN(test_parse_inih_syntax);
        RUN(test_parse_nul_bytes);
        RUN(test_parse_limits);
        RUN(test_parse_indented_key);
        RUN(test_parse_same_rule_twice_in_one_buffer);
        TEST_MAIN_END;
}
