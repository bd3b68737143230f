"use client";

import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/input";
import { useMarketplacePlugins, useStagePack, type StageInput } from "@/lib/client/use-packs";

type SourceType = StageInput["type"];

function Field({ label, hint, children, htmlFor }: { label: string; hint?: string; children: React.ReactNode; htmlFor: string }) {
  return (
    <div className="min-w-0">
      <label htmlFor={htmlFor} className="block text-xs font-medium text-zinc-700">
        {label}
      </label>
      <div className="mt-1">{children}</div>
      {hint ? <p className="mt-1 text-xs text-zinc-500">{hint}</p> : null}
    </div>
  );
}

/**
 * The form that stages a pack (DESIGN.md "Skill packs"): from a folder on the console's host, a git
 * repository at a branch, tag or commit (resolved to a commit and recorded), or a `.tar.gz` upload; an
 * optional marketplace plugin (List plugins reads `.claude-plugin/marketplace.json`). A refusal shows
 * its reason; a staged pack opens its review, where nothing runs until it is enabled.
 */
export function StagePackForm() {
  const router = useRouter();
  const id = useId();
  const stage = useStagePack();
  const plugins = useMarketplacePlugins();
  const [type, setType] = useState<SourceType>("folder");
  const [folder, setFolder] = useState("");
  const [url, setUrl] = useState("");
  const [ref, setRef] = useState("main");
  const [file, setFile] = useState<File | null>(null);
  const [plugin, setPlugin] = useState("");

  const ready = type === "folder" ? folder.trim() !== "" : type === "git" ? url.trim() !== "" && ref.trim() !== "" : file !== null;

  function input(): StageInput | null {
    const chosen = plugin.trim() === "" ? {} : { plugin: plugin.trim() };
    if (type === "folder") return { type, path: folder.trim(), ...chosen };
    if (type === "git") return { type, url: url.trim(), ref: ref.trim(), ...chosen };
    return file ? { type, file, ...chosen } : null;
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const request = input();
    if (!request) return;
    plugins.reset();
    stage.mutate(request, { onSuccess: (pack) => router.push(`/packs/${pack.id}`) });
  }

  /** A new source: what was said of the last one (its plugins, its refusal) no longer applies. */
  function changed<T>(set: (value: T) => void): (value: T) => void {
    return (value) => {
      plugins.reset();
      stage.reset();
      set(value);
    };
  }

  function listPlugins() {
    if (type === "folder") plugins.mutate({ type, path: folder.trim() });
    else if (type === "git") plugins.mutate({ type, url: url.trim(), ref: ref.trim() });
  }

  return (
    <Card>
      <CardHeader title="Stage a pack" description="Staging reads and reviews a pack; none of its skills can run until an admin enables it." />
      <CardBody>
        <form onSubmit={submit} className="space-y-3" aria-label="Stage a pack">
          <div className="grid gap-3 sm:grid-cols-[12rem_1fr]">
            <Field label="Source" htmlFor={`${id}-type`}>
              <Select id={`${id}-type`} value={type} onChange={(event) => changed(setType)(event.target.value as SourceType)}>
                <option value="folder">Folder on this host</option>
                <option value="git">Git repository</option>
                <option value="upload">.tar.gz upload</option>
              </Select>
            </Field>
            {type === "folder" ? (
              <Field label="Folder" htmlFor={`${id}-folder`} hint="An absolute path on the console's host, holding pack.json (or a marketplace).">
                <Input id={`${id}-folder`} value={folder} onChange={(event) => changed(setFolder)(event.target.value)} placeholder="/srv/packs/ops-tools" className="font-mono" />
              </Field>
            ) : type === "git" ? (
              <div className="grid min-w-0 gap-3 sm:grid-cols-[1fr_10rem]">
                <Field label="Repository URL" htmlFor={`${id}-url`} hint="A path or file:// URL is local; a remote pack must be signed.">
                  <Input id={`${id}-url`} value={url} onChange={(event) => changed(setUrl)(event.target.value)} placeholder="https://git.example.com/ops/packs.git" className="font-mono" />
                </Field>
                <Field label="Branch, tag or commit" htmlFor={`${id}-ref`}>
                  <Input id={`${id}-ref`} value={ref} onChange={(event) => changed(setRef)(event.target.value)} className="font-mono" />
                </Field>
              </div>
            ) : (
              <Field label="Archive" htmlFor={`${id}-file`} hint="A .tar.gz of the pack folder (files, folders and links inside it only).">
                <Input id={`${id}-file`} type="file" accept=".tar.gz,.tgz,application/gzip" onChange={(event) => changed(setFile)(event.target.files?.[0] ?? null)} />
              </Field>
            )}
          </div>
          <div className="grid gap-3 sm:grid-cols-[12rem_1fr]">
            <Field label="Marketplace plugin" htmlFor={`${id}-plugin`}>
              <Input id={`${id}-plugin`} value={plugin} onChange={(event) => setPlugin(event.target.value)} placeholder="(none)" className="font-mono" />
            </Field>
            <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1 sm:pt-5">
              {type !== "upload" ? (
                <Button size="sm" onClick={listPlugins} disabled={!ready} pending={plugins.isPending}>
                  List plugins
                </Button>
              ) : null}
              <p className="text-xs text-zinc-500">Only for a Claude Code marketplace (.claude-plugin/marketplace.json): the plugin to stage as a pack.</p>
            </div>
          </div>
          {plugins.data ? (
            plugins.data.length === 0 ? (
              <p className="text-sm text-zinc-600">The marketplace lists no plugin.</p>
            ) : (
              <ul className="space-y-1 text-sm" aria-label="Marketplace plugins" data-testid="marketplace-plugins">
                {plugins.data.map((offered) => (
                  <li key={offered.name} className="flex flex-wrap items-baseline gap-2">
                    <Button size="sm" variant="ghost" disabled={offered.unstageable !== null} onClick={() => setPlugin(offered.name)} aria-label={`Choose plugin ${offered.name}`}>
                      {offered.name}
                    </Button>
                    <span className="text-zinc-600">
                      {offered.unstageable ?? `${offered.skills.length} skill${offered.skills.length === 1 ? "" : "s"}${offered.version ? `, version ${offered.version}` : ""}${offered.description ? ` — ${offered.description}` : ""}`}
                    </span>
                  </li>
                ))}
              </ul>
            )
          ) : null}
          {plugins.error ? (
            <Alert tone="danger" title="The marketplace could not be read">
              {plugins.error.message}
            </Alert>
          ) : null}
          {stage.error ? (
            <Alert tone="danger" title="The pack was refused" data-testid="stage-error">
              {stage.error.message}
            </Alert>
          ) : null}
          <div className="flex justify-end">
            <Button type="submit" variant="primary" disabled={!ready} pending={stage.isPending}>
              Stage and review
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
