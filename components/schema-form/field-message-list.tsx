import type { FieldMessage } from "@/lib/client/validation-messages";

/** Validation messages as a bulleted list: the field path in monospace (none for the args object), then the message. */
export function FieldMessageList({ messages, className, ...rest }: { messages: readonly FieldMessage[]; className?: string } & React.HTMLAttributes<HTMLUListElement>) {
  return (
    <ul className={className ?? "list-inside list-disc"} {...rest}>
      {messages.map(({ path, message }) => (
        <li key={`${path}\n${message}`}>
          {path ? (
            <>
              <code className="font-mono text-[12px]">{path}</code>:{" "}
            </>
          ) : null}
          {message}
        </li>
      ))}
    </ul>
  );
}
