"use client";

import Link from "next/link";
import { useRef, useState, type KeyboardEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { useSkillSearch, type SkillSearchMatch } from "@/lib/client/use-skill-search";

/** The confidence as a small bar (width = confidence) and its value with two decimals, e.g. "0.87". */
function ConfidenceMeter({ confidence }: { confidence: number }) {
  const clamped = Math.min(1, Math.max(0, confidence));
  const text = clamped.toFixed(2);
  return (
    <span className="flex shrink-0 items-center gap-2" title={`Confidence ${text}`}>
      <span aria-hidden="true" className="h-1.5 w-16 overflow-hidden rounded-full bg-zinc-200">
        <span className="block h-full rounded-full bg-blue-600" style={{ width: `${Math.round(clamped * 100)}%` }} />
      </span>
      <span className="font-mono text-xs text-zinc-700 tabular-nums" data-testid="search-confidence">
        <span className="sr-only">confidence </span>
        {text}
      </span>
    </span>
  );
}

/** One ranked match: rank, a link to the skill, its category and description, and the confidence. */
function MatchRow({ match, rank, onKeyDown }: { match: SkillSearchMatch; rank: number; onKeyDown: (event: KeyboardEvent<HTMLAnchorElement>) => void }) {
  return (
    <li data-testid="search-match" data-skill={match.name}>
      <Link
        href={`/skills/${encodeURIComponent(match.name)}`}
        onKeyDown={onKeyDown}
        className="flex items-center gap-3 rounded-md px-3 py-2 hover:bg-zinc-50 focus-visible:bg-blue-50 focus-visible:outline-2 focus-visible:outline-blue-600"
      >
        <span className="w-5 shrink-0 text-right font-mono text-xs text-zinc-400 tabular-nums" aria-hidden="true">
          {rank}
        </span>
        <span className="min-w-0 flex-1">
          <span className="flex items-center gap-2">
            <span className="truncate font-mono text-[13px] font-medium text-zinc-900">{match.name}</span>
            <span className="text-xs text-zinc-500">{match.category}</span>
            {match.available === false ? (
              <Badge tone="red" title="This host cannot run it; see its page for why.">
                unavailable
              </Badge>
            ) : null}
          </span>
          <span className="block truncate text-sm text-zinc-600">{match.description}</span>
        </span>
        <ConfidenceMeter confidence={match.confidence} />
      </Link>
    </li>
  );
}

/**
 * The "Ranked search" box of the skills page (issue 5 point 8): what an agent's `skill_search` tool
 * answers for the typed words (debounced 250 ms), best first, each match a link to its skill with its
 * confidence (bar and two decimals). Keyboard: ArrowDown from the input moves into the matches,
 * ArrowUp/ArrowDown move between them (ArrowUp from the first returns to the input), Enter opens the
 * focused one, Escape clears the box and returns to the input. Loading, no-match and error states.
 * Ranking runs for the default persona, so it shows what that persona's agents would find.
 */
export function SkillSearchBox() {
  const [query, setQuery] = useState("");
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const search = useSkillSearch(query);
  const trimmed = query.trim();
  const matches = trimmed === "" ? [] : (search.data ?? []);
  const loading = trimmed !== "" && (search.settling || search.isFetching);

  function links(): HTMLAnchorElement[] {
    return Array.from(list.current?.querySelectorAll<HTMLAnchorElement>("a") ?? []);
  }

  function clear() {
    setQuery("");
    input.current?.focus();
  }

  function onInputKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Escape" && query !== "") {
      event.preventDefault();
      setQuery("");
    } else if (event.key === "ArrowDown") {
      const first = links()[0];
      if (first) {
        event.preventDefault();
        first.focus();
      }
    } else if (event.key === "Enter") {
      const first = links()[0];
      if (first) {
        event.preventDefault();
        first.click();
      }
    }
  }

  function onMatchKeyDown(event: KeyboardEvent<HTMLAnchorElement>) {
    const all = links();
    const index = all.indexOf(event.currentTarget);
    if (event.key === "ArrowDown") {
      event.preventDefault();
      all[Math.min(index + 1, all.length - 1)]?.focus();
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      if (index <= 0) input.current?.focus();
      else all[index - 1]?.focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      clear();
    }
  }

  return (
    <section aria-labelledby="skill-search-title" className="mb-5 rounded-lg border border-zinc-200 bg-white" data-testid="skill-search">
      <div className="flex flex-wrap items-center gap-3 border-b border-zinc-200 px-4 py-2.5">
        <h2 id="skill-search-title" className="text-sm font-semibold text-zinc-900">
          Ranked search
        </h2>
        <p className="text-xs text-zinc-500">What an agent&apos;s skill_search finds: names, descriptions and when-to-use, best first.</p>
      </div>
      <div className="p-3">
        <div className="relative">
          <label htmlFor="skill-search" className="sr-only">
            Search skills by relevance
          </label>
          <Input
            ref={input}
            id="skill-search"
            type="search"
            autoComplete="off"
            spellCheck={false}
            placeholder="Describe a task, e.g. “analyze logs”"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={onInputKeyDown}
            aria-describedby="skill-search-hint"
            aria-controls="skill-search-results"
            className="pr-16 [&::-webkit-search-cancel-button]:appearance-none"
          />
          <span className="absolute top-1/2 right-2 flex -translate-y-1/2 items-center gap-1.5">
            {loading ? <Spinner className="text-zinc-400" label="Searching" /> : null}
            {query !== "" ? (
              <button
                type="button"
                aria-label="Clear the search"
                title="Clear (Esc)"
                onClick={clear}
                className="inline-flex size-5 items-center justify-center rounded text-zinc-400 hover:bg-zinc-100 hover:text-zinc-700 focus-visible:outline-2 focus-visible:outline-blue-600"
              >
                <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
                  <path d="M4 4l8 8M12 4l-8 8" />
                </svg>
              </button>
            ) : null}
          </span>
        </div>
        <p id="skill-search-hint" className="sr-only">
          Arrow keys move through the matches, Enter opens one, Escape clears the search.
        </p>
        <div id="skill-search-results" aria-live="polite">
          {trimmed === "" ? null : search.isError ? (
            <Alert
              tone="danger"
              title="Search failed"
              className="mt-3"
              actions={
                <Button size="sm" onClick={() => void search.refetch()}>
                  Retry
                </Button>
              }
            >
              {search.error.message}
            </Alert>
          ) : search.data === undefined ? (
            <p className="mt-3 px-3 text-sm text-zinc-500">Searching…</p>
          ) : matches.length === 0 ? (
            search.settling || search.isPlaceholderData ? (
              <p className="mt-3 px-3 text-sm text-zinc-500">Searching…</p>
            ) : (
              <p className="mt-3 px-3 text-sm text-zinc-500" data-testid="search-empty">
                No skill matches “{search.debouncedQuery}”. Try other words, or the filter box at the top for a plain substring match.
              </p>
            )
          ) : (
            <ol ref={list} aria-label={`Skills ranked for “${search.debouncedQuery}”`} className={`mt-2 space-y-0.5 ${search.isPlaceholderData ? "opacity-60" : ""}`}>
              {matches.map((match, index) => (
                <MatchRow key={match.name} match={match} rank={index + 1} onKeyDown={onMatchKeyDown} />
              ))}
            </ol>
          )}
        </div>
      </div>
    </section>
  );
}
