/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "advise-prometheus.h"
#include "text.h"

const struct ra_advice_gauge_info ra_advice_gauges[_RA_ADVICE_GAUGE_MAX] = {
        [RA_ADVICE_GAUGE_ADVICE] = { "readahead_advice",
                                     "the last advice (readahead-ctl advise, readahead-agent --advise-sec): 1 raise, "
                                     "0 keep, -1 lower (absent: no signal)" },
        [RA_ADVICE_GAUGE_SUGGESTED] = { "readahead_advice_suggested_bytes",
                                        "read_ahead_kb that advice suggests, in bytes" },
        [RA_ADVICE_GAUGE_MADE] = { "readahead_advice_timestamp_seconds",
                                   "when that advice was made, seconds since the epoch" },
};

static void put_value(FILE *out, enum ra_advice_gauge g, const struct ra_advice_record *r) {
        switch (g) {
        case RA_ADVICE_GAUGE_ADVICE:
                fprintf(out, " %d\n", r->gauge);
                break;
        case RA_ADVICE_GAUGE_SUGGESTED:
                fprintf(out, " %" PRIu64 "\n", r->suggested_kb * 1024);
                break;
        case RA_ADVICE_GAUGE_MADE:
                fprintf(out, " %" PRId64 "\n", r->made);
                break;
        default:
                break;
        }
}

void ra_advice_prometheus(FILE *out, const struct ra_advice_record *r, size_t n) {
        for (size_t g = 0; g < _RA_ADVICE_GAUGE_MAX; g++) {
                const char *name = ra_advice_gauges[g].name;
                fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, ra_advice_gauges[g].help, name);
                for (size_t i = 0; i < n; i++) {
                        fputs(name, out);
                        ra_fputs_prometheus_labels(out, r[i].name, r[i].kind, r[i].class);
                        put_value(out, (enum ra_advice_gauge) g, &r[i]);
                }
        }
}
