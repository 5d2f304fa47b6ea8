/* SPDX-License-Identifier: MIT */
/*
 * Runs a fuzz target's LLVMFuzzerTestOneInput on every file named on the
 * command line, or in the directories named, without libFuzzer: the corpus
 * becomes a regression test with any compiler. Each input is copied into a
 * buffer of exactly its size, so a sanitizer build catches reads past it.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
        struct stat st;
        unsigned char *buf;
        size_t size;
        FILE *f;

        f = fopen(path, "re");
        if (!f || fstat(fileno(f), &st) < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                if (f)
                        fclose(f);
                return -1;
        }
        size = (size_t)st.st_size;
        buf = malloc(size ? size : 1);
        if (!buf || fread(buf, 1, size, f) != size) {
                fprintf(stderr, "%s: cannot read\n", path);
                free(buf);
                fclose(f);
                return -1;
        }
        fclose(f);

        fprintf(stderr, "replay %s (%zu bytes)\n", path, size);
        LLVMFuzzerTestOneInput(buf, size);
        free(buf);
        return 0;
}

static int not_hidden(const struct dirent *de)
{
        return de->d_name[0] != '.';
}

static int run_path(const char *path, unsigned *count)
{
        struct dirent **names;
        struct stat st;
        int n, r = 0;

        if (stat(path, &st) < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
                if (run_file(path) < 0)
                        return -1;
                (*count)++;
                return 0;
        }

        n = scandir(path, &names, not_hidden, alphasort);
        if (n < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        for (int i = 0; i < n; i++) {
                char child[4096];

                snprintf(child, sizeof(child), "%s/%s", path, names[i]->d_name);
                if (stat(child, &st) == 0 && S_ISREG(st.st_mode)) {
                        if (run_file(child) < 0)
                                r = -1;
                        else
                                (*count)++;
                }
                free(names[i]);
        }
        free(names);
        return r;
}

int main(int argc, char *argv[])
{
        unsigned count = 0;
        int r = 0;

        if (argc < 2) {
                fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
                return 2;
        }
        for (int i = 1; i < argc; i++)
                if (run_path(argv[i], &count) < 0)
                        r = 1;
        printf("%u inputs replayed\n", count);
        if (count == 0) {
                fprintf(stderr, "no inputs found\n");
                return 1;
        }
        return r;
}
