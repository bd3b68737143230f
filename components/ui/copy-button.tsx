"use client";

import { useEffect, useRef, useState } from "react";
import { Button, type ButtonProps } from "./button";

/** How long the button says "Copied" (or "Copy failed") before it reads its label again. */
const FEEDBACK_MS = 2000;

type CopyState = "idle" | "copied" | "failed";

/**
 * Copies `text` with execCommand on a hidden textarea: the fallback for pages the Clipboard API does
 * not serve (plain HTTP on a non-loopback address). Returns whether the browser says it copied.
 */
function copyWithSelection(text: string): boolean {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  area.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  area.remove();
  focused?.focus();
  return copied;
}

/** Puts `text` on the clipboard: the Clipboard API when available, else a selection copy. Resolves to success. */
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Permission refused or document not focused: the selection copy may still work.
    }
  }
  return copyWithSelection(text);
}

/**
 * A button that copies `getText()` to the clipboard when clicked and says how that went ("Copied",
 * "Copy failed") for a moment, announced politely. Other Button props pass through.
 */
export function CopyButton({ getText, label, ...rest }: { getText: () => string; label: string } & Omit<ButtonProps, "onClick" | "children">) {
  const [state, setState] = useState<CopyState>("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => () => {
    if (timer.current !== null) clearTimeout(timer.current);
  }, []);

  async function copy() {
    const ok = await copyText(getText());
    setState(ok ? "copied" : "failed");
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), FEEDBACK_MS);
  }

  return (
    <Button {...rest} onClick={() => void copy()}>
      <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round">
        {state === "copied" ? <path d="M3.5 8.5l3 3 6-7" strokeLinecap="round" /> : <path d="M5.5 5.5h7v7h-7zM3.5 10.5v-7h7" />}
      </svg>
      <span aria-live="polite">{state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : label}</span>
    </Button>
  );
}
