import { LineSplitter, type LineEdges, type LinePiece } from "./line-splitter";

/**
 * Most stderr lines one call's timeline keeps (100 000), whatever SKILL_STDERR_LIMIT_BYTES says. A
 * newline is one byte, so the byte limit alone lets a child turn 8 MiB of `\n` into 8 million timeline
 * events — objects in memory, database rows, entries of `GET /api/v1/calls/{id}` — which took the
 * console hundreds of MB and minutes of writes. 100 000 lines is ~80 bytes a line for 8 MiB.
 */
export const DEFAULT_STDERR_LINE_LIMIT = 100_000;

/** Which limit cut a timeline short, and how many lines it kept. */
export interface StderrTruncation {
  kind: "bytes" | "lines";
  keptLines: number;
}

/** Receivers of a child's stderr lines (see ProcessHooks). */
export interface StderrReceiver {
  /** A line, and where it was cut rather than ended (a piece of a long line, the last line kept at the byte limit). */
  onLine(line: string, edges: LineEdges): void;
  onTruncated(keptBytes: number, cause: StderrTruncation): void;
}

/**
 * Turns a child's stderr bytes into timeline lines, bounded by `limitBytes` and by `maxLines`
 * (DESIGN.md "Subprocess skills": past SKILL_STDERR_LIMIT_BYTES the timeline ends with a truncation
 * marker and the call goes on; memory stays bounded whatever the child writes). Lines are emitted as
 * their newline arrives. Once more than `limitBytes` bytes were written, the kept part is flushed as
 * lines and `onTruncated(limitBytes, {kind: "bytes"})` is called once; once a line beyond the first
 * `maxLines` (default DEFAULT_STDERR_LINE_LIMIT) completes, `onTruncated(bytes of the kept lines with
 * their newlines, {kind: "lines"})` is called once instead. Either way later bytes are counted and
 * dropped (the caller keeps reading the pipe so the child never blocks).
 */
export class StderrLines {
  private readonly splitter: LineSplitter;
  private receivedBytes = 0;
  private keptLines = 0;
  private keptLineBytes = 0;
  private truncated = false;
  private ended = false;

  constructor(
    private readonly limitBytes: number,
    private readonly receiver: StderrReceiver,
    maxLineLength?: number,
    private readonly maxLines: number = DEFAULT_STDERR_LINE_LIMIT,
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
      this.emit(this.splitter.pushPieces(chunk));
      return;
    }
    this.emit(this.splitter.pushPieces(chunk.subarray(0, this.limitBytes - before)));
    // The line open at the limit is cut there: the rest of it is dropped.
    this.emit(this.splitter.endPieces(true));
    if (this.truncated) return;
    this.truncated = true;
    this.receiver.onTruncated(this.limitBytes, { kind: "bytes", keptLines: this.keptLines });
  }

  /** Ends the stream: emits the last line if it had no newline. Idempotent. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.truncated) this.emit(this.splitter.endPieces());
  }

  private emit(lines: LinePiece[]): void {
    for (const { text: line, cutBefore, cutAfter } of lines) {
      if (this.truncated) return;
      if (this.keptLines >= this.maxLines) {
        this.truncated = true;
        this.receiver.onTruncated(this.keptLineBytes, { kind: "lines", keptLines: this.keptLines });
        return;
      }
      this.keptLines++;
      this.keptLineBytes += Buffer.byteLength(line) + 1;
      this.receiver.onLine(line, { cutBefore, cutAfter });
    }
  }
}
