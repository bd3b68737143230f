/**
 * A secret's value on its way to the server (DESIGN.md "Skill secrets": never readable again once
 * saved). It travels as a mutation's variables, which react-query keeps in its state and cache after
 * the request; wrapped in this, what stays there is an emptied box. take() hands the value over once
 * and forgets it; serialising the box (JSON, a devtools dump, a log line) yields a placeholder, never
 * the value.
 */
export class OneTimeValue {
  #value: string | null;

  constructor(value: string) {
    this.#value = value;
  }

  /** The value, once; throws Error on a second call (a retried request must be re-entered). */
  take(): string {
    const value = this.#value;
    if (value === null) throw new Error("the secret's value was already sent: enter it again");
    this.#value = null;
    return value;
  }

  /** What JSON.stringify writes instead of the value. */
  toJSON(): string {
    return "[secret value]";
  }

  /** What string conversion yields instead of the value. */
  toString(): string {
    return "[secret value]";
  }
}
