/* tests/test_sharedfolder.c: checkpoint folders shared by runs. Each run holds an flock on its own tag's lock
 * file; a run starting removes only the files of tags nobody holds. Host names and pids play no part: two runs
 * with the same name and the same pid (two pid namespaces) and host names that are suffixes of each other
 * ("vm", "x-vm") keep their own files; a run killed outright (its whole pid namespace) loses its lock, and its
 * files go with the next sweep. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkpoint.h"
#include "e2e.h"
#include "util.h"

/* A fresh folder under /tmp. */
static const char *tmpdir(void)
{
    static char dir[128];
    snprintf(dir, sizeof dir, "/tmp/gauntlet-shared-XXXXXX");
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    return dir;
}

/* How many distinct tags the checkpoint files in dir carry, and how many lock files it holds. */
static int tags_in(const char *dir, int *locks)
{
    char seen[16][512], tag[512];
    int n = 0;
    *locks = 0;
    DIR *d = opendir(dir);
    cr_assert(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".lock") == 0)
            (*locks)++;
        if (checkpoint_file_tag(e->d_name, tag, sizeof tag) != 0)
            continue;
        int k = 0;
        while (k < n && strcmp(seen[k], tag) != 0)
            k++;
        if (k == n && n < 16)
            str_copy(seen[n++], sizeof seen[0], tag);
    }
    closedir(d);
    return n;
}

Test(sweep, a_file_name_gives_its_tag)
{
    char t[64];
    cr_expect_eq(checkpoint_file_tag("a-vm-12-0badf00d-rank3-1.ckpt", t, sizeof t), 0);
    cr_expect_str_eq(t, "a-vm-12-0badf00d");
    cr_expect_eq(checkpoint_file_tag("a-rank1-x-vm-2-00000001-n1-rank10-0.ckpt.tmp", t, sizeof t), 0);
    cr_expect_str_eq(t, "a-rank1-x-vm-2-00000001-n1");
    /* every generation a run may keep (scenario_ckpt_gens: up to 16), none past them: a sweep that took only 0 and
     * 1 left a restart's third generation behind */
    for (int gen = 0; gen < 20; gen++) {
        char name[64];
        snprintf(name, sizeof name, "a-vm-12-rank3-%d.ckpt%s", gen, gen % 2 ? ".tmp" : "");
        cr_expect_eq(checkpoint_file_tag(name, t, sizeof t), gen < CKPT_GENS_MAX ? 0 : -1, "%s", name);
        if (gen < CKPT_GENS_MAX)
            cr_expect_str_eq(t, "a-vm-12");
    }
    cr_expect_eq(checkpoint_file_tag("a-vm-12-rank3-01.ckpt", t, sizeof t), -1, "no leading zero");
    cr_expect_eq(checkpoint_file_tag("a-vm-12-rank3-.ckpt", t, sizeof t), -1, "no generation");
    cr_expect_eq(checkpoint_file_tag("a-vm-12-rank-0.ckpt", t, sizeof t), -1, "no rank number");
    cr_expect_eq(checkpoint_file_tag("notes.txt", t, sizeof t), -1);
    cr_expect_eq(checkpoint_file_tag("-rank0-0.ckpt", t, sizeof t), -1, "no tag");
    char a[192], b[192];
    checkpoint_tag(a, sizeof a, "same", 0, 1);
    checkpoint_tag(b, sizeof b, "same", 0, 1);
    cr_expect_str_neq(a, b, "two runs of one process's name and pid share no tag");
}

/* A lock held by another process keeps its files; a lock nobody holds, or a lock file left alone, does not;
 * files without any lock file (an older version's) and other files stay. */
Test(sweep, only_tags_nobody_holds_are_removed)
{
    const char *dir = tmpdir();
    char path[512];
    const char *files[] = { "held-h-1-00000001-rank0-0.ckpt", "held-h-1-00000001-rank1-1.ckpt.tmp",
                            "dead-h-1-00000002-rank0-0.ckpt", "dead-h-1-00000002-rank0-1.ckpt",
                            "old-h-7-rank0-0.ckpt", "notes.txt", NULL };
    for (int i = 0; files[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        cr_assert(fd >= 0);
        close(fd);
    }
    int held = checkpoint_lock(dir, "held-h-1-00000001");
    cr_assert(held >= 0);
    int pfd[2];
    cr_assert_eq(pipe(pfd), 0);
    pid_t holder = fork();   /* another process's lock: the same host, another "run" */
    cr_assert(holder >= 0);
    if (holder == 0) {
        close(pfd[0]);
        int fd = checkpoint_lock(dir, "other-h-1-00000003");
        if (write(pfd[1], fd >= 0 ? "y" : "n", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(pfd[1]);
    char c = 0;
    cr_assert_eq(read(pfd[0], &c, 1), 1);
    cr_assert_eq(c, 'y');
    snprintf(path, sizeof path, "%s/other-h-1-00000003-rank0-0.ckpt", dir);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    close(fd);
    int dead = checkpoint_lock(dir, "dead-h-1-00000002");
    cr_assert(dead >= 0);
    close(dead);   /* a run killed outright: its lock file stays, nobody holds it */
    cr_expect_eq(checkpoint_sweep(dir), 2, "the dead tag's two files");
    int locks;
    cr_expect_eq(tags_in(dir, &locks), 3, "held, other and the old version's");
    cr_expect_eq(locks, 2, "the dead tag's lock file goes with its files");
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    cr_expect_eq(access(path, F_OK), 0, "a file that is no checkpoint stays");
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
    cr_expect_eq(checkpoint_sweep(dir), 1, "the other process is gone: its file goes");
    checkpoint_remove(dir, "held-h-1-00000001", 0);
    checkpoint_remove(dir, "held-h-1-00000001", 1);
    checkpoint_unlock(dir, "held-h-1-00000001", held);
    cr_expect_eq(checkpoint_sweep(dir), 0);
    cr_expect_eq(tags_in(dir, &locks), 1, "the old version's file is left alone");
    cr_expect_eq(locks, 0);
}

/* Starts `gauntlet run scenario --out out` in a pid and UTS namespace of its own with this host name: the run is
 * that namespace's pid 2 (a reaper is pid 1), so two such runs have the same pid. Returns the reaper's pid here
 * (killing it ends the namespace: the run and its workers die at once), or -1 with why when the machine gives no
 * namespace (not root). */
static pid_t run_in_namespace(const char *host, const char *scenario, const char *out, const char *log, char *why, size_t n)
{
    int pfd[2];
    cr_assert_eq(pipe(pfd), 0);
    pid_t w = fork();
    cr_assert(w >= 0);
    if (w == 0) {
        close(pfd[0]);
        char msg[200] = "";
        if (unshare(CLONE_NEWPID | CLONE_NEWUTS) != 0)
            snprintf(msg, sizeof msg, "unshare(CLONE_NEWPID | CLONE_NEWUTS): %s", strerror(errno));
        else if (sethostname(host, strlen(host)) != 0)
            snprintf(msg, sizeof msg, "sethostname: %s", strerror(errno));
        if (msg[0]) {
            if (write(pfd[1], msg, strlen(msg) + 1) < 0)
                _exit(1);
            _exit(1);
        }
        pid_t g = fork();   /* pid 1 of the new namespace */
        if (g == 0) {
            const char *argv[] = { "run", scenario, "--backend", "sim", "--headless", "--out", out, NULL };
            _exit(e2e_run(log, argv));
        }
        char ok[32];
        snprintf(ok, sizeof ok, "pid %d", (int)g);
        if (write(pfd[1], ok, strlen(ok) + 1) < 0)
            _exit(1);
        _exit(0);   /* the reaper lives on (reparented); the test kills it by its pid */
    }
    close(pfd[1]);
    char msg[200] = "";
    ssize_t got = read(pfd[0], msg, sizeof msg - 1);
    close(pfd[0]);
    waitpid(w, NULL, 0);
    if (got > 4 && strncmp(msg, "pid ", 4) == 0)
        return (pid_t)atoi(msg + 4);
    str_copy(why, n, got > 0 ? msg : "the namespace helper said nothing");
    return -1;
}

/* Waits until the reaper (not our child: reparented to init or a subreaper) is gone. */
static void kill_namespace(pid_t reaper)
{
    cr_assert_eq(kill(reaper, SIGKILL), 0);
    for (int k = 0; k < 500 && kill(reaper, 0) == 0; k++) {
        waitpid(reaper, NULL, WNOHANG);
        usleep(10000);
    }
}

Test(sweep, two_pid_namespaces_share_a_folder, .timeout = 300)
{
    const char *dir = tmpdir();
    char text[1024], why[200];
    snprintf(text, sizeof text, "name: twin\nranks: 2\niterations: 1000000\nseed: 1\n"
                                "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                                "  checkpoint: {every: 5, bytes: 4KiB, path: %s}\nrecovery: restart\n", dir);
    const char *path = e2e_scenario(text);
    /* this test process is the reapers' subreaper: a killed namespace's pid 1 is reaped here */
    cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    const char *out_a = e2e_outdir(), *out_b = e2e_outdir();
    pid_t a = run_in_namespace("x-vm", path, out_a, e2e_log("shared-a.log"), why, sizeof why);
    if (a < 0)
        cr_skip_test("no pid namespace here: %s", why);
    cr_assert_eq(e2e_wait_started(out_a, 40, 60), 0, "the first run did not start");
    int locks;
    cr_assert_eq(tags_in(dir, &locks), 1);
    pid_t b = run_in_namespace("vm", path, out_b, e2e_log("shared-b.log"), why, sizeof why);
    cr_assert(b > 0, "%s", why);
    cr_assert_eq(e2e_wait_started(out_b, 40, 60), 0, "the second run did not start");
    char *log = e2e_read(e2e_log("shared-b.log"));
    cr_expect(!log || !strstr(log, "left by runs that are gone"), "the second run swept the first's files:\n%s", log);
    free(log);
    cr_expect_eq(tags_in(dir, &locks), 2, "each run keeps its own files");
    cr_expect_eq(locks, 2);
    /* the first run killed outright, its whole namespace: its lock goes with it, its files stay until a sweep */
    kill_namespace(a);
    cr_expect_eq(tags_in(dir, &locks), 2);
    int removed = checkpoint_sweep(dir);
    cr_expect(removed >= 2, "the killed run's files: %d removed", removed);
    cr_expect_eq(tags_in(dir, &locks), 1, "the live run's files stay");
    cr_expect_eq(locks, 1);
    kill_namespace(b);
    cr_expect(checkpoint_sweep(dir) >= 2);
    cr_expect_eq(tags_in(dir, &locks), 0);
    cr_expect_eq(locks, 0);
}
