#!/usr/bin/env python3
"""Times two commands run in alternation (A, B, A, B, ...) and prints each one's median wall
time in seconds, A's first.

Run back to back (as hyperfine does: all of A, then all of B), a burst of load from anything
else on the machine lands on one command only and skews the ratio; in alternation it lands on
both alike. Each command is split like a shell word list (no shell is started) and spawned with
posix_spawn, its output sent to /dev/null, as `hyperfine -N` does.

usage: alternate.py RUNS WARMUP CMD_A CMD_B [PREPARE_A PREPARE_B]
A PREPARE command, when given and not empty, runs untimed before each run of its command.
"""

import os
import shlex
import statistics
import sys
import time


def spawn_and_wait(argv, devnull):
    started = time.perf_counter()
    pid = os.posix_spawnp(
        argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)]
    )
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"alternate.py: `{shlex.join(argv)}` failed ({status}); run it by hand")
    return elapsed


def main():
    if len(sys.argv) not in (5, 7):
        sys.exit(__doc__)
    runs, warmup = int(sys.argv[1]), int(sys.argv[2])
    commands = [shlex.split(sys.argv[3]), shlex.split(sys.argv[4])]
    prepares = [shlex.split(p) if p else None for p in sys.argv[5:7]] or [None, None]
    devnull = os.open(os.devnull, os.O_WRONLY)
    times = [[], []]
    for run in range(warmup + runs):
        for which in (0, 1):
            if prepares[which]:
                spawn_and_wait(prepares[which], devnull)
            elapsed = spawn_and_wait(commands[which], devnull)
            if run >= warmup:
                times[which].append(elapsed)
    print(statistics.median(times[0]), statistics.median(times[1]))


if __name__ == "__main__":
    main()
