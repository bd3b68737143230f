import { LineSplitter } from "./line-splitter";

/** Receivers of a child's stderr lines (see ProcessHooks). */
export interface StderrReceiver {
  onLine(line: string): void;
  onTruncated(keptBytes: number): void;
}

/**
 * Turns a child's stderr bytes into timeline lines, bounded by `limitBytes` (DESIGN.md "Subprocess
 * skills": past SKILL_STDERR_LIMIT_BYTES the timeline ends with a truncation marker and the call goes
 * on). Lines are emitted as their newline arrives. Once more than `limitBytes` bytes were written, the
 * kept part is flushed as lines, `onTruncated(limitBytes)` is called once, and later bytes are counted
 * and dropped (the caller keeps reading the pipe so the child never blocks).
 */
export class StderrLines {
  private readonly splitter: LineSplitter;
  private receivedBytes = 0;
  private truncated = false;
  private ended = false;

  constructor(
    private readonly limitBytes: number,
    private readonly receiver: StderrReceiver,
    maxLineLength?: number,
  ) {
    this.splitter = new LineSplitter(maxLineLength);
  }

  /** Bytes received so far, kept or not. */
  get totalBytes(): number {
    return this.receivedBytes;
  }

  /** Feeds one chunk of stderr bytes. */
  push(chunk: Buffer): void {
    const before = this.receivedBytes;
    this.receivedBytes += chunk.length;
    if (this.truncated || this.ended) return;
    if (this.receivedBytes <= this.limitBytes) {
      this.emit(this.splitter.push(chunk));
      return;
    }
    this.emit(this.splitter.push(chunk.subarray(0, this.limitBytes - before)));
    this.emit(this.splitter.end());
    this.truncated = true;
    this.receiver.onTruncated(this.limitBytes);
  }

  /** Ends the stream: emits the last line if it had no newline. Idempotent. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.truncated) this.emit(this.splitter.end());
  }

  private emit(lines: string[]): void {
    for (const line of lines) this.receiver.onLine(line);
  }
}
