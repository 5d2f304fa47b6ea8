/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "enum-name.h"
#include "expr.h"
#include "size.h"

static const char *const var_names[_RA_VAR_MAX] = {
        [RA_VAR_DEFAULT] = "default",       [RA_VAR_MINIMUM] = "minimum",
        [RA_VAR_STRIPE] = "stripe",         [RA_VAR_CHUNK] = "chunk",
        [RA_VAR_DATA_DISKS] = "data_disks", [RA_VAR_IO_OPT] = "io_opt",
        [RA_VAR_IO_MIN] = "io_min",         [RA_VAR_RSIZE] = "rsize",
        [RA_VAR_SIZE] = "size",             [RA_VAR_MEMORY] = "memory",
        [RA_VAR_CURRENT] = "current",
};

const char *ra_var_to_string(enum ra_var v) {
        return RA_ENUM_NAME(var_names, v);
}

#define MAX_DEPTH 16

struct parser {
        const char *s;
        const char *p;
        struct ra_expr *e;
        char *err;
        size_t err_size;
        unsigned depth;
};

static int __attribute__((format(printf, 2, 3))) fail(struct parser *ps, const char *fmt, ...) {
        if (ps->err && ps->err_size > 0) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(ps->err, ps->err_size, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

static int emit(struct parser *ps, enum ra_op_kind kind, uint64_t arg) {
        if (ps->e->n_ops >= RA_EXPR_MAX_OPS)
                return fail(ps, "expression too long (at most %d terms and operators)",
                            RA_EXPR_MAX_OPS);
        ps->e->ops[ps->e->n_ops++] = (struct ra_op){ .kind = kind, .arg = arg };
        return 0;
}

static void skip_space(struct parser *ps) {
        while (isspace((unsigned char) *ps->p))
                ps->p++;
}

static int parse_sum(struct parser *ps);

#define AT_MAX 24
/* Where the parser stands, for errors: "the end", or the text there up to
 * the next blank, marked when it is cut. buf: AT_MAX + 8 bytes. */
static const char *at(const struct parser *ps, char *buf) {
        size_t n = 0;

        if (*ps->p == 0)
                return "the end";
        while (ps->p[n] && !isspace((unsigned char) ps->p[n]))
                n++;
        snprintf(buf, AT_MAX + 8, "'%.*s%s'", (int) (n > AT_MAX ? AT_MAX : n), ps->p, n > AT_MAX ? "..." : "");
        return buf;
}

static int parse_word(struct parser *ps, char *word, size_t size) {
        char where[AT_MAX + 8];
        size_t n = 0;
        while (isalnum((unsigned char) ps->p[n]) || ps->p[n] == '_')
                n++;
        if (n >= size)
                return fail(ps, "number or name %s is longer than %zu characters", at(ps, where), size - 1);
        if (n == 0)
                return fail(ps, "expected a number, a name or '(' at %s", at(ps, where));
        memcpy(word, ps->p, n);
        word[n] = 0;
        ps->p += n;
        return 0;
}

static int parse_call(struct parser *ps, enum ra_op_kind kind, const char *name) {
        unsigned n_args = 0;
        int r;

        skip_space(ps);
        if (*ps->p != '(')
                return fail(ps, "%s needs arguments in parentheses", name);
        ps->p++;
        for (;;) {
                r = parse_sum(ps);
                if (r < 0)
                        return r;
                n_args++;
                skip_space(ps);
                if (*ps->p == ',') {
                        ps->p++;
                        continue;
                }
                if (*ps->p == ')') {
                        ps->p++;
                        break;
                }
                char where[AT_MAX + 8];
                return fail(ps, "expected ',' or ')' in %s() at %s", name, at(ps, where));
        }
        return emit(ps, kind, n_args);
}

static int parse_factor(struct parser *ps) {
        char word[32];
        int r;

        if (++ps->depth > MAX_DEPTH)
                return fail(ps, "expression nested too deeply");

        skip_space(ps);
        if (*ps->p == '(') {
                ps->p++;
                r = parse_sum(ps);
                if (r < 0)
                        return r;
                skip_space(ps);
                if (*ps->p != ')')
                        return fail(ps, "missing ')'");
                ps->p++;
        } else if (isdigit((unsigned char) *ps->p)) {
                uint64_t kb;
                r = parse_word(ps, word, sizeof(word));
                if (r < 0)
                        return r;
                r = ra_parse_size_kb(word, &kb);
                if (r == -ERANGE)
                        return fail(ps, "size '%s' is larger than 1G", word);
                if (r < 0)
                        return fail(ps, "invalid size '%s' (a whole number with K, M or G)", word);
                r = emit(ps, RA_OP_NUM, kb);
        } else {
                r = parse_word(ps, word, sizeof(word));
                if (r < 0)
                        return r;
                if (strcmp(word, "max") == 0)
                        r = parse_call(ps, RA_OP_MAX, word);
                else if (strcmp(word, "min") == 0)
                        r = parse_call(ps, RA_OP_MIN, word);
                else {
                        enum ra_var v;
                        for (v = 0; v < _RA_VAR_MAX; v++)
                                if (strcmp(word, var_names[v]) == 0)
                                        break;
                        if (v == _RA_VAR_MAX)
                                return fail(ps, "unknown variable '%s'", word);
                        ps->e->vars_used |= 1u << v;
                        r = emit(ps, RA_OP_VAR, v);
                }
        }
        ps->depth--;
        return r;
}

static int parse_product(struct parser *ps) {
        int r = parse_factor(ps);
        while (r >= 0) {
                skip_space(ps);
                char op = *ps->p;
                if (op != '*' && op != '/')
                        break;
                ps->p++;
                r = parse_factor(ps);
                if (r >= 0)
                        r = emit(ps, op == '*' ? RA_OP_MUL : RA_OP_DIV, 0);
        }
        return r;
}

static int parse_sum(struct parser *ps) {
        int r = parse_product(ps);
        while (r >= 0) {
                skip_space(ps);
                char op = *ps->p;
                if (op != '+' && op != '-')
                        break;
                ps->p++;
                r = parse_product(ps);
                if (r >= 0)
                        r = emit(ps, op == '+' ? RA_OP_ADD : RA_OP_SUB, 0);
        }
        return r;
}

int ra_expr_compile(const char *s, struct ra_expr *ret, char *err, size_t err_size) {
        struct ra_expr e = {};
        struct parser ps = { .s = s, .p = s, .e = &e, .err = err, .err_size = err_size };
        int r;

        if (strlen(s) >= RA_EXPR_MAX_LEN)
                return fail(&ps, "expression longer than %d characters", RA_EXPR_MAX_LEN - 1);
        skip_space(&ps);
        if (*ps.p == 0)
                return fail(&ps, "empty expression");

        r = parse_sum(&ps);
        if (r < 0)
                return r;
        skip_space(&ps);
        if (*ps.p != 0)
                return fail(&ps, "unexpected '%.16s'", ps.p);

        *ret = e;
        return 0;
}

/* One binary operation, as evaluation does it. */
static int apply_op(enum ra_op_kind kind, uint64_t a, uint64_t b, uint64_t *ret) {
        switch (kind) {
        case RA_OP_ADD:
                if (a > UINT64_MAX - b)
                        return -ERANGE;
                *ret = a + b;
                return 0;
        case RA_OP_SUB:
                if (b > a)
                        return -ERANGE;
                *ret = a - b;
                return 0;
        case RA_OP_MUL:
                if (a != 0 && b > UINT64_MAX / a)
                        return -ERANGE;
                *ret = a * b;
                return 0;
        case RA_OP_DIV:
                if (b == 0)
                        return -EDOM;
                *ret = a / b;
                return 0;
        default:
                return -EINVAL;
        }
}

int ra_expr_check_constants(const struct ra_expr *e, char *err, size_t err_size) {
        struct {
                bool known;
                uint64_t value;
        } stack[RA_EXPR_MAX_OPS];
        unsigned sp = 0;

        for (unsigned i = 0; i < e->n_ops; i++) {
                const struct ra_op *op = &e->ops[i];

                if (op->kind == RA_OP_NUM || op->kind == RA_OP_VAR) {
                        stack[sp].known = op->kind == RA_OP_NUM;
                        stack[sp++].value = op->arg;
                        continue;
                }
                if (op->kind == RA_OP_MIN || op->kind == RA_OP_MAX) {
                        if (op->arg == 0 || op->arg > sp)
                                return -EINVAL;
                        bool known = true;
                        uint64_t v = stack[sp - op->arg].value;
                        for (unsigned k = sp - (unsigned) op->arg; k < sp; k++) {
                                known = known && stack[k].known;
                                v = (op->kind == RA_OP_MIN) == (stack[k].value < v) ? stack[k].value : v;
                        }
                        sp -= (unsigned) op->arg;
                        stack[sp].known = known;
                        stack[sp++].value = v;
                        continue;
                }
                if (sp < 2)
                        return -EINVAL;
                sp -= 2;
                bool a_known = stack[sp].known, b_known = stack[sp + 1].known;
                uint64_t v = 0;
                int r = 0;
                if (op->kind == RA_OP_DIV && b_known && stack[sp + 1].value == 0)
                        r = -EDOM; /* whatever the dividend */
                else if (a_known && b_known)
                        r = apply_op(op->kind, stack[sp].value, stack[sp + 1].value, &v);
                if (r < 0) {
                        if (err && err_size > 0)
                                snprintf(err, err_size, "%s whatever the device",
                                         r == -EDOM ? "division by zero" : "out of range");
                        return r;
                }
                stack[sp].known = a_known && b_known;
                stack[sp++].value = v;
        }
        return 0;
}

int ra_expr_eval(const struct ra_expr *e, const struct ra_vars *vars, uint64_t *ret_kb,
                 enum ra_var *missing) {
        uint64_t stack[RA_EXPR_MAX_OPS];
        unsigned sp = 0;

        for (unsigned i = 0; i < e->n_ops; i++) {
                const struct ra_op *op = &e->ops[i];
                uint64_t a, b;

                switch (op->kind) {
                case RA_OP_NUM:
                        stack[sp++] = op->arg;
                        continue;
                case RA_OP_VAR:
                        if (op->arg >= _RA_VAR_MAX || !(vars->known & (1u << op->arg))) {
                                if (missing)
                                        *missing = (enum ra_var) op->arg;
                                return -ENODATA;
                        }
                        stack[sp++] = vars->value[op->arg];
                        continue;
                case RA_OP_MIN:
                case RA_OP_MAX: {
                        if (op->arg == 0 || op->arg > sp)
                                return -EINVAL;
                        uint64_t v = stack[sp - op->arg];
                        for (unsigned k = sp - (unsigned) op->arg + 1; k < sp; k++)
                                v = (op->kind == RA_OP_MIN) == (stack[k] < v) ? stack[k] : v;
                        sp -= (unsigned) op->arg;
                        stack[sp++] = v;
                        continue;
                }
                default:
                        break;
                }

                if (sp < 2)
                        return -EINVAL;
                b = stack[--sp];
                a = stack[--sp];
                int r = apply_op(op->kind, a, b, &stack[sp]);
                if (r < 0)
                        return r;
                sp++;
        }
        if (sp != 1)
                return -EINVAL;
        *ret_kb = stack[0];
        return 0;
}
