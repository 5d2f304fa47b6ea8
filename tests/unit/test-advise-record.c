/* SPDX-License-Identifier: MIT */
/* advise's record (advise-record.h) and its Prometheus gauges
 * (advise-prometheus.h): the record of an advice, what a later run reads
 * back from the file, and the gauges the table prints. Each case keeps its
 * file below $TMPDIR. */

#include <limits.h>

#include "advise-prometheus.h"
#include "advise-record.h"
#include "test-util.h"
#include "test.h"

static struct ra_facts disk(const char *name, uint64_t current_kb) {
        struct ra_facts f = { .kind = RA_KIND_BLOCK, .class = RA_CLASS_HDD, .current_kb = current_kb };
        snprintf(f.name, sizeof(f.name), "%s", name);
        return f;
}

static void test_record_of(void) {
        struct ra_facts f = disk("sda", 2560);
        struct ra_advice a = { .kind = RA_ADVICE_LOWER, .suggested_kb = 640 };
        struct ra_advice_record r;

        CHECK(ra_advice_record_of(&f, &a, false, 1795000000, &r));
        CHECK_STR("sda", r.name);
        CHECK_STR("block", r.kind);
        CHECK_STR("hdd", r.class);
        CHECK_INT(-1, r.gauge);
        CHECK_U64(640, r.suggested_kb);
        CHECK_INT(1795000000, r.made);
        CHECK_U64(640, r.held_kb); /* a lower holds its value */
        /* a keep at a value held goes on holding it; one elsewhere holds nothing */
        a = (struct ra_advice){ .kind = RA_ADVICE_KEEP, .suggested_kb = 2560 };
        CHECK(ra_advice_record_of(&f, &a, true, 1, &r));
        CHECK_INT(0, r.gauge);
        CHECK_U64(2560, r.held_kb);
        CHECK(ra_advice_record_of(&f, &a, false, 1, &r));
        CHECK_U64(0, r.held_kb);
        a.kind = RA_ADVICE_RAISE;
        CHECK(ra_advice_record_of(&f, &a, true, 1, &r));
        CHECK_INT(1, r.gauge);
        CHECK_U64(0, r.held_kb);
        /* the rate before a raise: kept by a raise and a keep, not by a lower */
        a.raise_base_kib_s = 128000;
        CHECK(ra_advice_record_of(&f, &a, false, 1, &r));
        CHECK_U64(128000, r.raise_base_kib_s);
        a.kind = RA_ADVICE_KEEP;
        CHECK(ra_advice_record_of(&f, &a, false, 1, &r));
        CHECK_U64(128000, r.raise_base_kib_s);
        a.kind = RA_ADVICE_LOWER;
        CHECK(ra_advice_record_of(&f, &a, false, 1, &r));
        CHECK_U64(0, r.raise_base_kib_s);
        /* no signal has no record */
        a.kind = RA_ADVICE_NO_SIGNAL;
        CHECK(!ra_advice_record_of(&f, &a, true, 1, &r));
        /* a mount */
        struct ra_facts nfs = { .kind = RA_KIND_MOUNT, .class = RA_CLASS_NFS };
        snprintf(nfs.name, sizeof(nfs.name), "0:53");
        a.kind = RA_ADVICE_KEEP;
        CHECK(ra_advice_record_of(&nfs, &a, false, 1, &r));
        CHECK_STR("mount", r.kind);
        CHECK_STR("nfs", r.class);
}

static void test_records_held(void) {
        const struct ra_advice_record r[] = {
                { .name = "sda", .held_kb = 640 },
                { .name = "sdb", .held_kb = 0 },
        };
        struct ra_facts f = disk("sda", 640);

        CHECK(ra_advice_records_held(r, 2, &f));
        f.current_kb = 1280; /* changed since: not the value lowered to */
        CHECK(!ra_advice_records_held(r, 2, &f));
        f = disk("sdb", 0);
        CHECK(!ra_advice_records_held(r, 2, &f));
        f = disk("sdc", 640);
        CHECK(!ra_advice_records_held(r, 2, &f));
}

/* The rate before a raise counts while the device is at the value raised to. */
static void test_records_raised_from(void) {
        const struct ra_advice_record r[] = {
                { .name = "sda", .gauge = 1, .suggested_kb = 2048, .raise_base_kib_s = 128000 },
                { .name = "sdb", .gauge = 0, .suggested_kb = 512 },
        };
        struct ra_facts f = disk("sda", 2048);

        CHECK_U64(128000, ra_advice_records_raised_from(r, 2, &f));
        f.current_kb = 512; /* the raise was not followed, or undone */
        CHECK_U64(0, ra_advice_records_raised_from(r, 2, &f));
        f = disk("sdb", 512);
        CHECK_U64(0, ra_advice_records_raised_from(r, 2, &f));
        f = disk("sdc", 2048);
        CHECK_U64(0, ra_advice_records_raised_from(r, 2, &f));
}

/* Saved, then read back as the next run and status read it; the devices
 * a run did not watch keep their line. */
static void test_save_load(void) {
        char root[PATH_MAX], path[PATH_MAX + 64];
        const char *tmp = getenv("TMPDIR");
        struct ra_config c = {};
        struct ra_advice_record *got = NULL;
        size_t n = 0;

        snprintf(root, sizeof(root), "%s/ra-unit-record.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        REQUIRE(mkdtemp(root));
        snprintf(c.root, sizeof(c.root), "%s", root);
        CHECK_INT(0, ra_advice_records_load(root, &got, &n)); /* no file: none */
        CHECK_U64(0, n);
        free(got);

        struct ra_advice_record first[] = {
                { .name = "sda", .kind = "block", .class = "hdd", .gauge = -1, .suggested_kb = 640,
                  .made = 10, .held_kb = 640 },
                { .name = "0:53", .kind = "mount", .class = "nfs", .gauge = 1, .suggested_kb = 4096, .made = 11 },
                { .name = "sdb", .kind = "block", .class = "ssd", .gauge = 1, .suggested_kb = 2048, .made = 12,
                  .raise_base_kib_s = 128000 },
        };
        const char *watched_first[] = { "sda", "0:53", "sdb" };
        CHECK_INT(0, ra_advice_records_save(&c, first, 3, watched_first, 3));
        snprintf(path, sizeof(path), "%s/run/readahead-agent/advice", root);
        size_t len;
        char *text = test_read_file(path, &len);
        CHECK_STR("sda\tblock\thdd\t-1\t640\t10\t640\t0\n0:53\tmount\tnfs\t1\t4096\t11\t0\t0\n"
                  "sdb\tblock\tssd\t1\t2048\t12\t0\t128000\n",
                  text);
        free(text);
        CHECK_INT(0, ra_advice_records_load(root, &got, &n));
        REQUIRE(n == 3);
        CHECK_U64(128000, got[2].raise_base_kib_s);
        free(got);

        /* a run that watched sda only and found no signal there */
        const char *watched_second[] = { "sda" };
        CHECK_INT(0, ra_advice_records_save(&c, NULL, 0, watched_second, 1));
        CHECK_INT(0, ra_advice_records_load(root, &got, &n));
        REQUIRE(n == 2);
        CHECK_STR("0:53", got[0].name);
        CHECK_U64(4096, got[0].suggested_kb);
        free(got);

        /* lines of the earlier formats (six and seven fields) read their
         * missing fields as 0; a ninth field is not ours */
        const char older[] = "sda\tblock\thdd\t1\t512\t10\n"
                             "sdb\tblock\thdd\t-1\t640\t10\t640\n"
                             "sdc\tblock\tssd\t1\t2048\t12\t0\t128000\t7\n";
        test_write_bytes(path, older, sizeof(older) - 1);
        CHECK_INT(0, ra_advice_records_load(root, &got, &n));
        REQUIRE(n == 2);
        CHECK_STR("sda", got[0].name);
        CHECK_U64(0, got[0].held_kb);
        CHECK_U64(0, got[0].raise_base_kib_s);
        CHECK_STR("sdb", got[1].name);
        CHECK_U64(640, got[1].held_kb);
        CHECK_U64(0, got[1].raise_base_kib_s);
        free(got);

        /* a time that is negative, past int64_t or not a number: the line is
         * refused, the others load */
        const char bad_made[] = "sda\tblock\thdd\t1\t512\t-10\n"
                                "sdb\tblock\thdd\t1\t512\t9223372036854775808\n"
                                "sdc\tblock\thdd\t1\t512\t10s\n"
                                "sdd\tblock\thdd\t1\t512\t9223372036854775807\n";
        test_write_bytes(path, bad_made, sizeof(bad_made) - 1);
        CHECK_INT(0, ra_advice_records_load(root, &got, &n));
        REQUIRE(n == 1);
        CHECK_STR("sdd", got[0].name);
        CHECK_INT(INT64_MAX, got[0].made);
        free(got);

        /* a refused root writes nothing */
        c.root_refused = true;
        CHECK_INT(-ENAMETOOLONG, ra_advice_records_save(&c, first, 3, watched_first, 3));
        test_rm_rf(root);
}

/* The gauges come from the table, in its order, each with HELP and TYPE. */
static void test_prometheus(void) {
        const struct ra_advice_record r[] = {
                { .name = "sda", .kind = "block", .class = "hdd", .gauge = 1, .suggested_kb = 1024,
                  .made = 1795000000 },
                { .name = "a\"b", .kind = "mount", .class = "nfs", .gauge = -1, .suggested_kb = 128,
                  .made = 1795000100 },
        };
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        REQUIRE(f);
        ra_advice_prometheus(f, r, 2);
        fclose(f);
        CHECK_STR("# HELP readahead_advice the last advice (readahead-ctl advise, readahead-agent "
                  "--advise-sec): 1 raise, 0 keep, -1 lower (absent: no signal)\n"
                  "# TYPE readahead_advice gauge\n"
                  "readahead_advice{device=\"sda\",kind=\"block\",class=\"hdd\"} 1\n"
                  "readahead_advice{device=\"a\\\"b\",kind=\"mount\",class=\"nfs\"} -1\n"
                  "# HELP readahead_advice_suggested_bytes read_ahead_kb that advice suggests, in bytes\n"
                  "# TYPE readahead_advice_suggested_bytes gauge\n"
                  "readahead_advice_suggested_bytes{device=\"sda\",kind=\"block\",class=\"hdd\"} 1048576\n"
                  "readahead_advice_suggested_bytes{device=\"a\\\"b\",kind=\"mount\",class=\"nfs\"} 131072\n"
                  "# HELP readahead_advice_timestamp_seconds when that advice was made, seconds since the "
                  "epoch\n"
                  "# TYPE readahead_advice_timestamp_seconds gauge\n"
                  "readahead_advice_timestamp_seconds{device=\"sda\",kind=\"block\",class=\"hdd\"} 1795000000\n"
                  "readahead_advice_timestamp_seconds{device=\"a\\\"b\",kind=\"mount\",class=\"nfs\"} "
                  "1795000100\n",
                  buf);
        free(buf);
        CHECK_INT(3, _RA_ADVICE_GAUGE_MAX);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_record_of);
        RUN(test_records_held);
        RUN(test_records_raised_from);
        RUN(test_save_load);
        RUN(test_prometheus);
        TEST_MAIN_END;
}
