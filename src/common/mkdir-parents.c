/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "mkdir-parents.h"

int ra_mkdir_parents(char *path) {
        for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                int r = mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
                *s = '/';
                if (r < 0)
                        return r;
        }
        return 0;
}
