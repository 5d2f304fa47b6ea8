/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "facts.h"

/*
 * A size expression: numbers with units, variables that name facts (all in
 * KiB but data_disks), + - * / and parentheses, min() and max(). Compiled once
 * when a profile loads, evaluated per device without allocation.
 *
 *   2 * stripe            max(default, 4 * rsize)         min(1M, memory / 64)
 */

enum ra_var {
        RA_VAR_DEFAULT,
        RA_VAR_MINIMUM,
        RA_VAR_STRIPE,
        RA_VAR_CHUNK,
        RA_VAR_DATA_DISKS,
        RA_VAR_IO_OPT,
        RA_VAR_IO_MIN,
        RA_VAR_RSIZE,
        RA_VAR_SIZE,
        RA_VAR_MEMORY,
        RA_VAR_CURRENT,
        _RA_VAR_MAX,
};

#define RA_EXPR_MAX_OPS 48
#define RA_EXPR_MAX_LEN 256

enum ra_op_kind {
        RA_OP_NUM,
        RA_OP_VAR,
        RA_OP_ADD,
        RA_OP_SUB,
        RA_OP_MUL,
        RA_OP_DIV,
        RA_OP_MIN, /* arg = argument count */
        RA_OP_MAX,
};

struct ra_op {
        enum ra_op_kind kind;
        uint64_t arg;
};

/* Reverse Polish form; n_ops == 0 means "keep": leave the device alone. */
struct ra_expr {
        struct ra_op ops[RA_EXPR_MAX_OPS];
        unsigned n_ops;
        unsigned vars_used; /* bit mask of enum ra_var */
};

/* Values the variables take for one device; a clear bit in known means n/a. */
struct ra_vars {
        uint64_t value[_RA_VAR_MAX];
        unsigned known;
};

/*
 * Compiles s. On error returns -EINVAL and, when err is given, a message
 * naming what is wrong ("unknown variable 'strpe'").
 */
int ra_expr_compile(const char *s, struct ra_expr *ret, char *err, size_t err_size);

/*
 * Evaluates in KiB. Returns -ENODATA with *missing set when a variable has no
 * value for this device, -EDOM on division by zero, -ERANGE on overflow.
 */
int ra_expr_eval(const struct ra_expr *e, const struct ra_vars *vars, uint64_t *ret_kb,
                 enum ra_var *missing);

/*
 * Fails (-EDOM, -ERANGE, with a message in err) when a part of e that uses no
 * variable fails whatever the device: "1M/0", "stripe/(2-2)", "1M-2M".
 */
int ra_expr_check_constants(const struct ra_expr *e, char *err, size_t err_size);

const char *ra_var_to_string(enum ra_var v);
