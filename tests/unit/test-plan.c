/* SPDX-License-Identifier: MIT */
/*
 * ra_plan_device(): one decision and the action that follows, as the agent
 * and readahead-ctl both carry it out. One row per action.
 */

#include "config.h"
#include "plan.h"
#include "test.h"

#define PROFILE_PATH "/usr/lib/readahead-agent/profiles/t.conf"

static const char profile_text[] = "[Profile]\n"
                                   "Default=512K\n"
                                   "MemoryCap=no\n"
                                   "SmallDeviceCap=no\n"
                                   "[Rule disk]\n"
                                   "Kind=block\n"
                                   "Size=default\n"
                                   "[Rule memory]\n"
                                   "Class=memory\n"
                                   "Size=keep\n"
                                   "[Rule broken]\n"
                                   "Name=bad*\n"
                                   "Size=default / (default - default)\n";

struct plan_case {
        const char *name;
        enum ra_class class;
        bool current_known;
        uint64_t current_kb;
        bool settable;
        const char *write_blocked;
        enum ra_action want;
        const char *want_rule; /* "" for none */
        bool want_target;
};

static const struct plan_case cases[] = {
        { "sda", RA_CLASS_HDD, true, 128, true, NULL, RA_ACTION_WRITE, PROFILE_PATH ":disk", true },
        { "sdb", RA_CLASS_HDD, true, 512, true, NULL, RA_ACTION_UNCHANGED, PROFILE_PATH ":disk", true },
        /* An unreadable current value is written: there is nothing to compare. */
        { "sdc", RA_CLASS_HDD, false, 0, true, NULL, RA_ACTION_WRITE, PROFILE_PATH ":disk", true },
        { "dm-0", RA_CLASS_SSD, true, 128, true, "the device is suspended", RA_ACTION_DEFERRED,
          PROFILE_PATH ":disk", true },
        /* Unchanged wins over deferred: nothing would be written anyway. */
        { "dm-1", RA_CLASS_SSD, true, 512, true, "the device is suspended", RA_ACTION_UNCHANGED,
          PROFILE_PATH ":disk", true },
        { "zram0", RA_CLASS_MEMORY, true, 128, true, NULL, RA_ACTION_KEEP, PROFILE_PATH ":memory", false },
        { "bad0", RA_CLASS_HDD, true, 128, true, NULL, RA_ACTION_FAIL, PROFILE_PATH ":broken", false },
        /* Not settable comes first, whatever the rule says. */
        { "sdx", RA_CLASS_HDD, true, 128, false, NULL, RA_ACTION_NOT_SETTABLE, PROFILE_PATH ":disk", true },
        { "bad1", RA_CLASS_HDD, true, 128, false, NULL, RA_ACTION_NOT_SETTABLE, PROFILE_PATH ":broken", false },
};

static void test_actions(void) {
        struct ra_config *c = calloc(1, sizeof(*c));
        struct ra_profile p;

        REQUIRE(c);
        ra_profile_init(&p);
        CHECK_INT(0, ra_profile_parse_buffer(c, &p, PROFILE_PATH, profile_text, strlen(profile_text)));
        CHECK_INT(0, c->n_diags);

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct plan_case *t = &cases[i];
                struct ra_facts f;
                struct ra_plan plan;

                ra_facts_init(&f);
                f.kind = RA_KIND_BLOCK;
                f.class = t->class;
                snprintf(f.name, sizeof(f.name), "%s", t->name);
                f.current_known = t->current_known;
                f.current_kb = t->current_kb;
                f.attr_path = t->settable ? (char *) "/sys/block/x/queue/read_ahead_kb" : NULL;
                f.write_blocked = t->write_blocked;
                ra_plan_device(&p, &f, NULL, 0, &plan);
                fprintf(stderr, "case %s\n", t->name);
                CHECK_STR(ra_action_to_string(t->want), ra_action_to_string(plan.action));
                CHECK_STR(t->want_rule, plan.rule);
                CHECK_INT(t->want_target, ra_plan_has_target(&plan));
                if (t->want_target)
                        CHECK_U64(512, plan.decision.target_kb);
        }
        ra_profile_done(&p);
        ra_config_free(c);
}

/* reset writes a target that is not the profile's: the same action rules. */
static void test_action_for_target(void) {
        struct ra_facts f;

        ra_facts_init(&f);
        f.attr_path = (char *) "/sys/class/bdi/0:53/read_ahead_kb";
        f.current_known = true;
        f.current_kb = 4096;
        CHECK_INT(RA_ACTION_WRITE, ra_action_for_target(&f, 128));
        CHECK_INT(RA_ACTION_UNCHANGED, ra_action_for_target(&f, 4096));
        f.write_blocked = "no path";
        CHECK_INT(RA_ACTION_DEFERRED, ra_action_for_target(&f, 128));
        f.attr_path = NULL;
        CHECK_INT(RA_ACTION_NOT_SETTABLE, ra_action_for_target(&f, 128));
}

static void test_write_failure_text(void) {
        char buf[160];

        ra_write_failure_text(buf, sizeof(buf), 1234, 1232, -EIO);
        CHECK_STR("wrote read_ahead_kb 1234 but the kernel holds 1232", buf);
        ra_write_failure_text(buf, sizeof(buf), 512, 0, -ENOENT);
        CHECK_STR("could not set read_ahead_kb to 512: No such file or directory", buf);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_actions);
        RUN(test_action_for_target);
        RUN(test_write_failure_text);
        TEST_MAIN_END;
}
