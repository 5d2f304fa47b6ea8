/* SPDX-License-Identifier: MIT */
/* advise's window (advise-sample.h) where it is pure: which evidence a
 * device gives, and that each source keeps its own shape (an NFS mount's
 * bytes are the server's, not sectors). */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "advise-sample.h"
#include "test.h"

static void test_target_of(void) {
        struct ra_facts f = { .kind = RA_KIND_BLOCK, .class = RA_CLASS_HDD, .major = 8, .minor = 16,
                              .page_kb = 4 };
        struct ra_advise_target t = ra_advise_target_of(&f);

        CHECK_INT(RA_EVIDENCE_DISK, t.source);
        CHECK_INT(8, (int) t.major);
        CHECK_INT(16, (int) t.minor);
        CHECK(!t.mount_point);
        CHECK(!ra_advise_is_nfs(&f));

        char mp[] = "/mnt/data";
        struct ra_facts nfs = { .kind = RA_KIND_MOUNT, .class = RA_CLASS_NFS, .major = 0, .minor = 53,
                                .rsize_bytes = 1048576 };
        nfs.mount_point = mp;
        CHECK(ra_advise_is_nfs(&nfs));
        t = ra_advise_target_of(&nfs);
        CHECK_INT(RA_EVIDENCE_NFS, t.source);
        CHECK_STR("/mnt/data", t.mount_point);
        CHECK_U64(1024, t.rsize_kb);
        CHECK_INT(53, (int) t.minor);
        /* another network mount has no counters of its own: watched as a disk is, it finds none */
        struct ra_facts cifs = nfs;
        cifs.class = RA_CLASS_NETFS;
        CHECK(!ra_advise_is_nfs(&cifs));
        CHECK_INT(RA_EVIDENCE_DISK, ra_advise_target_of(&cifs).source);
}

/* An NFS mount's evidence is its own: bytes the server sent and READs,
 * never rounded to 512-byte sectors. */
static void test_evidence_shapes(void) {
        struct ra_evidence nfs = { .source = RA_EVIDENCE_NFS };
        nfs.nfs.read.server_read_bytes = 1048577;
        nfs.nfs.read.read_ops = 9;
        CHECK_U64(1048577, ra_evidence_read_bytes(&nfs));
        CHECK_U64(9, ra_evidence_read_ios(&nfs));

        struct ra_evidence disk = { .source = RA_EVIDENCE_DISK };
        disk.disk.disk.read_sectors = 2048;
        disk.disk.disk.read_ios = 8;
        CHECK_U64(1048576, ra_evidence_read_bytes(&disk));
        CHECK_U64(8, ra_evidence_read_ios(&disk));
}

/* Each source goes to its own decision. */
static void test_evidence_decides(void) {
        const struct ra_advise_limits l = { .read_ahead_kb = 128, .minimum_kb = 32, .maximum_kb = 131072,
                                            .page_kb = 4 };
        struct ra_evidence nfs = { .source = RA_EVIDENCE_NFS }, disk = { .source = RA_EVIDENCE_DISK };
        struct ra_advice a;

        nfs.nfs.seconds = 3;
        ra_advise_evidence(&nfs, &l, &a);
        CHECK_STR("no NFS reads in 3 s", a.reason);
        disk.disk.seconds = 3;
        ra_advise_evidence(&disk, &l, &a);
        CHECK_STR("no reads in 3 s", a.reason);
}

/* A file of `bytes` (sparse) below $TMPDIR; its path in buf. */
static void big_file(char *buf, size_t size, off_t bytes) {
        const char *tmp = getenv("TMPDIR");
        snprintf(buf, size, "%s/ra-unit-mountstats.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        int fd = mkstemp(buf);
        if (fd < 0 || ftruncate(fd, bytes) < 0)
                abort();
        close(fd);
}

/* Issue 34: a mountstats over its limit made all of advise fail, disks
 * too, with an error that named no file. Now the NFS mount has no
 * evidence, the disk keeps its own, and the window names the file. */
static void test_mountstats_too_large(void) {
        char path[PATH_MAX];
        big_file(path, sizeof(path), (off_t) RA_MOUNTSTATS_MAX_BYTES + 1);
        const struct ra_advise_target t[] = {
                { .source = RA_EVIDENCE_DISK, .major = 7, .minor = 0, .page_kb = 4 },
                { .source = RA_EVIDENCE_NFS, .major = 0, .minor = 53, .mount_point = "/mnt/data",
                  .rsize_kb = 1024, .page_kb = 4 },
        };
        struct ra_advise_window *w;
        const char *named;

        REQUIRE(ra_advise_window_new(t, 2, path, &w) == 0);
        CHECK_INT(0, ra_advise_window_sample(w, 1.0));
        CHECK_INT(0, ra_advise_window_sample(w, 2.0));
        CHECK_INT(-EFBIG, ra_advise_window_mountstats_error(w, &named));
        CHECK_STR(path, named);
        const struct ra_evidence *e = ra_advise_window_evidence(w, 1);
        CHECK(e->nfs.mountstats_unread);
        struct ra_advice a;
        const struct ra_advise_limits l = { .read_ahead_kb = 128, .page_kb = 4 };
        ra_advise_evidence(e, &l, &a);
        CHECK_STR("no READ counters: mountstats could not be read", a.reason);
        CHECK(ra_advise_window_evidence(w, 0)->disk.seconds > 0.9); /* the disk's window went on */
        ra_advise_window_free(w);
        unlink(path);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_target_of);
        RUN(test_evidence_shapes);
        RUN(test_evidence_decides);
        RUN(test_mountstats_too_large);
        TEST_MAIN_END;
}
