/* SPDX-License-Identifier: MIT */
/* ra_expr_compile and ra_expr_eval. All numbers are KiB. */

#include "expr.h"
#include "test.h"

static void set_var(struct ra_vars *v, enum ra_var var, uint64_t value) {
        v->value[var] = value;
        v->known |= 1u << var;
}

/* Compiles and evaluates s against vars; returns eval's result, *ret_kb on success. */
static int run(const char *s, const struct ra_vars *vars, uint64_t *ret_kb) {
        struct ra_expr e;
        char err[128] = "";
        int r;

        r = ra_expr_compile(s, &e, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "    (compile \"%s\" failed: %d %s)\n", s, r, err);
                return 1000 + r; /* never a value eval returns */
        }
        return ra_expr_eval(&e, vars, ret_kb, NULL);
}

#define EVAL_OK(s, vars, kb)                                                            \
        do {                                                                            \
                uint64_t v_ = 0;                                                        \
                CHECK_INT(0, run((s), (vars), &v_));                                    \
                CHECK_U64((kb), v_);                                                    \
        } while (0)

#define EVAL_FAILS(s, vars, err)                                                        \
        do {                                                                            \
                uint64_t v_ = 777;                                                      \
                CHECK_INT((err), run((s), (vars), &v_));                                \
                CHECK_U64(777, v_);                                                     \
        } while (0)

/* Compile must fail with -EINVAL and a message containing what. */
#define COMPILE_FAILS(s, what)                                                          \
        do {                                                                            \
                struct ra_expr ce_;                                                     \
                char cerr_[128] = "";                                                   \
                CHECK_INT(-EINVAL, ra_expr_compile((s), &ce_, cerr_, sizeof(cerr_)));   \
                CHECK(cerr_[0] != '\0');                                                \
                CHECK_CONTAINS(cerr_, (what));                                          \
        } while (0)

static const struct ra_vars no_vars;

static void test_literals(void) {
        EVAL_OK("512", &no_vars, 512);
        EVAL_OK("512K", &no_vars, 512);
        EVAL_OK("4M", &no_vars, 4096);
        EVAL_OK("1G", &no_vars, 1048576);
        EVAL_OK("  64  ", &no_vars, 64);
        EVAL_OK("4M + 512K", &no_vars, 4608);
        EVAL_OK("4M+512K", &no_vars, 4608);
}

static void test_precedence(void) {
        EVAL_OK("1 + 2 * 3", &no_vars, 7);
        EVAL_OK("2 * 3 + 1", &no_vars, 7);
        EVAL_OK("(1 + 2) * 3", &no_vars, 9);
        EVAL_OK("2 * (3 + 4) * 5", &no_vars, 70);
        EVAL_OK("((((7))))", &no_vars, 7);
        EVAL_OK("10 - 4 - 3", &no_vars, 3);   /* left to right */
        EVAL_OK("64 / 4 / 2", &no_vars, 8);   /* left to right */
        EVAL_OK("100 / 3", &no_vars, 33);     /* whole KiB, rounded down */
        EVAL_OK("10 - 2 * 3", &no_vars, 4);
        EVAL_OK("12 / 4 * 3", &no_vars, 9);
        EVAL_OK("1M / 4 + 1M / 4", &no_vars, 512);
}

static void test_functions(void) {
        struct ra_vars v = {};

        EVAL_OK("min(3, 1, 2)", &no_vars, 1);
        EVAL_OK("max(3, 1, 2)", &no_vars, 3);
        EVAL_OK("max(1, 2)", &no_vars, 2);
        EVAL_OK("min(max(1, 5), 4)", &no_vars, 4);
        EVAL_OK("2 * max(16, 32) + 1", &no_vars, 65);
        EVAL_OK("max( 1 , 2 )", &no_vars, 2);

        /* 16 GiB of RAM: memory / 64 = 262144, 1M is smaller. */
        set_var(&v, RA_VAR_MEMORY, 16777216);
        EVAL_OK("min(1M, memory / 64)", &v, 1024);
        /* 32 MiB of RAM: memory / 64 = 512. */
        set_var(&v, RA_VAR_MEMORY, 32768);
        EVAL_OK("min(1M, memory / 64)", &v, 512);
}

static void test_profile_expressions(void) {
        struct ra_vars v = {};

        set_var(&v, RA_VAR_STRIPE, 1536);
        EVAL_OK("2 * stripe", &v, 3072);

        set_var(&v, RA_VAR_DEFAULT, 512);
        set_var(&v, RA_VAR_RSIZE, 1024);
        EVAL_OK("max(default, 4 * rsize)", &v, 4096);
        set_var(&v, RA_VAR_RSIZE, 32);
        EVAL_OK("max(default, 4 * rsize)", &v, 512);
        EVAL_OK("max(default, 2 * stripe)", &v, 3072);
        EVAL_OK("default", &v, 512);

        set_var(&v, RA_VAR_CHUNK, 512);
        set_var(&v, RA_VAR_DATA_DISKS, 3);
        EVAL_OK("2 * chunk * data_disks", &v, 3072);
}

static void test_variable_names(void) {
        /* Every variable is spelled in expressions as ra_var_to_string names it. */
        static const char *const names[_RA_VAR_MAX] = {
                [RA_VAR_DEFAULT] = "default", [RA_VAR_MINIMUM] = "minimum",
                [RA_VAR_STRIPE] = "stripe",   [RA_VAR_CHUNK] = "chunk",
                [RA_VAR_DATA_DISKS] = "data_disks", [RA_VAR_IO_OPT] = "io_opt",
                [RA_VAR_IO_MIN] = "io_min",   [RA_VAR_RSIZE] = "rsize",
                [RA_VAR_SIZE] = "size",       [RA_VAR_MEMORY] = "memory",
                [RA_VAR_CURRENT] = "current",
        };

        for (int i = 0; i < _RA_VAR_MAX; i++) {
                struct ra_expr e;
                struct ra_vars v = {};
                uint64_t kb = 0;
                char err[128] = "";

                CHECK_STR(names[i], ra_var_to_string((enum ra_var)i));
                CHECK_INT(0, ra_expr_compile(names[i], &e, err, sizeof(err)));
                CHECK_INT(1u << i, e.vars_used);
                set_var(&v, (enum ra_var)i, 100 + (uint64_t)i);
                CHECK_INT(0, ra_expr_eval(&e, &v, &kb, NULL));
                CHECK_U64(100 + (uint64_t)i, kb);
        }
}

static void test_compiled_form(void) {
        struct ra_expr e;
        char err[128] = "";

        /* 2 * stripe: NUM 2, VAR stripe, MUL in reverse Polish order. */
        CHECK_INT(0, ra_expr_compile("2 * stripe", &e, err, sizeof(err)));
        CHECK_INT(3, e.n_ops);
        CHECK_INT(1u << RA_VAR_STRIPE, e.vars_used);
        CHECK_INT(RA_OP_NUM, e.ops[0].kind);
        CHECK_U64(2, e.ops[0].arg);
        CHECK_INT(RA_OP_VAR, e.ops[1].kind);
        CHECK_U64(RA_VAR_STRIPE, e.ops[1].arg);
        CHECK_INT(RA_OP_MUL, e.ops[2].kind);

        CHECK_INT(0, ra_expr_compile("max(default, 4 * rsize)", &e, err, sizeof(err)));
        CHECK_INT((1u << RA_VAR_DEFAULT) | (1u << RA_VAR_RSIZE), e.vars_used);
        CHECK_INT(5, e.n_ops);
        CHECK_INT(RA_OP_MAX, e.ops[4].kind);
        CHECK_U64(2, e.ops[4].arg);

        CHECK_INT(0, ra_expr_compile("min(3, 1, 2)", &e, err, sizeof(err)));
        CHECK_INT(4, e.n_ops);
        CHECK_INT(RA_OP_MIN, e.ops[3].kind);
        CHECK_U64(3, e.ops[3].arg);
        CHECK_INT(0, e.vars_used);
}

static void test_compile_errors(void) {
        COMPILE_FAILS("2 * strpe", "strpe");
        COMPILE_FAILS("max(default, 4 * rsiz)", "rsiz");
        COMPILE_FAILS("(1 + 2", "");
        COMPILE_FAILS("1 + 2)", "");
        COMPILE_FAILS("max(1, 2", "");
        COMPILE_FAILS("2 * stripe foo", "");
        COMPILE_FAILS("512 512", "");
        COMPILE_FAILS("4M 5", "");
        COMPILE_FAILS("", "");
        COMPILE_FAILS("   ", "");
        COMPILE_FAILS("2 *", "");
        COMPILE_FAILS("* 2", "");
        COMPILE_FAILS("1 + + 2", "");
        COMPILE_FAILS("()", "");
        COMPILE_FAILS("min()", "");
        COMPILE_FAILS("max(1,)", "");
        COMPILE_FAILS("max(,1)", "");
        COMPILE_FAILS("avg(1, 2)", "");
        COMPILE_FAILS("12Q", "");
        COMPILE_FAILS("1.5M", "");
        COMPILE_FAILS("2 ^ 3", "");
        COMPILE_FAILS("99999999999999999999", "");
        COMPILE_FAILS("stripe(2)", "");
}

static void test_compile_error_without_buffer(void) {
        struct ra_expr e;
        char small[8];

        /* No message buffer: still an error, no crash. */
        CHECK_INT(-EINVAL, ra_expr_compile("2 * strpe", &e, NULL, 0));

        /* A small buffer is filled and terminated, never overrun. */
        memset(small, 'x', sizeof(small));
        CHECK_INT(-EINVAL, ra_expr_compile("2 * strpe", &e, small, sizeof(small)));
        CHECK(memchr(small, '\0', sizeof(small)) != NULL);
}

static void test_too_long(void) {
        struct ra_expr e;
        char s[400], err[128] = "";
        uint64_t kb = 0;

        /* 300 characters: over RA_EXPR_MAX_LEN. */
        memset(s, ' ', 299);
        s[299] = '1';
        s[300] = '\0';
        CHECK_INT(-EINVAL, ra_expr_compile(s, &e, err, sizeof(err)));
        CHECK(err[0] != '\0');

        /* 200 characters with only one number is fine. */
        memset(s, ' ', 197);
        strcpy(s + 197, "512");
        CHECK_INT(200, strlen(s));
        CHECK_INT(0, ra_expr_compile(s, &e, err, sizeof(err)));
        CHECK_INT(0, ra_expr_eval(&e, &no_vars, &kb, NULL));
        CHECK_U64(512, kb);
}

static void test_too_many_ops(void) {
        struct ra_expr e;
        char s[200], err[128] = "";
        uint64_t kb = 0;

        /* 24 ones and 23 additions: 47 operations, within RA_EXPR_MAX_OPS (48). */
        strcpy(s, "1");
        for (int i = 1; i < 24; i++)
                strcat(s, "+1");
        CHECK_INT(0, ra_expr_compile(s, &e, err, sizeof(err)));
        CHECK_INT(47, e.n_ops);
        CHECK_INT(0, ra_expr_eval(&e, &no_vars, &kb, NULL));
        CHECK_U64(24, kb);

        /* 25 ones and 24 additions: 49 operations. */
        strcat(s, "+1");
        err[0] = '\0';
        CHECK_INT(-EINVAL, ra_expr_compile(s, &e, err, sizeof(err)));
        CHECK(err[0] != '\0');

        /* Many more, still short enough for RA_EXPR_MAX_LEN. */
        strcpy(s, "1");
        for (int i = 1; i < 60; i++)
                strcat(s, "+1");
        CHECK_INT(-EINVAL, ra_expr_compile(s, &e, err, sizeof(err)));
}

static void test_deep_nesting(void) {
        struct ra_expr e;
        char s[256], err[128] = "";
        uint64_t kb = 0;
        int r;

        /* 120 parentheses each side: 241 characters, one operation. Either it
         * compiles to 1 or it is refused with a message; it never crashes. */
        memset(s, '(', 120);
        s[120] = '1';
        memset(s + 121, ')', 120);
        s[241] = '\0';
        r = ra_expr_compile(s, &e, err, sizeof(err));
        if (r == 0) {
                CHECK_INT(0, ra_expr_eval(&e, &no_vars, &kb, NULL));
                CHECK_U64(1, kb);
        } else {
                CHECK_INT(-EINVAL, r);
                CHECK(err[0] != '\0');
        }

        /* Deeply nested functions. */
        strcpy(s, "");
        for (int i = 0; i < 20; i++)
                strcat(s, "max(1,");
        strcat(s, "2");
        for (int i = 0; i < 20; i++)
                strcat(s, ")");
        r = ra_expr_compile(s, &e, err, sizeof(err));
        if (r == 0) {
                CHECK_INT(0, ra_expr_eval(&e, &no_vars, &kb, NULL));
                CHECK_U64(2, kb);
        } else {
                CHECK_INT(-EINVAL, r);
        }
}

static void test_missing_variable(void) {
        struct ra_vars v = {};
        struct ra_expr e;
        enum ra_var missing = RA_VAR_CURRENT;
        uint64_t kb = 777;
        char err[128] = "";

        CHECK_INT(0, ra_expr_compile("2 * stripe", &e, err, sizeof(err)));
        set_var(&v, RA_VAR_DEFAULT, 512);
        CHECK_INT(-ENODATA, ra_expr_eval(&e, &v, &kb, &missing));
        CHECK_INT(RA_VAR_STRIPE, missing);
        CHECK_U64(777, kb);

        /* A known variable with value 0 is not missing. */
        set_var(&v, RA_VAR_STRIPE, 0);
        CHECK_INT(0, ra_expr_eval(&e, &v, &kb, &missing));
        CHECK_U64(0, kb);

        /* The value without the known bit does not count. */
        v.value[RA_VAR_RSIZE] = 1024;
        CHECK_INT(0, ra_expr_compile("max(default, 4 * rsize)", &e, err, sizeof(err)));
        missing = RA_VAR_CURRENT;
        CHECK_INT(-ENODATA, ra_expr_eval(&e, &v, &kb, &missing));
        CHECK_INT(RA_VAR_RSIZE, missing);

        /* missing may be NULL. */
        CHECK_INT(-ENODATA, ra_expr_eval(&e, &no_vars, &kb, NULL));
}

static void test_division_by_zero(void) {
        struct ra_vars v = {};

        EVAL_FAILS("512 / 0", &no_vars, -EDOM);
        set_var(&v, RA_VAR_DATA_DISKS, 0);
        set_var(&v, RA_VAR_STRIPE, 1536);
        EVAL_FAILS("stripe / data_disks", &v, -EDOM);
        EVAL_FAILS("max(1, 2 / (1 - 1))", &no_vars, -EDOM);
}

static void test_overflow(void) {
        struct ra_vars v = {};

        /* 2^80: overflows on the last multiplication. */
        EVAL_FAILS("1G * 1G * 1G * 1G", &no_vars, -ERANGE);
        /* Exactly 2^64: wraps to 0 if unchecked. */
        EVAL_FAILS("1G * 1G * 1G * 16", &no_vars, -ERANGE);

        set_var(&v, RA_VAR_MEMORY, UINT64_MAX);
        EVAL_FAILS("memory + 1", &v, -ERANGE);
        EVAL_FAILS("memory * 2", &v, -ERANGE);
        EVAL_OK("memory / 2", &v, UINT64_MAX / 2);

        /* Below zero is out of range too: sizes are unsigned. */
        EVAL_FAILS("1 - 2", &no_vars, -ERANGE);
        EVAL_OK("2 - 2", &no_vars, 0);
}

/* What fails whatever the device is refused when the profile loads. */
static void check_constants(const char *s, int expected) {
        struct ra_expr e;
        char err[128] = "";

        REQUIRE(ra_expr_compile(s, &e, err, sizeof(err)) == 0);
        err[0] = 0;
        CHECK_INT(expected, ra_expr_check_constants(&e, err, sizeof(err)));
        if (expected < 0)
                CHECK(strstr(err, "whatever the device") != NULL);
}

static void test_check_constants(void) {
        check_constants("1M/0", -EDOM);
        check_constants("stripe / 0", -EDOM);            /* whatever the stripe */
        check_constants("stripe / (2 - 2)", -EDOM);
        check_constants("max(default, 1M - 2M)", -ERANGE);
        check_constants("1G * 1G * 1G * 1G", -ERANGE);
        check_constants("min(1M / 0, stripe)", -EDOM);
        check_constants("max(default, 2 * stripe)", 0);
        check_constants("stripe / data_disks", 0);        /* may be 0 for one device only */
        check_constants("default - 1M", 0);
        check_constants("1M / 2", 0);
}

static void test_expr_reusable(void) {
        /* One compiled expression, evaluated for several devices. */
        struct ra_expr e;
        struct ra_vars v = {};
        uint64_t kb = 0;
        char err[128] = "";

        CHECK_INT(0, ra_expr_compile("max(default, 2 * stripe)", &e, err, sizeof(err)));
        set_var(&v, RA_VAR_DEFAULT, 512);
        set_var(&v, RA_VAR_STRIPE, 128);
        CHECK_INT(0, ra_expr_eval(&e, &v, &kb, NULL));
        CHECK_U64(512, kb);
        set_var(&v, RA_VAR_STRIPE, 2048);
        CHECK_INT(0, ra_expr_eval(&e, &v, &kb, NULL));
        CHECK_U64(4096, kb);
        set_var(&v, RA_VAR_STRIPE, 1536);
        CHECK_INT(0, ra_expr_eval(&e, &v, &kb, NULL));
        CHECK_U64(3072, kb);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_literals);
        RUN(test_precedence);
        RUN(test_functions);
        RUN(test_profile_expressions);
        RUN(test_variable_names);
        RUN(test_compiled_form);
        RUN(test_compile_errors);
        RUN(test_compile_error_without_buffer);
        RUN(test_too_long);
        RUN(test_too_many_ops);
        RUN(test_deep_nesting);
        RUN(test_missing_variable);
        RUN(test_division_by_zero);
        RUN(test_overflow);
        RUN(test_check_constants);
        RUN(test_expr_reusable);
        TEST_MAIN_END;
}
