/*
 * Booting the next kernel of a plan: `grub-reboot ENTRY && systemctl
 * reboot` for a GRUB menu entry, `kexec -l IMAGE ... && systemctl kexec`
 * for a kernel image.  Printed for a person, or run.
 */
#ifndef FB_BOOT_H
#define FB_BOOT_H

#include "common/common.h"
#include "runner/runner.h"

#define BOOT_MAX_ARGS 8

/* Two commands, the second run only when the first succeeded. */
struct boot_cmds {
	char *argv[2][BOOT_MAX_ARGS];	/* NULL-terminated, owned */
};

/* The commands that boot ps; -EINVAL when ps says no way to boot. */
int boot_cmds_make(const struct plan_side *ps, struct boot_cmds *c);
void boot_cmds_release(struct boot_cmds *c);
/* As one shell line, every word quoted where the shell would split it. */
void boot_cmds_line(const struct boot_cmds *c, struct strbuf *sb);
/*
 * Run them: each in a child, its output to ours; the second only after
 * the first exits 0.  0, or -1 with why in err (the command, its status).
 */
int boot_cmds_run(const struct boot_cmds *c, struct strbuf *err);

/*
 * Would grub-reboot ENTRY boot a kernel: grub-reboot installed, a GRUB menu
 * (FOLIOBENCH_GRUB_CFG, else /boot/grub/grub.cfg or /boot/grub2/grub.cfg)
 * that reads next_entry, and in it the entry: a menuentry's title, id or
 * number, after the submenus on its path ("Advanced options for
 * Debian GNU/Linux>Debian GNU/Linux, with Linux 6.18.0-base"), as GRUB
 * reads its default.  0, or -1 with why in err (what the menu has
 * instead).
 */
int boot_grub_check(const char *entry, struct strbuf *err);

#endif
