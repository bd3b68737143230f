"use client";

import { CopyButton } from "@/components/ui/copy-button";
import type { ButtonProps } from "@/components/ui/button";
import { curlCommand } from "@/lib/client/curl-command";

/**
 * "Copy as curl": copies the shell command that starts a call of `skill` with `getArgs()` against this
 * console (window.location.origin), built by curlCommand. Other Button props pass through.
 */
export function CopyCurlButton({
  skill,
  getArgs,
  ...rest
}: { skill: string; getArgs: () => Record<string, unknown> } & Omit<ButtonProps, "onClick" | "children">) {
  return <CopyButton {...rest} label="Copy as curl" getText={() => curlCommand({ origin: window.location.origin, skill, args: getArgs() })} />;
}
