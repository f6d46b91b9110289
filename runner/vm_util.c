/*
 * The file and process helpers the vm files share: a file read whole, a
 * tool run to its end with its output kept.
 */
#include "vm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The whole of path into b: 0 (b->buf set, "" for an empty file) or
 * -errno. */
int vm_slurp(const char *path, struct strbuf *b)
{
	return strbuf_read_file(b, path);
}

/*
 * Run argv with stdin from /dev/null and stdout into out (NULL: to
 * /dev/null); stderr into err_out when not NULL.  The exit status, or -1.
 */
int vm_spawn_wait(char *const *argv, struct strbuf *out,
		  struct strbuf *err_out)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, st;
	pid_t pid;
	char chunk[65536];
	ssize_t n;

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (!pid) {
		int nul = open("/dev/null", O_RDWR);

		dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* stdout first, then stderr: these tools say little on stderr */
	while ((n = read(po[0], chunk, sizeof(chunk))) > 0)
		if (out)
			strbuf_add(out, chunk, (size_t)n);
	while ((n = read(pe[0], chunk, sizeof(chunk))) > 0)
		if (err_out)
			strbuf_add(err_out, chunk, (size_t)n);
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
fail:
	for (n = 0; n < 2; n++) {
		if (po[n] >= 0)
			close(po[n]);
		if (pe[n] >= 0)
			close(pe[n]);
	}
	return -1;
}

bool vm_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

int vm_file_sha256(const char *path, char *h, size_t n)
{
	char *argv[] = { "sha256sum", (char *)path, NULL };
	struct strbuf out = STRBUF_INIT;
	int r = vm_spawn_wait(argv, &out, NULL);

	h[0] = '\0';
	if (!r && out.buf && strcspn(out.buf, " ") == 64 && n > 64) {
		memcpy(h, out.buf, 64);
		h[64] = '\0';
	} else {
		r = -1;
	}
	strbuf_release(&out);
	return r;
}
