/**
 * A JSON value carried as its text, not parsed (issue 10 point 1): a call's args arrive this way from
 * the request body (readJsonBody's `keepText`) and go to the validation thread, which parses,
 * validates and canonicalizes them off the main thread, so that megabytes of args never become
 * millions of objects in the console's event loop. `text` is the value exactly as the client sent it
 * (possibly with trailing whitespace; not yet known to be valid JSON).
 */
export class JsonText {
  constructor(readonly text: string) {}
}
