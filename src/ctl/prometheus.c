/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "advise-prometheus.h"
#include "advise-record.h"
#include "prometheus.h"
#include "status-columns.h"
#include "text.h"

static const char *prometheus_kind(const struct ra_facts *f) {
        return ra_kind_to_string(f->kind);
}

static void put_labels(FILE *out, const struct ra_facts *f) {
        ra_fputs_prometheus_labels(out, f->name, prometheus_kind(f), ra_class_to_string(f->class));
}

void status_prometheus(FILE *out, const struct ctl_device *list, size_t n) {
        for (size_t c = 0; c < _COL_MAX; c++) {
                const struct status_column *col = &status_columns[c];

                if (!col->metric)
                        continue;
                fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", col->metric, col->metric_help, col->metric);
                for (size_t i = 0; i < n; i++) {
                        uint64_t v;

                        if (!status_column_value(&list[i], (enum column_id) c, &v))
                                continue;
                        fputs(col->metric, out);
                        put_labels(out, &list[i].facts);
                        fprintf(out, " %" PRIu64 "\n", col->value == VALUE_KB ? v * 1024 : v);
                }
        }
}

/* The records that name a listed device, kept in the file's order. */
void status_prometheus_last_advice(FILE *out, const char *root, const struct ctl_device *list, size_t n) {
        struct ra_advice_record *r = NULL;
        size_t n_r = 0, kept = 0;

        if (ra_advice_records_load(root, &r, &n_r) < 0 || n_r == 0) {
                free(r);
                return;
        }
        for (size_t i = 0; i < n_r; i++)
                for (size_t k = 0; k < n; k++)
                        if (strcmp(r[i].name, list[k].facts.name) == 0) {
                                r[kept++] = r[i];
                                break;
                        }
        if (kept > 0)
                ra_advice_prometheus(out, r, kept);
        free(r);
}
