/* SPDX-License-Identifier: MIT */
/*
 * Compiles the input as a size expression and evaluates it against several
 * sets of variables, checking the documented contract: compile fails only
 * with -EINVAL and a terminated message; eval returns 0, -ENODATA (naming a
 * variable the expression uses and the device lacks), -EDOM or -ERANGE, and
 * gives the same answer twice. ra_expr_check_constants() agrees with eval:
 * an expression without variables passes it exactly when it evaluates, and
 * one it refuses fails for every set of values.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "fuzz.h"

static void eval_and_check(const struct ra_expr *e, const struct ra_vars *v)
{
        enum ra_var missing = _RA_VAR_MAX;
        uint64_t kb = 0, kb2 = 0;
        int r, r2;

        r = ra_expr_eval(e, v, &kb, &missing);
        FUZZ_ASSERT(r == 0 || r == -ENODATA || r == -EDOM || r == -ERANGE);
        if (r == -ENODATA) {
                FUZZ_ASSERT((unsigned)missing < _RA_VAR_MAX);
                FUZZ_ASSERT(e->vars_used & (1u << missing));
                FUZZ_ASSERT(!(v->known & (1u << missing)));
        }
        if ((e->vars_used & ~v->known) == 0)
                FUZZ_ASSERT(r != -ENODATA);

        r2 = ra_expr_eval(e, v, &kb2, NULL);
        FUZZ_ASSERT(r == r2);
        if (r == 0)
                FUZZ_ASSERT(kb == kb2);
}

static void all_known(struct ra_vars *v, uint64_t value)
{
        for (int i = 0; i < _RA_VAR_MAX; i++)
                v->value[i] = value;
        v->known = (1u << _RA_VAR_MAX) - 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const uint64_t typical[_RA_VAR_MAX] = {
                [RA_VAR_DEFAULT] = 512,   [RA_VAR_MINIMUM] = 32,   [RA_VAR_STRIPE] = 1536,
                [RA_VAR_CHUNK] = 512,     [RA_VAR_DATA_DISKS] = 3, [RA_VAR_IO_OPT] = 1536,
                [RA_VAR_IO_MIN] = 512,    [RA_VAR_RSIZE] = 1024,   [RA_VAR_SIZE] = 976762584,
                [RA_VAR_MEMORY] = 16777216, [RA_VAR_CURRENT] = 128,
        };
        struct ra_vars v;
        struct ra_expr e, e2;
        char s[1024], err[96], tiny[1];
        int r;

        if (size >= sizeof(s))
                return 0;
        memcpy(s, data, size);
        s[size] = '\0';

        memset(err, 'x', sizeof(err));
        r = ra_expr_compile(s, &e, err, sizeof(err));
        FUZZ_ASSERT(r == 0 || r == -EINVAL);
        /* The same answer without a message buffer, or with a tiny one. */
        FUZZ_ASSERT(ra_expr_compile(s, &e2, NULL, 0) == r);
        tiny[0] = 'x';
        FUZZ_ASSERT(ra_expr_compile(s, &e2, tiny, sizeof(tiny)) == r);
        FUZZ_ASSERT(tiny[0] == '\0' || r == 0);
        if (r < 0) {
                FUZZ_ASSERT(memchr(err, '\0', sizeof(err)) != NULL);
                FUZZ_ASSERT(err[0] != '\0');
                return 0;
        }

        FUZZ_ASSERT(e.n_ops <= RA_EXPR_MAX_OPS);
        FUZZ_ASSERT((e.vars_used >> _RA_VAR_MAX) == 0);
        FUZZ_ASSERT(e2.n_ops == e.n_ops && e2.vars_used == e.vars_used);

        uint64_t kb;
        int constant = ra_expr_check_constants(&e, err, sizeof(err));
        FUZZ_ASSERT(constant == 0 || constant == -EDOM || constant == -ERANGE);
        if (e.vars_used == 0) {
                v.known = 0;
                FUZZ_ASSERT((ra_expr_eval(&e, &v, &kb, NULL) == 0) == (constant == 0));
        }
        if (constant < 0) {
                all_known(&v, 1);
                FUZZ_ASSERT(ra_expr_eval(&e, &v, &kb, NULL) < 0);
                all_known(&v, UINT64_C(1) << 20);
                FUZZ_ASSERT(ra_expr_eval(&e, &v, &kb, NULL) < 0);
        }

        memcpy(v.value, typical, sizeof(v.value));
        v.known = (1u << _RA_VAR_MAX) - 1;
        eval_and_check(&e, &v);

        v.known = (1u << RA_VAR_DEFAULT) | (1u << RA_VAR_MINIMUM) | (1u << RA_VAR_MEMORY);
        eval_and_check(&e, &v);

        v.known = 0;
        eval_and_check(&e, &v);

        all_known(&v, 0);
        eval_and_check(&e, &v);
        all_known(&v, 1);
        eval_and_check(&e, &v);
        all_known(&v, UINT64_MAX);
        eval_and_check(&e, &v);
        all_known(&v, UINT64_C(1) << 32);
        eval_and_check(&e, &v);
        return 0;
}
