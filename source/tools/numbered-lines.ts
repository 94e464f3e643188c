/** Longest line shown in full by Read and in snippets; longer lines are cut with a marker. */
export const MAX_LINE_CHARS = 2000

/** Cuts an over-long line, saying how long it really was (`fullLength` when only a prefix was kept). */
export function cutLine(line: string, fullLength = line.length, max = MAX_LINE_CHARS): string {
  return fullLength > max ? `${line.slice(0, max)}… [line cut: ${fullLength} chars]` : line
}

/**
 * `cat -n` style: the 1-based line number right-aligned in six columns, a tab, then the line with
 * a trailing CR dropped. Lines are not cut here; pass them through `cutLine` first.
 */
export function numberLines(lines: readonly string[], firstLine: number): string {
  return lines.map((line, i) => `${String(firstLine + i).padStart(6)}\t${line.replace(/\r$/, '')}`).join('\n')
}
