import { StringDecoder } from "node:string_decoder";
import { isHighSurrogate } from "../utf16-slices";

/** Longest line, in UTF-16 code units, a splitter keeps before cutting it (64 Ki). */
export const DEFAULT_MAX_LINE_LENGTH = 64 * 1024;

/**
 * Where a line was cut rather than ended by a newline: `cutBefore` when it continues a longer line,
 * `cutAfter` when the rest of it follows in the next piece (or was dropped at a limit). A secret may
 * stand across such a cut: the worker masks the parts of a value at these edges (secret-masking.ts).
 */
export interface LineEdges {
  cutBefore: boolean;
  cutAfter: boolean;
}

/** A line as the splitter emits it, with its cuts. */
export interface LinePiece extends LineEdges {
  text: string;
}

/**
 * Splits a byte stream into text lines as it arrives (DESIGN.md "Subprocess skills": stderr lines are
 * captured into the timeline as they arrive; memory stays bounded whatever the child writes).
 *
 * `push(chunk)` takes raw bytes (a UTF-8 character may be split across chunks) and returns the lines it
 * completed, without their `\n` or `\r\n`. A line longer than `maxLineLength` UTF-16 code units is
 * emitted in pieces of at most that length, so one giant line never grows memory without bound.
 * `end()` returns the last line when the stream did not end with a newline. Never throws.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder("utf8");
  private pending = "";
  /** Whether `pending` continues a line already emitted in part. */
  private pendingContinues = false;

  constructor(private readonly maxLineLength: number = DEFAULT_MAX_LINE_LENGTH) {
    if (!Number.isInteger(maxLineLength) || maxLineLength < 2) {
      throw new RangeError(`maxLineLength must be an integer >= 2, got ${maxLineLength}`);
    }
  }

  /** Feeds bytes; returns the lines completed by them, in order. */
  push(chunk: Buffer): string[] {
    return this.pushPieces(chunk).map((piece) => piece.text);
  }

  /** Ends the stream; returns the final unterminated line (if any) and resets the splitter. */
  end(): string[] {
    return this.endPieces().map((piece) => piece.text);
  }

  /** As push, with where each line was cut. */
  pushPieces(chunk: Buffer): LinePiece[] {
    return this.take(this.decoder.write(chunk));
  }

  /**
   * As end, with where each line was cut; `cutAfter` on the last line says the stream was cut in the
   * middle of it (a byte limit), not ended by a newline or the child.
   */
  endPieces(cutAfter = false): LinePiece[] {
    const lines = this.take(this.decoder.end());
    if (this.pending !== "") lines.push({ text: stripCarriageReturn(this.pending), cutBefore: this.pendingContinues, cutAfter });
    this.pending = "";
    this.pendingContinues = false;
    return lines;
  }

  private take(text: string): LinePiece[] {
    const lines: LinePiece[] = [];
    const buffered = this.pending + text;
    let continues = this.pendingContinues;
    let start = 0;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      lines.push(...this.cut(stripCarriageReturn(buffered.slice(start, newline)), true, continues));
      continues = false;
      start = newline + 1;
      newline = buffered.indexOf("\n", start);
    }
    // A trailing "\r" may be the first half of "\r\n": keep it out of the cut so it is not emitted alone.
    const open = buffered.slice(start);
    const heldBack = open.endsWith("\r") ? "\r" : "";
    const pieces = this.cut(open.slice(0, open.length - heldBack.length), false, continues);
    const last = pieces.pop();
    this.pending = (last?.text ?? "") + heldBack;
    this.pendingContinues = last?.cutBefore ?? continues;
    lines.push(...pieces);
    return lines;
  }

  /**
   * Cuts text into pieces of at most maxLineLength; when `complete` is false the last piece stays open.
   * `continues`: the text continues a line already emitted in part.
   */
  private cut(text: string, complete: boolean, continues: boolean): LinePiece[] {
    const pieces: LinePiece[] = [];
    let rest = text;
    let cutBefore = continues;
    while (rest.length > this.maxLineLength) {
      // Never split a surrogate pair: the piece would end with half a character.
      const end = isHighSurrogate(rest.charCodeAt(this.maxLineLength - 1)) ? this.maxLineLength - 1 : this.maxLineLength;
      pieces.push({ text: rest.slice(0, end), cutBefore, cutAfter: true });
      cutBefore = true;
      rest = rest.slice(end);
    }
    if (complete || rest !== "" || pieces.length === 0) pieces.push({ text: rest, cutBefore, cutAfter: false });
    return pieces;
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
