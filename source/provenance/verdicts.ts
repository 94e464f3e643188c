import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * When each hook or server was last found unchanged, or allowed by the user (`provenance/checked.json`
 * in the state dir): a later check only looks for changes since then, so a user is asked once per
 * change, not at every start. Keyed by what runs (the command, its folder and what it was found to
 * run), so a different program under the same command is checked afresh. Losing an entry (a broken
 * file, two sessions writing at once) only means checking again.
 */

export interface Verdicts {
  since(key: string): number | undefined
  record(key: string, at: number): void
}

/** Entries kept; the oldest go first. */
const MAX_ENTRIES = 500

export function openVerdicts(file: string): Verdicts {
  let cache: Record<string, number> | undefined
  const load = (): Record<string, number> => {
    if (cache) return cache
    try {
      const json = JSON.parse(readFileSync(file, 'utf8')) as unknown
      cache = {}
      if (json && typeof json === 'object')
        for (const [key, at] of Object.entries(json)) if (typeof at === 'number') cache[key] = at
    } catch {
      cache = {}
    }
    return cache
  }
  return {
    since: (key) => load()[key],
    record(key, at) {
      const entries = { ...load(), [key]: at }
      const kept = Object.entries(entries)
        .sort((a, b) => b[1] - a[1])
        .slice(0, MAX_ENTRIES)
      cache = Object.fromEntries(kept)
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
        const temp = `${file}.${process.pid}.tmp`
        writeFileSync(temp, `${JSON.stringify(cache)}\n`, { mode: 0o600 })
        renameSync(temp, file)
      } catch {
        // Kept for this session; the next one checks again.
      }
    },
  }
}
