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

int verb_check(struct ctl *ctl, int argc, char **argv) {
        const struct ra_config *c = ctl->config;
        size_t n_warnings = 0;

        (void) argc;
        (void) argv;
        for (size_t i = 0; i < c->n_diags; i++) {
                const struct ra_diag *d = &c->diags[i];
                const char *level = d->level == RA_DIAG_ERROR ? "error" : "warning";
                /* Messages quote the files, which may hold anything. */
                ra_fputs_people(stdout, d->file);
                if (d->line > 0)
                        printf(":%u", d->line);
                printf(": %s: ", level);
                ra_fputs_people(stdout, d->message);
                printf("\n");
                n_warnings += d->level == RA_DIAG_WARNING;
        }
        if (c->n_diags >= RA_DIAGS_MAX)
                printf("(more problems not shown)\n");

        printf("%sProfile %s: %zu rule(s) from %zu file(s)\n", c->n_diags ? "\n" : "", c->profile.name,
               c->profile.n_rules, c->n_files);
        for (size_t i = 0; i < c->n_files; i++) {
                fprintf_people(stdout, "  %-17s %s", state_names[c->files[i].state], c->files[i].path);
                putchar('\n');
        }
        printf("%zu error(s), %zu warning(s)\n", c->n_errors, n_warnings);
        return c->n_errors > 0 ? EXIT_FAILURE_ : EXIT_OK;
}
