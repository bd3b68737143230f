"use client";

import { useEffect, useRef } from "react";
import { Input } from "@/components/ui/input";
import { Kbd } from "@/components/ui/kbd";

function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * The filter box of the skills list: a labelled search input focused by the `/` key from anywhere on
 * the page (unless typing elsewhere); Escape clears it. Controlled by `value`/`onChange`.
 */
export function SkillFilter({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    }
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);

  return (
    <div className="relative w-full sm:w-80">
      <label htmlFor="skill-filter" className="sr-only">
        Filter skills
      </label>
      <svg aria-hidden="true" viewBox="0 0 16 16" className="pointer-events-none absolute top-1/2 left-2.5 size-3.5 -translate-y-1/2 text-zinc-400" fill="none" stroke="currentColor" strokeWidth="1.75">
        <circle cx="7" cy="7" r="4.75" />
        <path d="m10.5 10.5 3.5 3.5" strokeLinecap="round" />
      </svg>
      <Input
        ref={input}
        id="skill-filter"
        type="search"
        autoComplete="off"
        spellCheck={false}
        placeholder="Filter by name, description or category"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape" && value !== "") {
            event.preventDefault();
            onChange("");
          }
        }}
        className="pr-9 pl-8"
      />
      <span className="pointer-events-none absolute top-1/2 right-2 -translate-y-1/2">
        <Kbd>/</Kbd>
      </span>
    </div>
  );
}
