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
 * the page (unless typing elsewhere) — its `/` hint shows while empty; Escape or the × button clears
 * it. Controlled by `value`/`onChange`.
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
    <div className="relative w-full sm:w-96">
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
        // The right padding keeps the text and placeholder clear of the "/" hint or the clear button;
        // the browser's own clear button is hidden in favour of ours.
        className="pr-10 pl-8 [&::-webkit-search-cancel-button]:appearance-none"
      />
      <span className="absolute top-1/2 right-2 -translate-y-1/2">
        {value === "" ? (
          <span className="pointer-events-none">
            <Kbd>/</Kbd>
          </span>
        ) : (
          <button
            type="button"
            aria-label="Clear the filter"
            title="Clear (Esc)"
            onClick={() => {
              onChange("");
              input.current?.focus();
            }}
            className="inline-flex size-5 items-center justify-center rounded text-zinc-400 hover:bg-zinc-100 hover:text-zinc-700 focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
              <path d="M4 4l8 8M12 4l-8 8" />
            </svg>
          </button>
        )}
      </span>
    </div>
  );
}
