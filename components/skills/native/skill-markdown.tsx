"use client";

import Markdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { useMemo } from "react";

/** True for an absolute http(s) URL: the only links the instructions open (in a new tab). */
function isWebUrl(href: string): boolean {
  return /^https?:\/\//i.test(href);
}

/**
 * The resource path a relative link of SKILL.md names (`references/guide.md`, `./scripts/run.sh`), when
 * it is one of the skill's resources; null otherwise. Query and fragment are ignored.
 */
function linkedResource(href: string, resources: ReadonlySet<string>): string | null {
  const bare = href.replace(/[?#].*$/, "").replace(/^\.\//, "");
  let decoded = bare;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    // A malformed escape: keep the raw text, which will not match a resource.
  }
  return resources.has(decoded) ? decoded : null;
}

/**
 * The `components` map of the instructions: every element styled with Tailwind here (no global
 * `.markdown` CSS). Links: http(s) open in a new tab with rel="noreferrer noopener"; a relative link to
 * one of the skill's resources, or inline code that is exactly such a path, opens it in the resources
 * browser (`onOpenResource`); `#fragment` links
 * stay in the page; any other target is shown as text with the target as a tooltip (not followed).
 * Images are never fetched: their alt text is shown in a frame.
 */
function markdownComponents(resources: ReadonlySet<string>, onOpenResource: (path: string) => void): Components {
  return {
    h1: ({ node: _node, ...props }) => <h1 className="mt-6 mb-3 border-b border-zinc-200 pb-1.5 text-xl font-semibold text-zinc-900 first:mt-0" {...props} />,
    h2: ({ node: _node, ...props }) => <h2 className="mt-6 mb-2 border-b border-zinc-100 pb-1 text-lg font-semibold text-zinc-900 first:mt-0" {...props} />,
    h3: ({ node: _node, ...props }) => <h3 className="mt-5 mb-2 text-base font-semibold text-zinc-900 first:mt-0" {...props} />,
    h4: ({ node: _node, ...props }) => <h4 className="mt-4 mb-1.5 text-sm font-semibold text-zinc-900 first:mt-0" {...props} />,
    h5: ({ node: _node, ...props }) => <h5 className="mt-4 mb-1 text-sm font-semibold text-zinc-700" {...props} />,
    h6: ({ node: _node, ...props }) => <h6 className="mt-4 mb-1 text-xs font-semibold tracking-wide text-zinc-600 uppercase" {...props} />,
    p: ({ node: _node, ...props }) => <p className="my-3 leading-6 first:mt-0 last:mb-0" {...props} />,
    ul: ({ node: _node, ...props }) => <ul className="my-3 list-disc space-y-1 pl-6 [&_ul]:my-1" {...props} />,
    ol: ({ node: _node, ...props }) => <ol className="my-3 list-decimal space-y-1 pl-6 [&_ol]:my-1" {...props} />,
    li: ({ node: _node, ...props }) => <li className="leading-6 [&>input]:mr-1.5 [&>input]:align-middle" {...props} />,
    blockquote: ({ node: _node, ...props }) => <blockquote className="my-3 border-l-4 border-zinc-200 pl-4 text-zinc-600" {...props} />,
    hr: ({ node: _node, ...props }) => <hr className="my-5 border-zinc-200" {...props} />,
    pre: ({ node: _node, ...props }) => (
      <pre
        className="my-3 overflow-x-auto rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2.5 font-mono text-[12.5px] leading-5 text-zinc-800 [&>code]:bg-transparent [&>code]:p-0 [&>code]:text-[12.5px]"
        {...props}
      />
    ),
    code: ({ node: _node, children, ...props }) => {
      const codeClass = "rounded bg-zinc-100 px-1 py-0.5 font-mono text-[12.5px] text-zinc-800";
      // Inline code that names one of the skill's resources (`references/patterns.md`) opens it.
      const resource = typeof children === "string" ? linkedResource(children, resources) : null;
      if (resource) {
        return (
          <button type="button" onClick={() => onOpenResource(resource)} title={`Open ${resource} in the resources browser`} className="cursor-pointer">
            <code className={`${codeClass} text-blue-800 underline decoration-blue-300 underline-offset-2 hover:decoration-blue-700`} {...props}>
              {children}
            </code>
          </button>
        );
      }
      return (
        <code className={codeClass} {...props}>
          {children}
        </code>
      );
    },
    table: ({ node: _node, ...props }) => (
      <div className="my-3 overflow-x-auto">
        <table className="w-full border-collapse text-left text-sm" {...props} />
      </div>
    ),
    th: ({ node: _node, ...props }) => <th className="border border-zinc-200 bg-zinc-50 px-2.5 py-1.5 font-semibold text-zinc-800" {...props} />,
    td: ({ node: _node, ...props }) => <td className="border border-zinc-200 px-2.5 py-1.5 align-top" {...props} />,
    strong: ({ node: _node, ...props }) => <strong className="font-semibold text-zinc-900" {...props} />,
    del: ({ node: _node, ...props }) => <del className="text-zinc-500" {...props} />,
    a: ({ node: _node, href, children, ...props }) => {
      const target = href ?? "";
      const linkClass = "text-blue-700 underline decoration-blue-300 underline-offset-2 hover:decoration-blue-700";
      if (isWebUrl(target)) {
        return (
          <a {...props} href={target} target="_blank" rel="noreferrer noopener" className={linkClass}>
            {children}
          </a>
        );
      }
      if (target.startsWith("#")) {
        return (
          <a {...props} href={target} className={linkClass}>
            {children}
          </a>
        );
      }
      const resource = linkedResource(target, resources);
      if (resource) {
        return (
          <button type="button" onClick={() => onOpenResource(resource)} title={`Open ${resource} in the resources browser`} className={`${linkClass} cursor-pointer`}>
            {children}
          </button>
        );
      }
      return (
        <span className="text-zinc-700 underline decoration-dotted underline-offset-2" title={target ? `Link to ${target} (not opened from the console)` : undefined}>
          {children}
        </span>
      );
    },
    img: ({ alt, src }) => (
      <span
        className="inline-flex items-center gap-1 rounded border border-dashed border-zinc-300 px-1.5 py-0.5 text-xs text-zinc-600"
        title={typeof src === "string" && src !== "" ? `Image ${src} (not loaded)` : "Image (not loaded)"}
      >
        <span aria-hidden="true">🖼</span>
        {alt ? alt : "image"}
      </span>
    ),
  };
}

/**
 * A native skill's instructions (the SKILL.md body, level 2) rendered as GitHub-flavoured markdown.
 * No raw HTML is ever rendered (no rehype-raw; HTML in the source is dropped by react-markdown), URLs
 * pass react-markdown's default transform (no `javascript:`), images are not fetched, and links behave
 * as markdownComponents says. `resources` are the skill's resource paths, for in-page resource links.
 */
export function SkillMarkdown({ source, resources, onOpenResource }: { source: string; resources: readonly string[]; onOpenResource: (path: string) => void }) {
  const components = useMemo(() => markdownComponents(new Set(resources), onOpenResource), [resources, onOpenResource]);
  return (
    <div className="min-w-0 text-sm break-words text-zinc-800" data-testid="skill-instructions">
      <Markdown remarkPlugins={[remarkGfm]} components={components} skipHtml>
        {source}
      </Markdown>
    </div>
  );
}
