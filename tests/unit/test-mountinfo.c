/* SPDX-License-Identifier: MIT */
/* The /proc/self/mountinfo parser and the mount facts built from it. */

#include "fileio.h"
#include "mountinfo.h"
#include "test.h"

static const char mountinfo[] =
        "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
        "36 22 0:53 / /mnt/data rw,relatime shared:120 - nfs4 srv:/export rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp\n"
        "37 22 0:530 / /mnt/other rw,relatime - nfs 10.0.0.5:/other rw,vers=3,rsize=32768,wsize=32768\n"
        "38 22 0:54 /sub /srv/my\\040media\\011x rw - cifs //fileserver/share rw,vers=3.1.1,rsize=4194304\n"
        "39 22 0:53 / /mnt/data-bind rw,relatime shared:121 master:7 - nfs4 srv:/export rw,vers=4.2,rsize=1048576\n"
        "this line is not mountinfo at all\n"
        "40 22 0:55 / /home/u/sshfs rw,nosuid,nodev shared:9 - fuse.sshfs u@host:/ rw,user_id=1000\n"
        "41 22 0:56 / /mnt/v6 rw - nfs [fe80::1]:/x rw,vers=4.1,rsize=262144";

static int find(unsigned major, unsigned minor, struct ra_mount *m) {
        ra_mount_done(m);
        return ra_mountinfo_find(mountinfo, sizeof(mountinfo) - 1, major, minor, m);
}

static void test_find_nfs(void) {
        struct ra_mount m = { 0 };

        REQUIRE(find(0, 53, &m) == 1);
        CHECK_INT(0, m.major);
        CHECK_INT(53, m.minor);
        CHECK_STR("/mnt/data", m.mount_point);
        CHECK_STR("nfs4", m.fstype);
        CHECK_STR("srv:/export", m.source);
        CHECK_STR("rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp",
                  m.super_options);
        /* The bind mount of the same superblock further down. */
        CHECK_INT(2, m.n_mount_points);
        ra_mount_done(&m);
}

static void test_find_exact_minor(void) {
        struct ra_mount m = { 0 };

        /* 0:530 is not 0:53 and 0:53 is not 0:5. */
        REQUIRE(find(0, 530, &m) == 1);
        CHECK_STR("/mnt/other", m.mount_point);
        CHECK_STR("nfs", m.fstype);
        CHECK_INT(1, m.n_mount_points);
        CHECK_INT(0, find(0, 5, &m));
        CHECK_INT(0, find(5, 3, &m));
        CHECK_INT(0, find(0, 99, &m));
        ra_mount_done(&m);
}

static void test_find_escapes(void) {
        struct ra_mount m = { 0 };

        /* Spaces and tabs in mount points are written as octal escapes. */
        REQUIRE(find(0, 54, &m) == 1);
        CHECK_STR("/srv/my media\tx", m.mount_point);
        CHECK_STR("cifs", m.fstype);
        CHECK_STR("//fileserver/share", m.source);
        ra_mount_done(&m);
}

static void test_find_last_line_without_newline(void) {
        struct ra_mount m = { 0 };

        REQUIRE(find(0, 56, &m) == 1);
        CHECK_STR("/mnt/v6", m.mount_point);
        CHECK_STR("rw,vers=4.1,rsize=262144", m.super_options);
        ra_mount_done(&m);
}

static void test_find_respects_length(void) {
        struct ra_mount m = { 0 };
        /* Only the first line is inside len. */
        size_t len = strlen("22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n");

        CHECK_INT(1, ra_mountinfo_find(mountinfo, len, 259, 2, &m));
        ra_mount_done(&m);
        CHECK_INT(0, ra_mountinfo_find(mountinfo, len, 0, 53, &m));
        CHECK_INT(0, ra_mountinfo_find("", 0, 0, 53, &m));
        ra_mount_done(&m);
}

static int count_cb(const struct ra_mount *m, void *userdata);

static void test_malformed_lines_skipped(void) {
        static const char text[] =
                "36 22 0:60 / /a rw shared:1 nfs4 srv:/x rw\n"          /* no " - " */
                "36 22 0:60 / /b rw - nfs4\n"                           /* too short */
                "36 22 zz:60 / /c rw - nfs4 srv:/x rw\n"                /* bad device */
                "36 22 00:60 / /e rw - nfs4 srv:/x rw\n"                /* not as the kernel writes it: */
                "36 22 0:060 / /f rw - nfs4 srv:/x rw\n"                /* leading zeros, a sign, */
                "36 22 +0:60 / /g rw - nfs4 srv:/x rw\n"                /* a NUL in the field */
                "36 22 0:60\0- / /h rw - nfs4 srv:/x rw\n"
                "\n"
                "36 22 0:60 / /d rw - nfs4 srv:/x rw,rsize=65536\n";   /* the good one */
        struct ra_mount m = { 0 };

        REQUIRE(ra_mountinfo_find(text, sizeof(text) - 1, 0, 60, &m) == 1);
        CHECK_STR("/d", m.mount_point);
        CHECK_INT(1, m.n_mount_points);
        ra_mount_done(&m);
        /* A walk over every line sees what a lookup sees: the good one only. */
        unsigned n = 0;
        CHECK_INT(0, ra_mountinfo_foreach(text, sizeof(text) - 1, count_cb, &n));
        CHECK_INT(1, n);
}

static int count_cb(const struct ra_mount *m, void *userdata) {
        unsigned *n = userdata;

        (void)m;
        (*n)++;
        return 0;
}

static int stop_at_cifs(const struct ra_mount *m, void *userdata) {
        unsigned *n = userdata;

        (*n)++;
        return strcmp(m->fstype, "cifs") == 0 ? 42 : 0;
}

static void test_foreach(void) {
        unsigned n = 0;

        /* Seven well-formed lines; the garbage line is skipped. */
        CHECK_INT(0, ra_mountinfo_foreach(mountinfo, sizeof(mountinfo) - 1, count_cb, &n));
        CHECK_INT(7, n);

        n = 0;
        CHECK_INT(42, ra_mountinfo_foreach(mountinfo, sizeof(mountinfo) - 1, stop_at_cifs, &n));
        CHECK_INT(4, n);
}

static void test_option_u64(void) {
        const char *o = "rw,vers=4.2,rsize=1048576,wsize=524288,hard";

        CHECK_U64(1048576, ra_mount_option_u64(o, "rsize"));
        CHECK_U64(524288, ra_mount_option_u64(o, "wsize"));
        CHECK_U64(0, ra_mount_option_u64(o, "timeo"));
        CHECK_U64(0, ra_mount_option_u64(o, "hard"));      /* no value */
        CHECK_U64(0, ra_mount_option_u64(o, "size"));      /* not a suffix match */
        CHECK_U64(7, ra_mount_option_u64("xrsize=5,rsize=7", "rsize"));
        CHECK_U64(0, ra_mount_option_u64("rsize=abc", "rsize"));
        CHECK_U64(0, ra_mount_option_u64("rsize=", "rsize"));
        CHECK_U64(0, ra_mount_option_u64("rsize=12k", "rsize"));
        CHECK_U64(0, ra_mount_option_u64("rsize=99999999999999999999", "rsize"));
        /* 2^64-1 is a number (issue 34: it was refused as invalid); 2^64 is not */
        bool invalid = true;
        CHECK_U64(UINT64_MAX, ra_mount_option_u64_checked("rsize=18446744073709551615", "rsize", &invalid));
        CHECK(!invalid);
        CHECK_U64(0, ra_mount_option_u64_checked("rsize=18446744073709551616", "rsize", &invalid));
        CHECK(invalid);
        CHECK_U64(18446744073709551610u, ra_mount_option_u64("rsize=18446744073709551610", "rsize"));
        CHECK_U64(65536, ra_mount_option_u64("rsize=65536", "rsize"));
        CHECK_U64(0, ra_mount_option_u64("", "rsize"));
}

static void test_option_value(void) {
        const char *v;
        size_t l = 0;

        v = ra_mount_option_value("rw,vers=4.2,rsize=1", "vers", &l);
        REQUIRE(v != NULL);
        CHECK_INT(3, l);
        CHECK(strncmp(v, "4.2", 3) == 0);
        CHECK(ra_mount_option_value("rw,rsize=1", "vers", &l) == NULL);
        v = ra_mount_option_value("rw,nfsvers=3,vers=4", "vers", &l);
        REQUIRE(v != NULL);
        CHECK_INT(1, l);
        CHECK(*v == '4');
}

/* A value is either a number or refused, never cut or wrapped. */
static void test_option_u64_checked(void) {
        bool invalid = true;

        CHECK_U64(1048576, ra_mount_option_u64_checked("rsize=1048576", "rsize", &invalid));
        CHECK(!invalid);
        CHECK_U64(0, ra_mount_option_u64_checked("rw", "rsize", &invalid));
        CHECK(!invalid);
        CHECK_U64(0, ra_mount_option_u64_checked("rsize=99999999999999999999", "rsize", &invalid));
        CHECK(invalid);
        CHECK_U64(0, ra_mount_option_u64_checked("rsize=-1", "rsize", &invalid));
        CHECK(invalid);
}

static void check_server(const char *source, const char *expected) {
        size_t l = 0;
        const char *s = ra_mount_server(source, &l);

        if (!expected) {
                CHECK(s == NULL);
                return;
        }
        REQUIRE(s != NULL);
        CHECK_INT(strlen(expected), l);
        CHECK(strncmp(s, expected, l) == 0);
}

static void test_server(void) {
        check_server("srv:/export", "srv");
        check_server("10.0.0.5:/data", "10.0.0.5");
        check_server("//fileserver/share", "fileserver");
        check_server("[fe80::1]:/x", "fe80::1");
        check_server("u@host:/", "host");
        check_server("", NULL);
}

/*
 * A mount point of 308 bytes of CJK (102 characters, more than a 256-byte
 * buffer), options beyond 1 KiB with rsize= at the end: both whole.
 */
static void test_long_fields_whole(void) {
        char mount_point[400] = "/mnt/", options[2048] = "rw", line[4096];
        struct ra_mount m = { 0 };
        struct ra_facts f;

        for (int i = 0; i < 101; i++)
                strcat(mount_point, "\xe9\x95\xbf"); /* U+957F, 3 bytes */
        CHECK_INT(308, strlen(mount_point));
        for (int i = 0; strlen(options) < 1100; i++)
                snprintf(options + strlen(options), sizeof(options) - strlen(options), ",opt%d=%d", i, i);
        strcat(options, ",rsize=1048576");
        snprintf(line, sizeof(line), "40 27 0:53 / %s rw - nfs4 srv:/export %s\n", mount_point, options);

        REQUIRE(ra_mountinfo_find(line, strlen(line), 0, 53, &m) == 1);
        CHECK_STR(mount_point, m.mount_point);
        CHECK_STR(options, m.super_options);
        ra_facts_init(&f);
        CHECK_INT(0, ra_facts_from_mount(&f, "0:53", &m));
        CHECK_STR(mount_point, f.mount_point);
        CHECK_U64(1048576, f.rsize_bytes);
        ra_facts_done(&f);
        ra_mount_done(&m);
}

/* mountinfo of any size is read whole; beyond the limit, an error. */
static void test_read_whole_file(void) {
        char path[] = "/tmp/ra-test-mountinfo.XXXXXX";
        int fd = mkstemp(path);
        char *text = NULL;
        size_t len = 0;
        char block[4096];

        REQUIRE(fd >= 0);
        memset(block, 'x', sizeof(block));
        /* 9 MiB and one line after it. */
        for (int i = 0; i < 9 * 256; i++)
                REQUIRE(write(fd, block, sizeof(block)) == (ssize_t) sizeof(block));
        REQUIRE(write(fd, "\nend\n", 5) == 5);
        close(fd);

        CHECK_INT(0, ra_read_whole_file(path, RA_MOUNTINFO_MAX_BYTES, &text, &len));
        CHECK_U64(9u * 1024 * 1024 + 5, len);
        if (text)
                CHECK_STR("\nend\n", text + len - 5);
        free(text);
        text = NULL;
        /* Exactly the limit fits; one byte less is too large, and says so. */
        CHECK_INT(0, ra_read_whole_file(path, 9u * 1024 * 1024 + 5, &text, &len));
        free(text);
        text = NULL;
        CHECK_INT(-EFBIG, ra_read_whole_file(path, 9u * 1024 * 1024 + 4, &text, &len));
        CHECK(text == NULL);
        unlink(path);
}

static void test_bdi_name(void) {
        unsigned major = 99, minor = 99;

        CHECK_INT(0, ra_parse_bdi_name("0:53", &major, &minor));
        CHECK_INT(0, major);
        CHECK_INT(53, minor);
        CHECK_INT(0, ra_parse_bdi_name("0:54-fuseblk", &major, &minor));
        CHECK_INT(54, minor);

        major = minor = 99;
        CHECK_INT(-EINVAL, ra_parse_bdi_name("", &major, &minor));
        CHECK_INT(-EINVAL, ra_parse_bdi_name("abc", &major, &minor));
        CHECK_INT(-EINVAL, ra_parse_bdi_name("0:", &major, &minor));
        CHECK_INT(-EINVAL, ra_parse_bdi_name(":53", &major, &minor));
        CHECK_INT(-EINVAL, ra_parse_bdi_name("0:53x", &major, &minor));
        CHECK_INT(-EINVAL, ra_parse_bdi_name("0:-1", &major, &minor));
        CHECK_INT(-EINVAL, ra_parse_bdi_name("0:99999999999", &major, &minor));
        CHECK_INT(99, major);
        CHECK_INT(99, minor);
}

static void test_facts_from_mount(void) {
        struct ra_mount m = { 0 };
        struct ra_facts f;

        REQUIRE(find(0, 53, &m) == 1);
        ra_facts_init(&f);
        ra_facts_from_mount(&f, "0:53", &m);
        CHECK_INT(RA_KIND_MOUNT, f.kind);
        CHECK_STR("0:53", f.name);
        CHECK_INT(0, f.major);
        CHECK_INT(53, f.minor);
        CHECK_STR("/mnt/data", f.mount_point);
        CHECK_INT(2, f.n_mount_points);
        CHECK_STR("nfs4", f.fstype);
        CHECK_STR("srv", f.server);
        CHECK_U64(1048576, f.rsize_bytes);
        CHECK_STR("4.2", f.nfs_version);
        CHECK_STR("nfs", ra_class_to_string(f.class));
        ra_facts_done(&f);

        REQUIRE(find(0, 55, &m) == 1);
        ra_facts_init(&f);
        ra_facts_from_mount(&f, "0:55", &m);
        CHECK_STR("fuse", ra_class_to_string(f.class));
        CHECK_U64(0, f.rsize_bytes);
        ra_facts_done(&f);

        REQUIRE(find(0, 54, &m) == 1);
        ra_facts_init(&f);
        ra_facts_from_mount(&f, "0:54", &m);
        CHECK_STR("netfs", ra_class_to_string(f.class));
        CHECK_STR("fileserver", f.server);
        ra_facts_done(&f);
        ra_mount_done(&m);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_find_nfs);
        RUN(test_find_exact_minor);
        RUN(test_find_escapes);
        RUN(test_find_last_line_without_newline);
        RUN(test_find_respects_length);
        RUN(test_malformed_lines_skipped);
        RUN(test_foreach);
        RUN(test_option_u64);
        RUN(test_option_value);
        RUN(test_option_u64_checked);
        RUN(test_server);
        RUN(test_long_fields_whole);
        RUN(test_read_whole_file);
        RUN(test_bdi_name);
        RUN(test_facts_from_mount);
        TEST_MAIN_END;
}
