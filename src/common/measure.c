/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

#define STREAMS_MAX 64

double ra_now_seconds(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

uint64_t ra_random_next(uint64_t *state) {
        uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static bool stopped(const atomic_int *stop) {
        return stop && atomic_load_explicit(stop, memory_order_relaxed) != 0;
}

static int open_device(const char *path, bool direct) {
        /* O_RDONLY, always: see measure.h. */
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (direct ? O_DIRECT : 0));
        return fd < 0 ? -errno : fd;
}

static int drop_fd_cache(int fd, uint64_t offset_bytes, uint64_t length_bytes) {
        /* posix_fadvise returns the error, it does not set errno */
        return -posix_fadvise(fd, (off_t) offset_bytes, (off_t) length_bytes, POSIX_FADV_DONTNEED);
}

int ra_drop_cache(const char *path, uint64_t offset_bytes, uint64_t length_bytes) {
        int fd = open_device(path, false);
        if (fd < 0)
                return fd;
        int r = drop_fd_cache(fd, offset_bytes, length_bytes);
        close(fd);
        return r;
}

/* Workers leave SIGINT and SIGTERM to the caller's main thread, which is the
 * one that puts read_ahead_kb back. */
static void block_stop_signals(sigset_t *saved) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &set, saved);
}

/* Holds the readers until all are open and started, so they begin together. */
struct gate {
        pthread_mutex_t lock;
        pthread_cond_t changed;
        int state; /* 0 wait, 1 go, -1 give up */
        double deadline;
};

/* Returns the deadline, or a negative number when the caller gave up. */
static double gate_wait(struct gate *g) {
        pthread_mutex_lock(&g->lock);
        while (g->state == 0)
                pthread_cond_wait(&g->changed, &g->lock);
        double deadline = g->state > 0 ? g->deadline : -1;
        pthread_mutex_unlock(&g->lock);
        return deadline;
}

static void gate_open(struct gate *g, int state, double deadline) {
        pthread_mutex_lock(&g->lock);
        g->state = state;
        g->deadline = deadline;
        pthread_cond_broadcast(&g->changed);
        pthread_mutex_unlock(&g->lock);
}

struct stream {
        int fd;
        struct ra_region region;
        const struct ra_sequential *how;
        const atomic_int *stop;
        struct gate *gate;

        uint64_t bytes, ops, warm_bytes;
        double max_op_seconds, start, warm, end;
        int error;
};

/* Whether a failed buffered read is worth another try: a signal (EINTR), or a
 * memory cgroup at its limit whose OOM killer is off (cgroup v1
 * memory.oom_control), which refuses the page cache with ENOMEM until the
 * readahead under I/O completes and can be reclaimed: wait a moment first.
 * The caller's deadline still ends the loop. */
static bool read_again(int error) {
        if (error == ENOMEM) {
                (void) nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
                return true;
        }
        return error == EINTR;
}

static void *stream_run(void *userdata) {
        struct stream *s = userdata;
        const uint64_t end_bytes = s->region.offset_bytes + s->region.length_bytes;
        const size_t read_bytes = s->how->read_bytes;
        uint64_t pos = s->region.offset_bytes;
        void *buf = NULL;

        if (posix_memalign(&buf, 4096, read_bytes) != 0) {
                s->error = -ENOMEM;
                buf = NULL;
        }
        const double deadline = gate_wait(s->gate);
        s->start = ra_now_seconds();
        while (buf && deadline >= 0) {
                double t0 = ra_now_seconds();
                if (stopped(s->stop)) {
                        s->error = -EINTR;
                        break;
                }
                if (t0 >= deadline || (s->how->max_bytes_per_stream && s->bytes >= s->how->max_bytes_per_stream))
                        break;
                if (pos + read_bytes > end_bytes) {
                        /* Round again; what we read is no longer cached. */
                        (void) drop_fd_cache(s->fd, s->region.offset_bytes, s->region.length_bytes);
                        pos = s->region.offset_bytes;
                        if (lseek(s->fd, (off_t) pos, SEEK_SET) < 0) {
                                s->error = -errno;
                                break;
                        }
                }
                ssize_t n = read(s->fd, buf, read_bytes);
                if (n < 0 && read_again(errno))
                        continue;
                if (n < 0) {
                        s->error = -errno;
                        break;
                }
                if (n == 0) { /* the device shrank under us */
                        s->error = -ENXIO;
                        break;
                }
                double took = ra_now_seconds() - t0;
                if (took > s->max_op_seconds)
                        s->max_op_seconds = took;
                s->bytes += (uint64_t) n;
                s->ops++;
                pos += (uint64_t) n;
                if (!s->warm_bytes && s->bytes >= s->how->warmup_bytes &&
                    t0 + took - s->start >= s->how->warmup_seconds) {
                        s->warm_bytes = s->bytes;
                        s->warm = t0 + took;
                }
        }
        s->end = ra_now_seconds();
        free(buf);
        return NULL;
}

int ra_measure_sequential(const char *path, const struct ra_region *regions, unsigned n_regions,
                          const struct ra_sequential *how, const atomic_int *stop,
                          struct ra_measurement *ret) {
        struct stream streams[STREAMS_MAX] = {};
        pthread_t threads[STREAMS_MAX];
        struct gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };
        unsigned n_open = 0, n_started = 0;
        sigset_t saved;
        int r = 0;

        if (n_regions == 0 || n_regions > STREAMS_MAX || how->read_bytes == 0 || how->read_bytes % 512 ||
            how->read_bytes > RA_MEASURE_READ_BYTES_MAX)
                return -EINVAL;
        for (unsigned i = 0; i < n_regions; i++)
                if (regions[i].length_bytes < how->read_bytes)
                        return -EINVAL;

        for (; n_open < n_regions; n_open++) {
                struct stream *s = &streams[n_open];
                s->fd = open_device(path, false);
                if (s->fd < 0) {
                        r = s->fd;
                        goto out;
                }
                s->region = regions[n_open];
                s->how = how;
                s->stop = stop;
                s->gate = &gate;
                r = drop_fd_cache(s->fd, s->region.offset_bytes, s->region.length_bytes);
                if (r == 0 && lseek(s->fd, (off_t) s->region.offset_bytes, SEEK_SET) < 0)
                        r = -errno;
                if (r < 0) {
                        close(s->fd);
                        goto out;
                }
        }

        block_stop_signals(&saved);
        for (; n_started < n_regions; n_started++) {
                r = -pthread_create(&threads[n_started], NULL, stream_run, &streams[n_started]);
                if (r < 0)
                        break;
        }
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
        double start = ra_now_seconds(), end = start;
        gate_open(&gate, r < 0 ? -1 : 1, start + how->seconds);
        for (unsigned i = 0; i < n_started; i++) {
                pthread_join(threads[i], NULL);
                if (streams[i].end > end)
                        end = streams[i].end;
        }
        if (r < 0)
                goto out;

        struct ra_measurement m = { .seconds = end - start };
        for (unsigned i = 0; i < n_regions; i++) {
                m.bytes += streams[i].bytes;
                m.ops += streams[i].ops;
                if (streams[i].max_op_seconds > m.max_op_seconds)
                        m.max_op_seconds = streams[i].max_op_seconds;
                if (r == 0 && streams[i].error < 0)
                        r = streams[i].error;
                const struct stream *s = &streams[i];
                bool warmed = s->warm_bytes && s->end - s->warm > 0 && s->bytes > s->warm_bytes;
                if (warmed)
                        m.steady_bytes_per_s += (double) (s->bytes - s->warm_bytes) / (s->end - s->warm);
                else if (s->end > s->start)
                        m.steady_bytes_per_s += (double) s->bytes / (s->end - s->start);
        }
        if (r == 0)
                *ret = m;
out:
        for (unsigned i = 0; i < n_open; i++) {
                (void) drop_fd_cache(streams[i].fd, streams[i].region.offset_bytes,
                                     streams[i].region.length_bytes);
                close(streams[i].fd);
        }
        return r;
}

static uint64_t random_below(uint64_t *seed, uint64_t n) {
        return n ? ra_random_next(seed) % n : 0;
}

struct mapping {
        int fd;
        const volatile uint8_t *base;
        size_t length;
};

static void mapping_close(struct mapping *m) {
        if (m->base)
                munmap((void *) m->base, m->length);
        if (m->fd >= 0)
                close(m->fd);
        m->base = NULL;
        m->fd = -1;
}

static int mapping_open(struct mapping *m, const char *path, const struct ra_region *region) {
        m->fd = open_device(path, false);
        if (m->fd < 0)
                return m->fd;
        void *p = mmap(NULL, m->length, PROT_READ, MAP_SHARED, m->fd, (off_t) region->offset_bytes);
        if (p == MAP_FAILED) {
                int r = -errno;
                mapping_close(m);
                return r;
        }
        m->base = p;
        return 0;
}

int ra_measure_faults(const char *path, const struct ra_region *region, double seconds,
                      unsigned min_faults, unsigned max_faults, uint64_t *seed, const atomic_int *stop,
                      struct ra_measurement *ret) {
        const uint64_t page_bytes = (uint64_t) sysconf(_SC_PAGESIZE);
        struct mapping m = { .fd = -1 };
        struct ra_measurement res = {};
        unsigned in_mapping = 0;
        int r;

        if (region->length_bytes < page_bytes || region->offset_bytes % page_bytes ||
            region->length_bytes > SIZE_MAX)
                return -EINVAL;
        m.length = (size_t) region->length_bytes;
        const uint64_t n_pages = region->length_bytes / page_bytes;

        r = ra_drop_cache(path, region->offset_bytes, region->length_bytes);
        if (r < 0)
                return r;
        const double start = ra_now_seconds(), deadline = start + seconds;
        for (;;) {
                double t0 = ra_now_seconds();
                if (stopped(stop)) {
                        r = -EINTR;
                        break;
                }
                if (max_faults && res.ops >= max_faults)
                        break;
                if (t0 >= deadline && res.ops >= min_faults)
                        break;
                if (!m.base || in_mapping >= RA_MEASURE_FAULTS_PER_MAPPING) {
                        mapping_close(&m);
                        r = mapping_open(&m, path, region);
                        if (r < 0)
                                break;
                        in_mapping = 0;
                        t0 = ra_now_seconds();
                }
                uint64_t page = random_below(seed, n_pages);
                (void) m.base[page * page_bytes];
                double took = ra_now_seconds() - t0;
                if (took > res.max_op_seconds)
                        res.max_op_seconds = took;
                res.ops++;
                res.bytes += page_bytes;
                in_mapping++;
        }
        res.seconds = ra_now_seconds() - start;
        mapping_close(&m);
        (void) ra_drop_cache(path, region->offset_bytes, region->length_bytes);
        if (r == 0)
                *ret = res;
        return r;
}

int ra_measure_random_reads(const char *path, const struct ra_region *region, uint64_t block_bytes,
                            bool direct, double seconds, uint64_t max_ops, uint64_t *seed,
                            const atomic_int *stop, struct ra_measurement *ret) {
        struct ra_measurement res = {};
        void *buf = NULL;
        int fd, r = 0;

        if (block_bytes == 0 || block_bytes % 512 || region->length_bytes < block_bytes ||
            block_bytes > (UINT64_C(1) << 30))
                return -EINVAL;
        if (posix_memalign(&buf, 4096, (size_t) block_bytes) != 0)
                return -ENOMEM;
        fd = open_device(path, direct);
        if (fd < 0) {
                free(buf);
                return fd;
        }
        r = drop_fd_cache(fd, region->offset_bytes, region->length_bytes);
        const uint64_t n_blocks = region->length_bytes / block_bytes;
        const double start = ra_now_seconds(), deadline = start + seconds;
        while (r == 0) {
                double t0 = ra_now_seconds();
                if (stopped(stop)) {
                        r = -EINTR;
                        break;
                }
                if (t0 >= deadline || (max_ops && res.ops >= max_ops))
                        break;
                uint64_t off = region->offset_bytes + random_below(seed, n_blocks) * block_bytes;
                ssize_t n = pread(fd, buf, (size_t) block_bytes, (off_t) off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        break;
                }
                double took = ra_now_seconds() - t0;
                if (took > res.max_op_seconds)
                        res.max_op_seconds = took;
                res.ops++;
                res.bytes += (uint64_t) n;
        }
        res.seconds = ra_now_seconds() - start;
        (void) drop_fd_cache(fd, region->offset_bytes, region->length_bytes);
        close(fd);
        free(buf);
        if (r == 0)
                *ret = res;
        return r;
}
