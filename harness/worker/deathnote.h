/* harness/worker/deathnote.h: a worker's last word to its supervisor, through the two death pipes the supervisor
 * made (supervisor/suphost.c). Two bytes, written to both before the process starts to end: 'S' and the fatal
 * signal, from an async-signal-safe handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that then lets the
 * signal kill the process; or 'E' and the exit code. SIGKILL leaves no word: a pipe just ends when the kernel
 * releases the process's files. Either way the supervisor knows before the process is gone (a CUDA context's
 * teardown takes about 100 ms after that).
 *
 * Why two: a dying process's files are closed in descriptor order, lowest first, but each one's release (a pipe's
 * end, a GPU driver's teardown) is deferred to a list the kernel runs at the end of the exit — in that order on
 * older kernels and in the reverse order on newer ones. One write end sits at the lowest free descriptor, the
 * other near the top of the table (above what a worker opens), so one of the two ends before any GPU driver file,
 * whichever the kernel's order; the supervisor takes the first. */
#ifndef GAUNTLET_DEATHNOTE_H
#define GAUNTLET_DEATHNOTE_H

/* Takes the two write ends fd[0] and fd[1] (moved to the lowest free descriptor and near the top of the
 * descriptor table) and installs the handlers. ending_s > 0 (sim.teardown): each death then takes that long to end
 * after its word, as a GPU context's teardown does. 0, or -1 with errno. */
int deathnote_init(const int fd[2], double ending_s);

/* Says the process is exiting with code (then waits ending_s); the caller exits. Once per process. */
void deathnote_exit(int code);

#endif
