import { CONSOLE_SECRET_NAMES } from "../env";
import { SHELL_RESET_NAMES } from "../skills/child-environment";

/**
 * Names a secret may not have, whatever its value (DESIGN.md "Skill secrets"): the console's own
 * secrets (never forwarded to a skill), and variables that change how programs run rather than what
 * they are given (a "secret" LD_PRELOAD or BASH_ENV would run code of the admin's choosing inside every
 * skill it names).
 */
const REFUSED_NAMES = new Set([...CONSOLE_SECRET_NAMES, "PATH", "HOME", "PWD", "SHELL", "ENV", "BASH_ENV", "CDPATH", "GLOBIGNORE", "PS4", "PROMPT_COMMAND", "NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PERL5LIB", "PERL5OPT", "RUBYOPT", "RUBYLIB", "TMPDIR"]);
/** Name prefixes refused for the same reason (the dynamic linker's and glibc's tunables). */
const REFUSED_PREFIXES = ["LD_", "GLIBC_", "MALLOC_"];

/**
 * Why no secret may be named `name` — e.g. "IFS cannot be a secret: the shell that puts a call in its
 * cgroups sets IFS itself, so a skill would never see the value" — or null when one may (its form,
 * letters, digits and _, is checked apart). Used by the secrets API to refuse the name and by the
 * registry to say why a skill needing it can never be given it. Pure.
 */
export function secretNameRefusal(name: string): string | null {
  if (SHELL_RESET_NAMES.includes(name)) return `${name} cannot be a secret: the shell that puts a call in its cgroups sets ${name} itself, so a skill would never see the value`;
  if (REFUSED_NAMES.has(name) || REFUSED_PREFIXES.some((prefix) => name.startsWith(prefix))) {
    return `${name} cannot be a secret: it is one of the console's own secrets or changes how programs run, not what they are given`;
  }
  return null;
}
