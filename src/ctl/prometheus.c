/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "prometheus.h"
#include "status.h"

/* Label values escape backslash, double quote and newline (the exposition
 * format's only escapes); other bytes pass, the format is UTF-8 already. */
static void put_label_value(FILE *out, const char *s) {
        for (; *s; s++)
                switch (*s) {
                case '\\':
                        fputs("\\\\", out);
                        break;
                case '"':
                        fputs("\\\"", out);
                        break;
                case '\n':
                        fputs("\\n", out);
                        break;
                default:
                        fputc(*s, out);
                }
}

void prometheus_put_labels(FILE *out, const char *device, const char *kind, const char *class) {
        fputs("{device=\"", out);
        put_label_value(out, device);
        fprintf(out, "\",kind=\"%s\",class=\"%s\"}", kind, class);
}

const char *prometheus_kind(const struct ra_facts *f) {
        return f->kind == RA_KIND_BLOCK ? "block" : "mount";
}

static void put_labels(FILE *out, const struct ra_facts *f) {
        prometheus_put_labels(out, f->name, prometheus_kind(f), ra_class_to_string(f->class));
}

void status_prometheus(FILE *out, const struct ctl_device *list, size_t n) {
        static const struct {
                const char *name, *help;
        } metrics[] = {
                { "readahead_target_bytes", "read_ahead_kb the active profile chooses, in bytes (absent: left alone)" },
                { "readahead_current_bytes", "read_ahead_kb the kernel holds now, in bytes" },
                { "readahead_drift", "1 when the kernel holds another value than the target" },
        };

        for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
                fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", metrics[m].name, metrics[m].help, metrics[m].name);
                for (size_t i = 0; i < n; i++) {
                        const struct ctl_device *d = &list[i];
                        const struct ra_facts *f = &d->facts;
                        uint64_t v;

                        if (m == 0) {
                                if (!ra_plan_has_target(&d->plan))
                                        continue;
                                v = d->plan.decision.target_kb * 1024;
                        } else if (m == 1) {
                                if (!f->current_known)
                                        continue;
                                v = f->current_kb * 1024;
                        } else
                                v = device_drifts(d) ? 1 : 0;
                        fputs(metrics[m].name, out);
                        put_labels(out, f);
                        fprintf(out, " %" PRIu64 "\n", v);
                }
        }
}
