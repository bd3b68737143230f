/**
 * Stored result text is written verbatim into the SSE `end` event (lib/server/http/stored-json.ts,
 * call-event-stream.ts formatEndEvent). A skill's stdout is stored verbatim (run-assignment.ts:
 * `outcome.stdout.trim()`), and a pretty-printed JSON object is valid JSON with raw newlines in it.
 * In an event stream every CR / LF ends the `data:` line, so the `end` event a browser (EventSource)
 * or any spec-conformant SSE client receives is not JSON any more.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as eventsRoute from "@/app/api/v1/calls/[id]/events/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import type { Call } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";

/** Parses an event stream the way the WHATWG EventSource does (CR, LF and CRLF end lines; blank line dispatches). */
function parseEventStream(text: string): Array<{ event: string; data: string }> {
  const events: Array<{ event: string; data: string }> = [];
  let event = "";
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length > 0) events.push({ event: event || "message", data: data.join("\n") });
      event = "";
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return events;
}

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  // What `jq .`, `python3 -m json.tool` or JSON.stringify(x, null, 2) print: an ordinary result.
  writeSkill(testConsole.root, "pretty", { name: "pretty" }, `printf '{\\n  "ok": true,\\n\\n  "note": "pretty"\\r\\n}\\n'`);
});

describe("the SSE end event of a call whose result was pretty-printed", () => {
  it("carries the call as one JSON document", async () => {
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/pretty/calls", { body: { args: {} }, params: { name: "pretty" } });
    const { call } = (await response.json()) as { call: Call };
    expect(call.status).toBe("succeeded");
    expect(call.result).toEqual({ ok: true, note: "pretty" });

    const stream = await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { params: { id: call.id } });
    const raw = await stream.text();
    const events = parseEventStream(raw);
    const ends = events.filter((event) => event.event === "end");
    // Found by an attacker: the end event's data was cut at the result's first newline
    // (`...,"result":{`), and the rest became ignored lines and a second, nameless `message` event.
    expect(ends).toHaveLength(1);
    expect(() => JSON.parse(ends[0]!.data)).not.toThrow();
    expect((JSON.parse(ends[0]!.data) as { call: Call }).call.result).toEqual({ ok: true, note: "pretty" });
    expect(events.filter((event) => event.event === "message")).toHaveLength(0);
  });
});
