/** The part of a file that looks most like an `old_string` that did not match. */
export interface ClosestRegion {
  /** 1-based number of the region's first line. */
  startLine: number
  lines: string[]
  /** 0..1, the mean per-line similarity. */
  similarity: number
}

// Exhaustive scoring costs lines × old-lines comparisons; above this, only anchor-picked starts are scored.
const EXHAUSTIVE_LIMIT = 100_000
const ANCHOR_CANDIDATES = 25

/**
 * Finds the window of the file's lines (as many as `oldString` has) most similar to `oldString`,
 * comparing trimmed lines by character-bigram overlap. Returns undefined for an empty file or query.
 */
export function findClosestRegion(content: string, oldString: string): ClosestRegion | undefined {
  const lines = content.split('\n')
  const old = oldString.replace(/\n$/, '').split('\n')
  if (content === '' || old.every((l) => l.trim() === '')) return undefined
  const size = Math.min(old.length, lines.length)
  const oldGrams = old.map((l) => bigrams(l.trim()))
  const cache = new Map<number, Map<string, number>>()
  const gramsAt = (i: number): Map<string, number> => {
    let g = cache.get(i)
    if (!g) {
      g = bigrams((lines[i] ?? '').trim())
      cache.set(i, g)
    }
    return g
  }
  const score = (start: number): number => {
    let sum = 0
    for (let i = 0; i < size; i++) sum += dice(gramsAt(start + i), oldGrams[i] ?? new Map())
    return sum / old.length
  }

  const lastStart = lines.length - size
  let starts: number[]
  if (lines.length * size <= EXHAUSTIVE_LIMIT) {
    starts = Array.from({ length: lastStart + 1 }, (_, i) => i)
  } else {
    // Anchor on the longest old line: where it fits best is where the region most likely starts.
    let anchor = 0
    for (let i = 1; i < size; i++) if ((old[i]?.length ?? 0) > (old[anchor]?.length ?? 0)) anchor = i
    const anchorGrams = oldGrams[anchor] ?? new Map()
    const ranked: { start: number; s: number }[] = []
    for (let start = 0; start <= lastStart; start++) {
      ranked.push({ start, s: dice(gramsAt(start + anchor), anchorGrams) })
    }
    ranked.sort((a, b) => b.s - a.s)
    starts = ranked.slice(0, ANCHOR_CANDIDATES).map((r) => r.start)
  }

  let best: { start: number; s: number } | undefined
  for (const start of starts) {
    const s = score(start)
    if (!best || s > best.s) best = { start, s }
  }
  if (!best) return undefined
  return { startLine: best.start + 1, lines: lines.slice(best.start, best.start + size), similarity: best.s }
}

/** Bigrams of the text padded with spaces, so one-character lines like `}` still compare. */
function bigrams(text: string): Map<string, number> {
  const padded = ` ${text} `
  const grams = new Map<string, number>()
  for (let i = 0; i < padded.length - 1; i++) {
    const g = padded.slice(i, i + 2)
    grams.set(g, (grams.get(g) ?? 0) + 1)
  }
  return grams
}

/** Sørensen–Dice coefficient of two bigram multisets; two empty lines are identical. */
function dice(a: Map<string, number>, b: Map<string, number>): number {
  let sizeA = 0
  let sizeB = 0
  let shared = 0
  for (const n of a.values()) sizeA += n
  for (const [g, n] of b) {
    sizeB += n
    shared += Math.min(n, a.get(g) ?? 0)
  }
  if (sizeA + sizeB === 0) return 1
  return (2 * shared) / (sizeA + sizeB)
}
