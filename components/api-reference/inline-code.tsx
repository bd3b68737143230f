import { Fragment } from "react";

/**
 * A description from the API document as text with its `backticked` spans shown as code (the document
 * writes shapes and names that way, as markdown does). Anything else is plain text: nothing is parsed
 * as markup, so no description can inject any.
 */
export function InlineCode({ text }: { text: string }) {
  const parts = text.split("`");
  // An unpaired backtick is shown as typed.
  if (parts.length % 2 === 0) return <>{text}</>;
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <code key={index} className="rounded bg-zinc-100 px-1 font-mono text-[12px] text-zinc-800">
            {part}
          </code>
        ) : (
          <Fragment key={index}>{part}</Fragment>
        ),
      )}
    </>
  );
}
