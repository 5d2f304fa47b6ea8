/* SPDX-License-Identifier: MIT */
/* advise's window (advise-sample.h) where it is pure: which evidence a
 * device gives, and that each source keeps its own shape (an NFS mount's
 * bytes are the server's, not sectors). */

#include <errno.h>
#include <fcntl.h>
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

/* A file of `bytes` (sparse) at path. */
static void big_file(const char *path, off_t bytes) {
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || ftruncate(fd, bytes) < 0)
                abort();
        close(fd);
}

/* Issue 34: a mountstats over its limit made all of advise fail, disks
 * too, with an error that named no file. Now the NFS mount has no
 * evidence, the disk keeps its own, and the window names the file. */
static void test_mountstats_too_large(void) {
        char path[PATH_MAX], dir[PATH_MAX], mountinfo[PATH_MAX + 16];
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof(dir), "%s/ra-unit-ns.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        REQUIRE(mkdtemp(dir));
        snprintf(mountinfo, sizeof(mountinfo), "%s/mountinfo", dir);
        snprintf(path, sizeof(path), "%s/mountstats", dir);
        big_file(path, (off_t) RA_MOUNTSTATS_MAX_BYTES + 1);
        const struct ra_advise_target t[] = {
                { .source = RA_EVIDENCE_DISK, .major = 7, .minor = 0, .page_kb = 4 },
                { .source = RA_EVIDENCE_NFS, .major = 0, .minor = 53, .mount_point = "/mnt/data",
                  .rsize_kb = 1024, .page_kb = 4 },
        };
        struct ra_advise_window *w;
        const char *named;

        REQUIRE(ra_advise_window_new(t, 2, mountinfo, &w) == 0); /* mountstats beside it */
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
        rmdir(dir);
}

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                abort();
}

/* A scratch directory holding a mountinfo and a mountstats (its paths in
 * the three buffers, of PATH_MAX + 16 bytes), removed by scratch_done(). */
static void scratch_mounts(const char *name, char *dir, char *mountinfo, char *mountstats,
                           const char *mountinfo_text, const char *mountstats_text) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, PATH_MAX, "%s/ra-unit-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
        REQUIRE(mkdtemp(dir));
        snprintf(mountinfo, PATH_MAX + 16, "%s/mountinfo", dir);
        snprintf(mountstats, PATH_MAX + 16, "%s/mountstats", dir);
        write_text(mountinfo, mountinfo_text);
        write_text(mountstats, mountstats_text);
}

static void scratch_done(const char *dir, const char *mountinfo, const char *mountstats) {
        unlink(mountinfo);
        unlink(mountstats);
        rmdir(dir);
}

/* Issue 34: with two NFS mounts stacked on /mnt/data, the busy upper one
 * (what the path names) reported "no NFS reads": its counters were read
 * at the first entry of its mount point, the idle lower mount's. */
static void test_stacked_mounts(void) {
        static const char mountinfo_text[] =
                "22 1 253:1 / / rw - ext4 /dev/vda1 rw\n"
                "36 22 0:53 / /mnt/data rw,relatime - nfs4 srv:/lower rw,vers=4.2,rsize=1048576\n"
                "38 36 0:54 / /mnt/data rw,relatime - nfs4 srv:/upper rw,vers=4.2,rsize=1048576\n";
        static const char before[] = "device srv:/lower mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
                                     "\tbytes:\t0 0 0 0 0 0 0 0\n"
                                     "\t        READ: 0 0 0 0 0 0 0 0 0\n"
                                     "device srv:/upper mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
                                     "\tbytes:\t0 0 0 0 0 0 0 0\n"
                                     "\t        READ: 0 0 0 0 0 0 0 0 0\n";
        static const char after[] = "device srv:/lower mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
                                    "\tbytes:\t0 0 0 0 0 0 0 0\n"
                                    "\t        READ: 0 0 0 0 0 0 0 0 0\n"
                                    "device srv:/upper mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
                                    "\tbytes:\t20971520 0 0 0 20971520 0 5120 0\n"
                                    "\t        READ: 20 20 0 1800 20973000 1 400 420 0\n";
        char dir[PATH_MAX], mountinfo[PATH_MAX + 16], mountstats[PATH_MAX + 16];
        scratch_mounts("stacked", dir, mountinfo, mountstats, mountinfo_text, before);

        const struct ra_advise_target t[] = {
                { .source = RA_EVIDENCE_NFS, .major = 0, .minor = 54, .mount_point = "/mnt/data",
                  .rsize_kb = 1024, .page_kb = 4 },
                { .source = RA_EVIDENCE_NFS, .major = 0, .minor = 53, .mount_point = "/mnt/data",
                  .rsize_kb = 1024, .page_kb = 4 },
        };
        struct ra_advise_window *w;
        REQUIRE(ra_advise_window_new(t, 2, mountinfo, &w) == 0);
        CHECK_INT(0, ra_advise_window_sample(w, 1.0));
        write_text(mountstats, after);
        CHECK_INT(0, ra_advise_window_sample(w, 2.0));
        CHECK_U64(20971520, ra_evidence_read_bytes(ra_advise_window_evidence(w, 0))); /* the upper */
        CHECK_U64(20, ra_evidence_read_ios(ra_advise_window_evidence(w, 0)));
        CHECK_U64(0, ra_evidence_read_bytes(ra_advise_window_evidence(w, 1))); /* the lower */
        ra_advise_window_free(w);
        scratch_done(dir, mountinfo, mountstats);
}

/* The agent's next window over the same devices goes on from the last
 * sample: it counts only what came after, and its first interval is
 * evidence (there is no first sample to record a baseline). */
static void test_restart(void) {
        static const char mountinfo_text[] =
                "36 22 0:53 / /mnt/data rw,relatime - nfs4 srv:/data rw,vers=4.2,rsize=1048576\n";
        static const char *const stats[] = {
                "device srv:/data mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
                "\tbytes:\t0 0 0 0 0 0 0 0\n"
                "\t        READ: 0 0 0 0 0 0 0 0 0\n",
                "device srv:/data mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
                "\tbytes:\t20971520 0 0 0 20971520 0 5120 0\n"
                "\t        READ: 20 20 0 1800 20973000 1 400 420 0\n",
                "device srv:/data mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
                "\tbytes:\t31457280 0 0 0 31457280 0 7680 0\n"
                "\t        READ: 30 30 0 2700 31459500 2 600 630 0\n",
        };
        char dir[PATH_MAX], mountinfo[PATH_MAX + 16], mountstats[PATH_MAX + 16];
        scratch_mounts("restart", dir, mountinfo, mountstats, mountinfo_text, stats[0]);

        const struct ra_advise_target t[] = {
                { .source = RA_EVIDENCE_NFS, .major = 0, .minor = 53, .mount_point = "/mnt/data",
                  .rsize_kb = 1024, .page_kb = 4 },
        };
        struct ra_advise_window *w;
        REQUIRE(ra_advise_window_new(t, 1, mountinfo, &w) == 0);
        CHECK_INT(0, ra_advise_window_sample(w, 1.0));
        write_text(mountstats, stats[1]);
        CHECK_INT(0, ra_advise_window_sample(w, 2.0));
        CHECK_U64(20971520, ra_evidence_read_bytes(ra_advise_window_evidence(w, 0)));

        ra_advise_window_restart(w);
        const struct ra_evidence *e = ra_advise_window_evidence(w, 0);
        CHECK_INT(RA_EVIDENCE_NFS, e->source);
        CHECK_U64(1024, e->nfs.rsize_kb);
        CHECK_U64(0, ra_evidence_read_bytes(e));
        write_text(mountstats, stats[2]);
        CHECK_INT(0, ra_advise_window_sample(w, 3.0));
        CHECK_U64(10485760, ra_evidence_read_bytes(e)); /* since the sample at 2.0 */
        CHECK_U64(10, ra_evidence_read_ios(e));
        CHECK(e->nfs.seconds > 0.9 && e->nfs.seconds < 1.1);
        ra_advise_window_free(w);
        scratch_done(dir, mountinfo, mountstats);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_target_of);
        RUN(test_evidence_shapes);
        RUN(test_evidence_decides);
        RUN(test_mountstats_too_large);
        RUN(test_stacked_mounts);
        RUN(test_restart);
        TEST_MAIN_END;
}
