/**
 * Keeps the last lines written to one or more streams (a child process's stdout and stderr), to
 * quote them when the process fails.
 */
export class OutputTail {
  readonly #maxLines: number;
  readonly #lines: string[] = [];
  #partial = '';

  /** @param maxLines - How many complete lines to keep. Default 20. */
  constructor(maxLines = 20) {
    this.#maxLines = maxLines;
  }

  /** Adds a chunk of output; returns the complete lines it finished. */
  push(chunk: string): string[] {
    const parts = (this.#partial + chunk).split(/\r?\n/);
    this.#partial = parts.pop() ?? '';
    const complete = parts.filter((line) => line.trim() !== '');
    this.#lines.push(...complete);
    if (this.#lines.length > this.#maxLines) this.#lines.splice(0, this.#lines.length - this.#maxLines);
    return complete;
  }

  /** The kept lines (and any unfinished last line), oldest first. */
  lines(): string[] {
    return this.#partial.trim() === '' ? [...this.#lines] : [...this.#lines, this.#partial];
  }

  /** Whether any kept line contains `text`. */
  includes(text: string): boolean {
    return this.lines().some((line) => line.includes(text));
  }
}
