/* SPDX-License-Identifier: MIT */
#include "advise-attrib.h"

bool ra_attribute_cgroup(const struct ra_cgroup_delta *d, const double *weights, size_t n,
                         struct ra_events *per_device, struct ra_events *explained) {
        double sum = 0;
        for (size_t i = 0; i < n; i++)
                sum += weights[i] > 0 ? weights[i] : 0;
        if (sum <= 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (weights[i] <= 0)
                        continue;
                double share = weights[i] / sum;
                per_device[i].majfaults += share * d->ev.majfaults;
                per_device[i].process_majfaults += share * d->ev.process_majfaults;
                per_device[i].refault_pages += share * d->ev.refault_pages;
                if (d->have_steal)
                        per_device[i].steal_pages += share * d->ev.steal_pages;
        }
        explained->majfaults += d->ev.majfaults;
        explained->process_majfaults += d->ev.process_majfaults;
        explained->refault_pages += d->ev.refault_pages;
        if (d->have_steal)
                explained->steal_pages += d->ev.steal_pages;
        return true;
}

bool ra_attribute_process(double majfaults, const double *weights, size_t n, struct ra_events *per_device,
                          struct ra_events *explained) {
        const struct ra_cgroup_delta d = { .ev = { .majfaults = majfaults, .process_majfaults = majfaults } };
        return ra_attribute_cgroup(&d, weights, n, per_device, explained);
}

bool ra_cgroup_events_plausible(const struct ra_events *ev, double seconds) {
        const double pages = (seconds > 0 ? seconds : 0) * (double) (UINT64_C(1) << 30);
        return ev->majfaults <= pages && ev->refault_pages <= pages && ev->steal_pages <= pages;
}

bool ra_cgroup_reads_plausible(double read_bytes, double seconds) {
        return read_bytes <= (seconds > 0 ? seconds : 0) * (double) (UINT64_C(1) << 42);
}

static double rest(double host, double explained) {
        return host > explained ? host - explained : 0;
}

struct ra_events ra_events_unexplained(const struct ra_events *host, const struct ra_events *explained) {
        return (struct ra_events){
                .majfaults = rest(host->majfaults, explained->majfaults),
                .refault_pages = rest(host->refault_pages, explained->refault_pages),
                .steal_pages = rest(host->steal_pages, explained->steal_pages),
        };
}
