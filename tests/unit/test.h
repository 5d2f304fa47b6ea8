/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * A very small test harness: CHECK_* macros that print file:line, the
 * expression, the expected and the actual value, and keep going; RUN() runs
 * each case in its own process so that a crash in one case is reported and
 * the others still run. Set TEST_NOFORK=1 to run cases in-process (gdb).
 *
 * Arguments name the cases to run (`unit-config test_parse_line_length`);
 * none runs them all, `--list` prints their names, and a name no case has is
 * an error that lists them.
 *
 * Expected values are always written literally in the tests, never
 * recomputed with the formula under test.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int test_fails; /* failed checks in the running case */

static inline const char *test_errno_name(long long v) {
        switch (v) {
        case -EINVAL: return " (-EINVAL)";
        case -ERANGE: return " (-ERANGE)";
        case -ENODATA: return " (-ENODATA)";
        case -EDOM: return " (-EDOM)";
        case -ENOENT: return " (-ENOENT)";
        case -ENOMEM: return " (-ENOMEM)";
        case -E2BIG: return " (-E2BIG)";
        case -EOVERFLOW: return " (-EOVERFLOW)";
        case -ENOTSUP: return " (-ENOTSUP)";
        case -EBADMSG: return " (-EBADMSG)";
        default: return "";
        }
}

static inline void test_fail(const char *file, int line, const char *what) {
        fprintf(stderr, "%s:%d: FAIL: %s\n", file, line, what);
        test_fails++;
}

#define CHECK(cond)                                                                     \
        do {                                                                            \
                if (!(cond))                                                            \
                        test_fail(__FILE__, __LINE__, #cond);                           \
        } while (0)

/* Signed integers and negative errno values. */
#define CHECK_INT(expected, actual)                                                     \
        do {                                                                            \
                long long e_ = (long long)(expected), a_ = (long long)(actual);         \
                if (e_ != a_) {                                                         \
                        test_fail(__FILE__, __LINE__, #actual " == " #expected);        \
                        fprintf(stderr, "    expected: %lld%s\n    actual:   %lld%s\n", \
                                e_, test_errno_name(e_), a_, test_errno_name(a_));      \
                }                                                                       \
        } while (0)

#define CHECK_U64(expected, actual)                                                     \
        do {                                                                            \
                uint64_t e_ = (uint64_t)(expected), a_ = (uint64_t)(actual);            \
                if (e_ != a_) {                                                         \
                        test_fail(__FILE__, __LINE__, #actual " == " #expected);        \
                        fprintf(stderr,                                                 \
                                "    expected: %" PRIu64 "\n    actual:   %" PRIu64     \
                                "\n",                                                   \
                                e_, a_);                                                \
                }                                                                       \
        } while (0)

#define CHECK_STR(expected, actual)                                                     \
        do {                                                                            \
                const char *e_ = (expected), *a_ = (actual);                            \
                if (!e_ || !a_ || strcmp(e_, a_) != 0) {                                \
                        test_fail(__FILE__, __LINE__, #actual " == " #expected);        \
                        fprintf(stderr, "    expected: \"%s\"\n    actual:   \"%s\"\n",   \
                                e_ ? e_ : "(null)", a_ ? a_ : "(null)");                \
                }                                                                       \
        } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                \
        do {                                                                            \
                const char *h_ = (haystack), *n_ = (needle);                            \
                if (!h_ || !strstr(h_, n_)) {                                           \
                        test_fail(__FILE__, __LINE__, #haystack " contains " #needle);  \
                        fprintf(stderr, "    expected to contain: \"%s\"\n"             \
                                        "    actual:              \"%s\"\n",            \
                                n_, h_ ? h_ : "(null)");                                \
                }                                                                       \
        } while (0)

static inline bool test_has_suffix(const char *s, const char *suffix) {
        size_t ls, lx;

        if (!s)
                return false;
        ls = strlen(s);
        lx = strlen(suffix);
        return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

#define CHECK_SUFFIX(s, suffix)                                                         \
        do {                                                                            \
                const char *s_ = (s), *x_ = (suffix);                                   \
                if (!test_has_suffix(s_, x_)) {                                         \
                        test_fail(__FILE__, __LINE__, #s " ends with " #suffix);        \
                        fprintf(stderr, "    expected suffix: \"%s\"\n"                 \
                                        "    actual:          \"%s\"\n",                \
                                x_, s_ ? s_ : "(null)");                                \
                }                                                                       \
        } while (0)

/* Stops the running case (later checks would only repeat the failure). */
#define REQUIRE(cond)                                                                   \
        do {                                                                            \
                if (!(cond)) {                                                          \
                        test_fail(__FILE__, __LINE__, "required: " #cond);              \
                        return;                                                         \
                }                                                                       \
        } while (0)

typedef void (*test_fn)(void);
typedef void (*test_case_fn)(const void *arg);

/*
 * Case selection. glibc calls constructors with main's argc and argv, which
 * lets the test programs keep main(void). With names given, main's body runs
 * twice: a first pass only collects the case names, so an unknown name is
 * reported before any case runs; the second runs the cases named.
 */
#define TEST_MAX_CASES 4096
static int test_argc;
static char **test_argv;
static bool test_listing;      /* this pass only collects names */
static const char *test_names[TEST_MAX_CASES];
static int test_n_names;
static int test_ran;           /* cases run in this pass */

__attribute__((constructor)) static void test_take_args(int argc, char **argv, char **envp) {
        (void)envp;
        test_argc = argc;
        test_argv = argv;
}

static inline bool test_selected(const char *name) {
        if (test_argc <= 1)
                return true;
        for (int i = 1; i < test_argc; i++)
                if (strcmp(test_argv[i], name) == 0)
                        return true;
        return false;
}

static inline void test_list_names(FILE *f) {
        for (int i = 0; i < test_n_names; i++)
                fprintf(f, "%s\n", test_names[i]);
}

/* After the listing pass: -1 to go on, else the exit code. */
static inline int test_check_args(void) {
        int unknown = 0;

        for (int i = 1; i < test_argc; i++) {
                if (strcmp(test_argv[i], "--list") == 0) {
                        test_list_names(stdout);
                        return 0;
                }
                bool found = false;
                for (int k = 0; k < test_n_names && !found; k++)
                        found = strcmp(test_argv[i], test_names[k]) == 0;
                if (!found) {
                        fprintf(stderr, "%s: no case named '%s'\n", test_argv[0], test_argv[i]);
                        unknown++;
                }
        }
        if (!unknown)
                return -1;
        fprintf(stderr, "cases:\n");
        test_list_names(stderr);
        return 2;
}

/* Runs fn(arg) as the case called name, in a child process unless TEST_NOFORK
 * is set; 1 if it failed. A case not selected, or the listing pass, runs
 * nothing and counts as passed. */
static inline int test_run_with(const char *name, test_case_fn fn, const void *arg) {
        int status;
        pid_t pid;

        if (test_listing) {
                if (test_n_names < TEST_MAX_CASES)
                        test_names[test_n_names++] = name;
                return 0;
        }
        if (!test_selected(name))
                return 0;
        test_ran++;
        fflush(stdout);
        fflush(stderr);
        if (getenv("TEST_NOFORK")) {
                int before = test_fails;

                fn(arg);
                printf("%s %s\n", test_fails == before ? "ok  " : "FAIL", name);
                return test_fails != before;
        }

        pid = fork();
        if (pid < 0) {
                perror("fork");
                return 1;
        }
        if (pid == 0) {
                test_fails = 0;
                fn(arg);
                /* exit(), not _exit(): LeakSanitizer checks the case on the way out. */
                exit(test_fails ? 1 : 0);
        }
        if (waitpid(pid, &status, 0) < 0) {
                perror("waitpid");
                return 1;
        }
        if (WIFSIGNALED(status)) {
                printf("FAIL %s (crashed: signal %d, %s)\n", name, WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
                return 1;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                printf("FAIL %s\n", name);
                return 1;
        }
        printf("ok   %s\n", name);
        return 0;
}

static inline void test_call_plain(const void *arg) {
        (*(const test_fn *)arg)();
}

/* Runs one case, in a child process unless TEST_NOFORK is set; 1 if it failed. */
static inline int test_run(const char *name, test_fn fn) {
        return test_run_with(name, test_call_plain, &fn);
}

#define RUN(fn) (test_failed_cases += test_run(#fn, fn))

/* Table-driven cases: runs fn(&cases[i]) for each element of the array cases,
 * each as a case of its own named by its .name member. */
#define RUN_TABLE(cases, fn)                                                            \
        for (size_t i_ = 0; i_ < sizeof(cases) / sizeof((cases)[0]); i_++)              \
        (test_failed_cases += test_run_with((cases)[i_].name, (fn), &(cases)[i_]))

/* The body between TEST_MAIN_BEGIN and TEST_MAIN_END is a loop of one pass,
 * or two when arguments name cases (see test_check_args). */
#define TEST_MAIN_BEGIN                                                                 \
        int test_failed_cases = 0;                                                      \
        setvbuf(stdout, NULL, _IOLBF, 0);                                               \
        for (test_listing = test_argc > 1; ; test_listing = false) {                    \
                if (!test_listing) {                                                    \
                        int rc_ = test_check_args();                                    \
                        if (rc_ >= 0)                                                   \
                                return rc_;                                             \
                }

#define TEST_MAIN_END                                                                   \
                if (!test_listing)                                                      \
                        break;                                                          \
        }                                                                               \
        do {                                                                            \
                printf("%d of %d cases failed\n", test_failed_cases, test_ran);         \
                return test_failed_cases ? EXIT_FAILURE : EXIT_SUCCESS;                 \
        } while (0)
