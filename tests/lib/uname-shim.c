/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD shim: uname() reports RA_TEST_UNAME_RELEASE as the kernel
 * release, so behaviour that depends on the release (6.17's rotational rule)
 * is tested on any host, as kmod's testsuite fakes uname(). Everything else
 * is the real uname()'s answer; without the variable it changes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

int uname(struct utsname *u) {
        static int (*real_uname)(struct utsname *);
        const char *release = getenv("RA_TEST_UNAME_RELEASE");

        if (!real_uname)
                real_uname = (int (*)(struct utsname *)) dlsym(RTLD_NEXT, "uname");
        if (!real_uname) {
                errno = ENOSYS;
                return -1;
        }
        int r = real_uname(u);
        if (r == 0 && release)
                snprintf(u->release, sizeof(u->release), "%s", release);
        return r;
}
