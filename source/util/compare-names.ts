/**
 * Orders names and paths as `localeCompare` does for the ASCII names of files, commands, skills and
 * agents (letters case-insensitively, a lower-case letter before its capital), without ICU: the first
 * `localeCompare` builds ICU's collator, whose tables in the node binary (~2 MB of it) then stay
 * resident for the session (measured with a 300-item collection, docs/performance.md). Pure.
 */
export function compareNames(a: string, b: string): number {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  if (x !== y) return x < y ? -1 : 1
  // Same letters: `review` before `Review`, as localeCompare has it.
  return a === b ? 0 : a > b ? -1 : 1
}
