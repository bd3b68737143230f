/**
 * The request header in which proxy.ts hands a page's path and query to the server layouts (a layout
 * cannot read its own URL), so the console layout can send a signed-out person to
 * `/login?next=<that path>`. proxy.ts overwrites any copy the client sent.
 */
export const REQUEST_PATH_HEADER = "x-skill-console-path";
