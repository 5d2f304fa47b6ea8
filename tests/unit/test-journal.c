/* SPDX-License-Identifier: MIT */
/*
 * The agent's journal messages: the datagram of journald's native protocol
 * (KEY=value lines; a value with a newline as KEY, a little-endian 64-bit
 * length and the bytes), and its sending to a socket, here one of the test's
 * own, since journald may not run where the tests do.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include "journal.h"
#include "test.h"

/* The datagram for priority, message and fields is want, byte for byte. */
#define CHECK_DATAGRAM(want, priority, message, fields, n_fields)                                   \
        do {                                                                                        \
                char buf_[512];                                                                     \
                ssize_t n_ = agent_journal_format(buf_, sizeof(buf_), priority, message, fields,     \
                                                  n_fields);                                        \
                CHECK_INT(sizeof(want) - 1, n_);                                                    \
                CHECK(n_ == (ssize_t) sizeof(want) - 1 && memcmp(buf_, want, sizeof(want) - 1) == 0); \
        } while (0)

static void test_format_fields(void)
{
        const char *fields[] = { "READAHEAD_DEVICE=sda", "READAHEAD_RESULT=unchanged" };
        static const char want[] = "MESSAGE=sda: read_ahead_kb already 512\n"
                                   "PRIORITY=7\n"
                                   "SYSLOG_IDENTIFIER=readahead-agent\n"
                                   "READAHEAD_DEVICE=sda\n"
                                   "READAHEAD_RESULT=unchanged\n";

        CHECK_DATAGRAM(want, 7, "sda: read_ahead_kb already 512", fields, 2);
}

static void test_format_newline_is_binary(void)
{
        const char *fields[] = { "READAHEAD_RULE=/etc/a\nb.conf:x" };
        /* "READAHEAD_RULE\n", 15 as 8 little-endian bytes, the 15 bytes, "\n". */
        static const char want[] = "MESSAGE=m\nPRIORITY=6\nSYSLOG_IDENTIFIER=readahead-agent\n"
                                   "READAHEAD_RULE\n\x0f\0\0\0\0\0\0\0/etc/a\nb.conf:x\n";

        CHECK_DATAGRAM(want, 6, "m", fields, 1);
}

static void test_format_too_long(void)
{
        char buf[40];

        CHECK_INT(-EMSGSIZE, agent_journal_format(buf, sizeof(buf), 6, "a message", NULL, 0));
}

static void test_send(void)
{
        char dir[] = "/tmp/test-journal.XXXXXX", path[128], got[512];
        REQUIRE(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/socket", dir);
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        REQUIRE(fd >= 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
        REQUIRE(bind(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0);

        const char *fields[] = { "READAHEAD_RESULT=refused" };
        CHECK_INT(0, agent_journal_send(path, 3, "event refused", fields, 1));
        ssize_t n = recv(fd, got, sizeof(got), MSG_DONTWAIT);
        static const char want[] = "MESSAGE=event refused\nPRIORITY=3\nSYSLOG_IDENTIFIER=readahead-agent\n"
                                   "READAHEAD_RESULT=refused\n";
        CHECK_INT(sizeof(want) - 1, n);
        CHECK(n == (ssize_t) sizeof(want) - 1 && memcmp(got, want, sizeof(want) - 1) == 0);
        close(fd);
        unlink(path);
        /* No journal listening: an error, for agent_log() to use stderr. */
        CHECK(agent_journal_send(path, 3, "event refused", fields, 1) < 0);
        rmdir(dir);
}

int main(void)
{
        TEST_MAIN_BEGIN;
        RUN(test_format_fields);
        RUN(test_format_newline_is_binary);
        RUN(test_format_too_long);
        RUN(test_send);
        TEST_MAIN_END;
}
