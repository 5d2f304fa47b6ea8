/* SPDX-License-Identifier: MIT */
/*
 * The cheapest possible udev helper: bench/bench.sh runs it from a rule to
 * measure what any program run from a rule costs (fork, exec, dynamic loading,
 * reading an empty stdout) before a helper does any work.
 */
int main(void)
{
        return 0;
}
