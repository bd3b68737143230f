/**
 * Collects bytes up to `limitBytes` (DESIGN.md "Subprocess skills": stdout is bounded by
 * SKILL_STDOUT_LIMIT_BYTES; past it the call fails and memory stays bounded).
 * `push` keeps what fits and returns false once the limit has been passed; later chunks are dropped.
 */
export class BoundedBuffer {
  private readonly chunks: Buffer[] = [];
  private keptBytes = 0;
  private overflowed = false;

  constructor(private readonly limitBytes: number) {}

  /** Keeps what fits of `chunk`; returns false when the total went past the limit (now or before). */
  push(chunk: Buffer): boolean {
    if (this.overflowed) return false;
    const room = this.limitBytes - this.keptBytes;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(Buffer.from(chunk.subarray(0, room)));
      this.keptBytes = this.limitBytes;
      this.overflowed = true;
      return false;
    }
    this.chunks.push(chunk);
    this.keptBytes += chunk.length;
    return true;
  }

  /** True once more than limitBytes were pushed. */
  get hasOverflowed(): boolean {
    return this.overflowed;
  }

  /** The kept bytes (at most limitBytes) decoded as UTF-8. */
  text(): string {
    return Buffer.concat(this.chunks, this.keptBytes).toString("utf8");
  }
}
