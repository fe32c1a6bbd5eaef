/* harness/worker/deathnote.h: a worker's last word to its supervisor, through the death pipe the supervisor made
 * (supervisor/suphost.c). Two bytes, written before the process starts to end: 'S' and the fatal signal, from an
 * async-signal-safe handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that then lets the signal kill the
 * process; or 'E' and the exit code. SIGKILL leaves no word: the pipe just ends, when the kernel closes the
 * process's files. Either way the supervisor knows before the process is gone (a CUDA context's teardown takes
 * about 100 ms after that). */
#ifndef GAUNTLET_DEATHNOTE_H
#define GAUNTLET_DEATHNOTE_H

/* Takes the write end fd (moved to the lowest free descriptor: the kernel closes a dying process's files in
 * order, this one before any the worker opens later, a GPU driver's included) and installs the handlers.
 * ending_s > 0 (sim.teardown): each death then takes that long to end after its word, as a GPU context's teardown
 * does. 0, or -1 with errno. */
int deathnote_init(int fd, double ending_s);

/* Says the process is exiting with code (then waits ending_s); the caller exits. Once per process. */
void deathnote_exit(int code);

#endif
