const FENCE = /^\s*(`{3,}|~{3,})(.*)$/
const BLOCK_START = /\S/

/**
 * Every safe Markdown boundary in `text`, ascending: the index just after a blank line that is outside a
 * fenced code block and is followed by a line starting in the first column. The text between two
 * boundaries can then be rendered (and cached) on its own, and the pieces joined with one blank line look
 * like the whole rendered at once: no piece cuts a code block in two, and an indented line after a blank
 * one (a list item's second paragraph, its code block) stays with the item it belongs to.
 *
 * A boundary is only reported once the first character after it has arrived, so a streaming text's
 * boundaries never move as it grows. Fences may be indented (code inside list items), and a fence closes
 * only with the same character at least as long as the one that opened it, as in CommonMark. Pure,
 * O(text length).
 */
export function safeBoundaries(text: string): number[] {
  const boundaries: number[] = []
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
    } else if (line.trim() === '' && BLOCK_START.test(text.charAt(end + 1))) {
      boundaries.push(end + 1)
    }
    start = end + 1
  }
  return boundaries
}
