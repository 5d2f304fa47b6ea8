/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "mount-wait.h"

enum mount_wait_result mount_wait(const struct mount_wait_ops *ops, unsigned timeout_sec, int *ret_error) {
        const uint64_t deadline = ops->now_ms(ops->userdata) + (uint64_t) timeout_sec * 1000;
        unsigned step_ms = MOUNT_WAIT_FIRST_STEP_MS;

        for (;;) {
                int r = ops->lookup(ops->userdata);
                if (r == 0)
                        return MOUNT_WAIT_FOUND;
                if (r == -ENODEV)
                        return MOUNT_WAIT_GONE;
                if (r != -ENOENT) {
                        if (ret_error)
                                *ret_error = r;
                        return MOUNT_WAIT_ERROR;
                }
                uint64_t now = ops->now_ms(ops->userdata);
                if (now >= deadline)
                        return MOUNT_WAIT_TIMEOUT;
                ops->sleep(ops->userdata, deadline - now < step_ms ? (unsigned) (deadline - now) : step_ms);
                step_ms = step_ms * 2 > MOUNT_WAIT_MAX_STEP_MS ? MOUNT_WAIT_MAX_STEP_MS : step_ms * 2;
        }
}
