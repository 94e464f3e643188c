/**
 * A tool description's listing of named things (skills, agent types) within a byte budget: every entry with
 * a one-line description while they fit, shorter lines when they do not, then the rest by name only, then
 * a count of those left out. Whatever is left out stays callable by name: an unknown name is answered with
 * the closest names (`closestNames`). Pure.
 */

export interface ListingEntry {
  name: string
  description: string
}

export interface Listing {
  /** Lines with a description, in the entries' order. */
  lines: string[]
  /** Entries listed by name only, after the lines. */
  namesOnly: string[]
  /** How many are not in the listing at all. */
  hidden: number
}

/** The longest one-line description tried first; lines shrink toward the shortest before names go bare. */
const DESCRIPTION_CAPS = [240, 160, 120, 90, 60] as const

/**
 * Fits `entries` into `budget` bytes. `line(entry, shortDescription)` renders one described entry;
 * `render(listing)` the whole text the listing goes into (its size is what counts). Lines shrink first;
 * then the last entries go by name only; when even all names do not fit, half the budget goes to lines,
 * the rest to names, and the others are counted.
 */
export function fitListing<T extends ListingEntry>(
  entries: readonly T[],
  budget: number,
  render: { line(entry: T, description: string): string; text(listing: Listing): string },
): Listing {
  const size = (listing: Listing) => Buffer.byteLength(render.text(listing), 'utf8')
  for (const cap of DESCRIPTION_CAPS) {
    const all = {
      lines: entries.map((e) => render.line(e, oneLine(e.description, cap))),
      namesOnly: [],
      hidden: 0,
    }
    if (size(all) <= budget) return all
  }
  const lines = entries.map((e) => render.line(e, oneLine(e.description, DESCRIPTION_CAPS.at(-1) ?? 60)))
  const names = entries.map((e) => e.name)
  const listing = (described: number, named: number): Listing => ({
    lines: lines.slice(0, described),
    namesOnly: names.slice(described, described + named),
    hidden: entries.length - described - named,
  })
  // The most lines such that every other entry still fits by name.
  const everyName = largest(entries.length, (d) => size(listing(d, entries.length - d)) <= budget)
  if (everyName !== null) return listing(everyName, entries.length - everyName)
  // Not even all the names fit: some lines, as many names as fit, a count of the rest.
  const lineBytes = (d: number) => lines.slice(0, d).reduce((n, l) => n + Buffer.byteLength(l, 'utf8') + 1, 0)
  const described = largest(entries.length, (d) => lineBytes(d) <= budget / 2) ?? 0
  const named = largest(entries.length - described, (m) => size(listing(described, m)) <= budget) ?? 0
  return listing(described, named)
}

/** The largest n in 0..max with `ok(n)`, for an `ok` true up to some n and false after; null if ok(0) is false. */
function largest(max: number, ok: (n: number) => boolean): number | null {
  if (!ok(0)) return null
  let lo = 0
  let hi = max
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (ok(mid)) lo = mid
    else hi = mid - 1
  }
  return lo
}

/**
 * A description's first line, for a listing: up to its first example (`<example>`, `Examples:`) or blank
 * line, blanks collapsed, cut at a word before `cap` characters with an ellipsis.
 */
export function oneLine(description: string, cap: number): string {
  const head = description.split(/<example>|\n\s*\n/i)[0] ?? description
  const text = head
    .replace(/\s+/g, ' ')
    .replace(/\s*\b(examples?|for example)\s*:\s*$/i, '')
    .trim()
  if (text.length <= cap) return text
  const cut = text.slice(0, cap - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > cap / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`
}

/**
 * The names closest to `wanted`, best first, for an answer to a name that is not there: the same name in
 * another case, names containing it or contained in it, then names sharing its words (`code-review` finds
 * `code-reviewer` and `review-pr`).
 */
export function closestNames(wanted: string, names: readonly string[], limit = 20): string[] {
  const want = wanted.toLowerCase().trim()
  const words = new Set(want.split(/[^a-z0-9]+/).filter((w) => w.length > 1))
  const scored = names.map((name) => {
    const n = name.toLowerCase()
    let score = 0
    if (n === want) score = 100
    else if (n.includes(want) || (n.length > 2 && want.includes(n))) score = 50
    for (const word of n.split(/[^a-z0-9]+/)) {
      if (words.has(word)) score += 10
      else if (word.length > 3 && [...words].some((w) => w.startsWith(word) || word.startsWith(w))) score += 4
    }
    return { name, score }
  })
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((s) => s.name)
}
