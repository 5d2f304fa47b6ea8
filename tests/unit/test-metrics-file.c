/* SPDX-License-Identifier: MIT */
/*
 * The --metrics-file's safe write (src/agent/metrics-file.c), in a directory
 * below $TMPDIR per case: what anyone who can write the directory plants
 * there (a symbolic link at the old "<file>.tmp" name or at the file, a
 * FIFO, a directory, the temporary's name swapped for a link between open
 * and commit) is never opened or followed, and no temporary is left behind.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "metrics-file.h"
#include "test.h"
#include "test-util.h"

static char dir[PATH_MAX], path[PATH_MAX + 32];

static void dir_setup(void) {
        const char *tmp = getenv("TMPDIR");

        snprintf(dir, sizeof(dir), "%s/ra-unit-metrics.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
                perror("mkdtemp");
                abort();
        }
        snprintf(path, sizeof(path), "%s/readahead.prom", dir);
}

/* The directory's entries, "." and ".." aside: a temporary left behind shows. */
static int entries(void) {
        DIR *d = opendir(dir);
        struct dirent *de;
        int n = 0;

        if (!d)
                return -1;
        while ((de = readdir(d)))
                n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
        return n;
}

static void write_str(struct metrics_file *m, const char *s) {
        REQUIRE(write(m->fd, s, strlen(s)) == (ssize_t) strlen(s));
}

static void test_writes_and_renames(void) {
        struct metrics_file m;

        dir_setup();
        test_write_bytes(path, "old\n", 4);
        CHECK_INT(0, metrics_file_open(path, &m));
        CHECK(m.tmp[0] == '.'); /* hidden, and not *.prom: node_exporter skips it */
        write_str(&m, "gauges\n");
        CHECK_INT(0, metrics_file_append_success(&m, 1700000000));
        CHECK_INT(0, metrics_file_commit(&m));
        char *got = test_read_file(path, NULL);
        CHECK_STR("gauges\n# HELP readahead_metrics_last_success_timestamp_seconds When readahead-agent last "
                  "wrote this file whole (readahead-ctl status exited 0).\n"
                  "# TYPE readahead_metrics_last_success_timestamp_seconds gauge\n"
                  "readahead_metrics_last_success_timestamp_seconds 1700000000\n",
                  got);
        free(got);
        struct stat st;
        REQUIRE(stat(path, &st) == 0);
        CHECK_INT(0644, st.st_mode & 07777);
        CHECK_INT(1, entries());
        test_rm_rf(dir);
}

static void test_link_at_old_tmp_name_not_followed(void) {
        struct metrics_file m;
        char victim[PATH_MAX + 32], tmp_link[PATH_MAX + 32];

        dir_setup();
        snprintf(victim, sizeof(victim), "%s/victim", dir);
        snprintf(tmp_link, sizeof(tmp_link), "%s.tmp", path);
        test_write_bytes(victim, "victim\n", 7);
        REQUIRE(symlink(victim, tmp_link) == 0);
        CHECK_INT(0, metrics_file_open(path, &m));
        write_str(&m, "gauges\n");
        CHECK_INT(0, metrics_file_commit(&m));
        char *got = test_read_file(victim, NULL);
        CHECK_STR("victim\n", got);
        free(got);
        test_rm_rf(dir);
}

static void test_link_at_target_refused(void) {
        struct metrics_file m;
        char victim[PATH_MAX + 32];

        dir_setup();
        snprintf(victim, sizeof(victim), "%s/victim", dir);
        test_write_bytes(victim, "victim\n", 7);
        REQUIRE(symlink(victim, path) == 0);
        CHECK_INT(-EEXIST, metrics_file_open(path, &m));
        CHECK_STR("a symbolic link", metrics_file_mode_name(m.target_mode));
        char *got = test_read_file(victim, NULL);
        CHECK_STR("victim\n", got);
        free(got);
        CHECK_INT(2, entries()); /* the victim and the link, nothing else */
        test_rm_rf(dir);
}

static void test_fifo_and_directory_refused(void) {
        struct metrics_file m;

        dir_setup();
        REQUIRE(mkfifo(path, 0600) == 0);
        CHECK_INT(-EEXIST, metrics_file_open(path, &m));
        CHECK_STR("a FIFO", metrics_file_mode_name(m.target_mode));
        REQUIRE(unlink(path) == 0);
        REQUIRE(mkdir(path, 0755) == 0);
        CHECK_INT(-EEXIST, metrics_file_open(path, &m));
        CHECK_STR("a directory", metrics_file_mode_name(m.target_mode));
        CHECK_INT(1, entries());
        test_rm_rf(dir);
}

static void test_target_swapped_before_commit(void) {
        struct metrics_file m;
        char victim[PATH_MAX + 32];

        dir_setup();
        snprintf(victim, sizeof(victim), "%s/victim", dir);
        test_write_bytes(victim, "victim\n", 7);
        CHECK_INT(0, metrics_file_open(path, &m));
        write_str(&m, "gauges\n");
        REQUIRE(symlink(victim, path) == 0); /* planted while readahead-ctl ran */
        CHECK_INT(-EEXIST, metrics_file_commit(&m));
        CHECK_INT(-1, m.fd);
        struct stat st;
        REQUIRE(lstat(path, &st) == 0);
        CHECK(S_ISLNK(st.st_mode));
        char *got = test_read_file(victim, NULL);
        CHECK_STR("victim\n", got);
        free(got);
        CHECK_INT(2, entries()); /* the temporary removed */
        test_rm_rf(dir);
}

static void test_abort_removes_temporary(void) {
        struct metrics_file m;

        dir_setup();
        CHECK_INT(0, metrics_file_open(path, &m));
        write_str(&m, "half a fi");
        metrics_file_abort(&m);
        metrics_file_abort(&m); /* twice: harmless */
        CHECK_INT(0, entries());
        test_rm_rf(dir);
}

static void test_missing_directory_and_trailing_slash(void) {
        struct metrics_file m;

        dir_setup();
        char missing[PATH_MAX + 64];
        snprintf(missing, sizeof(missing), "%s/nodir/readahead.prom", dir);
        CHECK_INT(-ENOENT, metrics_file_open(missing, &m));
        snprintf(missing, sizeof(missing), "%s/", dir);
        CHECK_INT(-EISDIR, metrics_file_open(missing, &m));
        test_rm_rf(dir);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_writes_and_renames);
        RUN(test_link_at_old_tmp_name_not_followed);
        RUN(test_link_at_target_refused);
        RUN(test_fifo_and_directory_refused);
        RUN(test_target_swapped_before_commit);
        RUN(test_abort_removes_temporary);
        RUN(test_missing_directory_and_trailing_slash);
        TEST_MAIN_END;
}
