/* SPDX-License-Identifier: MIT */
#include <time.h>
#include <unistd.h>

#include "host.h"

uint64_t now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

bool systemd_running(void) {
        return access("/run/systemd/system", F_OK) == 0;
}
