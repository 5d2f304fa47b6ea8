/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "ctl.h"
#include "output.h"
#include "text.h"

static const char *const state_names[] = {
        [RA_FILE_USED] = "used",
        [RA_FILE_MASKED] = "masked",
        [RA_FILE_MASK] = "mask",
        [RA_FILE_BROKEN] = "ignored (errors)",
};

/* For tools: one word each. */
static const char *const state_json[] = {
        [RA_FILE_USED] = "used",
        [RA_FILE_MASKED] = "masked",
        [RA_FILE_MASK] = "mask",
        [RA_FILE_BROKEN] = "ignored",
};

static const char *severity(const struct ra_diag *d) {
        return d->level == RA_DIAG_ERROR ? "error" : "warning";
}

/* FILE:LINE: error: message, escaped (messages quote the files, which may
 * hold anything); after "readahead-ctl VERB: " unless verb is NULL. */
static void print_problem(FILE *f, const char *verb, const struct ra_diag *d) {
        char where[RA_PATH_MAX + 16];

        if (verb)
                fprintf(f, "readahead-ctl %s: ", verb);
        fprintf_people(f, "%s: %s: %s", ra_diag_where(d, where, sizeof(where)), severity(d), d->message);
        fputc('\n', f);
}

void ctl_config_errors(const struct ra_config *c, const char *verb) {
        if (c->n_errors == 0)
                return;
        for (size_t i = 0; i < c->n_diags; i++)
                if (c->diags[i].level == RA_DIAG_ERROR)
                        print_problem(stderr, verb, &c->diags[i]);
        ctl_error(verb,
                  "%zu configuration error(s): what each names is not applied (see 'readahead-ctl check')",
                  c->n_errors);
}

static int check_json(const struct ra_config *c, size_t n_warnings) {
        struct json j = { .f = stdout };

        json_begin_object(&j, NULL);
        json_string(&j, "profile", c->profile.name);
        json_uint(&j, "rules", c->profile.n_rules);
        json_begin_array(&j, "files");
        for (size_t i = 0; i < c->n_files; i++) {
                json_begin_object(&j, NULL);
                json_string(&j, "file", c->files[i].path);
                json_string(&j, "state", state_json[c->files[i].state]);
                json_boolean(&j, "dropin", c->files[i].dropin);
                json_uint(&j, "dropped_rules", c->files[i].dropped_rules);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_begin_array(&j, "problems");
        for (size_t i = 0; i < c->n_diags; i++) {
                const struct ra_diag *d = &c->diags[i];
                json_begin_object(&j, NULL);
                json_string(&j, "file", d->file);
                json_uint_or_null(&j, "line", d->line > 0, d->line);
                json_string(&j, "severity", severity(d));
                json_string(&j, "message", d->message);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_boolean(&j, "problems_cut", c->n_diags >= RA_DIAGS_MAX);
        json_uint(&j, "errors", c->n_errors);
        json_uint(&j, "warnings", n_warnings);
        json_end_object(&j);
        if (json_finish(&j) < 0)
                return EXIT_FAILURE;
        return c->n_errors > 0 ? EXIT_FAILURE : EXIT_OK;
}

int verb_check(struct ctl *ctl, int argc, char **argv) {
        const struct ra_config *c = ctl->config;
        size_t n_warnings = 0;

        (void) argc;
        (void) argv;
        for (size_t i = 0; i < c->n_diags; i++)
                n_warnings += c->diags[i].level == RA_DIAG_WARNING;
        if (ctl->json)
                return check_json(c, n_warnings);

        for (size_t i = 0; i < c->n_diags; i++)
                print_problem(stdout, NULL, &c->diags[i]);
        if (c->n_diags >= RA_DIAGS_MAX)
                printf("(more problems not shown)\n");

        printf("%sProfile %s: %zu rule(s) from %zu file(s)\n", c->n_diags ? "\n" : "", c->profile.name,
               c->profile.n_rules, c->n_files);
        for (size_t i = 0; i < c->n_files; i++) {
                const struct ra_config_file *f = &c->files[i];
                char state[32];
                if (f->dropped_rules > 0)
                        snprintf(state, sizeof(state), "used (%u dropped)", f->dropped_rules);
                fprintf_people(stdout, "  %-17s %s", f->dropped_rules > 0 ? state : state_names[f->state],
                               f->path);
                putchar('\n');
        }
        printf("%zu error(s), %zu warning(s)\n", c->n_errors, n_warnings);
        return c->n_errors > 0 ? EXIT_FAILURE : EXIT_OK;
}
