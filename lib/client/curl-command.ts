/**
 * Wraps `text` in single quotes for a POSIX shell: nothing inside is expanded (`$`, backticks, `!`
 * in scripts, `\`), and each `'` becomes `'\''` (close, escaped quote, reopen).
 */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The shell variable the copied command reads the caller's API token from (created on the Tokens page). */
export const TOKEN_VARIABLE = "SKILL_CONSOLE_TOKEN";

/** The heredoc delimiter; a pretty-printed JSON object never has a line that is exactly this word. */
const HEREDOC_END = "JSON";

/**
 * The shell command that starts a call of `skill` with `args` over HTTP
 * (`POST {origin}/api/v1/skills/{skill}/calls`, README "HTTP API"), ready to paste into bash/zsh/sh:
 * `curl -sS -X POST '<url>' -H "Authorization: Bearer $SKILL_CONSOLE_TOKEN" -H 'content-type:
 * application/json' --data-binary @- <<'JSON'`, then the
 * body `{"args": …}` pretty-printed, then `JSON`. The quoted heredoc delimiter turns off every
 * expansion, so quotes, `$`, backticks, backslashes and unicode in the args reach the server byte for
 * byte (`!` is written `\u0021`); newlines and control characters in strings are JSON escapes (`\n`), never raw line breaks, so
 * no body line can end the heredoc early. The URL is single-quoted (see shellQuote). The call waits for
 * its end (the API's default `wait: true`), so curl prints the finished Call. Every API request needs
 * credentials (issue 4): the token comes from the shell's SKILL_CONSOLE_TOKEN (an API token from the
 * Tokens page, which acts as its own persona), never pasted into the command. Takes `origin` like
 * `window.location.origin` (no trailing slash); returns the command with a trailing newline.
 */
export function curlCommand({ origin, skill, args }: { origin: string; skill: string; args: Record<string, unknown> }): string {
  const url = `${origin}/api/v1/skills/${encodeURIComponent(skill)}/calls`;
  // `!` only occurs inside JSON strings; as `\u0021` it is the same JSON, and an interactive shell's
  // history expansion (which may reach heredoc lines) has nothing to act on.
  const body = JSON.stringify({ args }, null, 2).replaceAll("!", "\\u0021");
  return [
    `curl -sS -X POST ${shellQuote(url)} -H "Authorization: Bearer $${TOKEN_VARIABLE}" -H 'content-type: application/json' --data-binary @- <<'${HEREDOC_END}'`,
    body,
    HEREDOC_END,
    "",
  ].join("\n");
}
