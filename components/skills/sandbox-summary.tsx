import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import type { SkillSandbox } from "@/lib/types/skill";

/** One line of a sandbox declaration in plain words; `widens` marks what reaches past the default sandbox. */
interface SandboxLine {
  key: string;
  text: string;
  widens: boolean;
}

/**
 * The declaration as sentences, in a fixed order: reads, writes, network, devices, host processes
 * (DESIGN.md "Sandbox": the skill's own folder read-only, a private /tmp and HOME, nothing else of the
 * host unless declared).
 */
function sandboxLines(sandbox: SkillSandbox): SandboxLine[] {
  const lines: SandboxLine[] = [];
  if (sandbox.read.length === 0) lines.push({ key: "read", text: "Reads only its own folder and the system's /usr, /bin, /lib and /etc", widens: false });
  for (const path of sandbox.read) lines.push({ key: `read:${path}`, text: `Reads ${path}`, widens: true });
  if (sandbox.write.length === 0) lines.push({ key: "write", text: "Writes only its private /tmp and HOME", widens: false });
  for (const path of sandbox.write) lines.push({ key: `write:${path}`, text: `Writes ${path}`, widens: true });
  lines.push(
    sandbox.network
      ? { key: "network", text: "Network: on", widens: false }
      : { key: "network", text: "No network (loopback only)", widens: false },
  );
  if (sandbox.devices.length === 0) lines.push({ key: "devices", text: "No devices", widens: false });
  for (const device of sandbox.devices) lines.push({ key: `device:${device}`, text: `Uses device ${device}`, widens: true });
  lines.push(
    sandbox.hostPids
      ? { key: "pids", text: "Sees and signals host processes", widens: true }
      : { key: "pids", text: "Sees only its own processes", widens: false },
  );
  return lines;
}

/**
 * A skill's sandbox declaration (`sandbox` in skill.json or the SKILL.md frontmatter; DESIGN.md
 * "Workers and the sandbox") as a list of plain sentences — "Reads /var/log", "No network (loopback
 * only)" — with what widens the default sandbox in amber. Shared by the skill page and every approval.
 * `null` (an approval older than sandbox declarations) says it was not recorded.
 */
export function SandboxSummary({ sandbox, className }: { sandbox: SkillSandbox | null; className?: string }) {
  if (sandbox === null) return <p className={cx("text-sm text-zinc-500", className)}>Not recorded for this request.</p>;
  return (
    <ul className={cx("space-y-1 text-sm", className)} data-testid="sandbox-summary">
      {sandboxLines(sandbox).map((line) => (
        <li key={line.key} className={cx("flex items-start gap-2 break-words", line.widens ? "text-amber-800" : "text-zinc-800")} data-widens={line.widens || undefined}>
          <span aria-hidden="true" className={cx("mt-2 inline-block size-1.5 shrink-0 rounded-full", line.widens ? "bg-amber-500" : "bg-zinc-300")} />
          <span className="min-w-0">{line.text}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The skill page's "Sandbox" card: the declaration (SandboxSummary) and what it means — it holds when
 * a worker runs the call under bubblewrap, is part of the skill's digest, and a worker without a
 * sandbox runs the skill with the host's full access (its warning is on the Workers page).
 */
export function SkillSandboxCard({ sandbox }: { sandbox: SkillSandbox }) {
  return (
    <Card aria-labelledby="skill-sandbox-title">
      <CardHeader title="Sandbox" titleId="skill-sandbox-title" description="What it declares it needs beyond its own folder; part of its digest." />
      <CardBody className="space-y-2">
        <SandboxSummary sandbox={sandbox} />
        <p className="text-xs text-zinc-500">Enforced where a worker runs calls under bubblewrap; a worker with no sandbox runs it with the host&apos;s full access.</p>
      </CardBody>
    </Card>
  );
}
