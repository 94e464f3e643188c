const FENCE = /^\s*(`{3,}|~{3,})(.*)$/

/**
 * The last safe Markdown boundary in `text`: the index just after the last complete blank line that is
 * outside a fenced code block, or 0 when there is none. `text.slice(0, i)` can then be rendered (and
 * cached) on its own while `text.slice(i)` stays live, and neither half cuts a code block in two.
 *
 * Fences may be indented (code inside list items), and a fence closes only with the same character at
 * least as long as the one that opened it, as in CommonMark. Pure, O(text length).
 */
export function findSafeSplitPoint(text: string): number {
  let split = 0
  let fence: { char: string; length: number } | null = null
  let start = 0
  while (start < text.length) {
    const end = text.indexOf('\n', start)
    // An unterminated last line may still grow, so it can neither open a boundary nor be blank yet.
    if (end === -1) break
    const line = text.slice(start, end)
    const match = FENCE.exec(line)
    if (fence) {
      if (match?.[1]?.[0] === fence.char && match[1].length >= fence.length && match[2]?.trim() === '')
        fence = null
    } else if (match?.[1] && !(match[1][0] === '`' && match[2]?.includes('`'))) {
      fence = { char: match[1][0] ?? '`', length: match[1].length }
    } else if (line.trim() === '') {
      split = end + 1
    }
    start = end + 1
  }
  return split
}
