import { dirname } from 'node:path'
import { PRIVATE_DIR, placeOf, readOwnFile, replaceInDirAsync } from '../util/safe-files.js'

/**
 * A renamed session's title beside its log (`<id>.title`). The log's `session/renamed` event is the truth
 * (replay, export); this copy lets `/resume` list the title without reading past a log's head, wherever in
 * a long log the rename lies, so listing thousands of sessions stays one small read per renamed session.
 */
export const TITLE_SUFFIX = '.title'

/** Long enough for a sentence, short enough for one picker row. */
export const MAX_TITLE_LENGTH = 80

/** A title on one line: control characters dropped, runs of white space one space, cut at the maximum. */
export function normalizeTitle(raw: string): string {
  const flat = raw
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  const chars = [...flat]
  return chars.length <= MAX_TITLE_LENGTH ? flat : `${chars.slice(0, MAX_TITLE_LENGTH - 1).join('')}…`
}

export function titlePathOf(logPath: string): string {
  return logPath.replace(/\.jsonl$/, TITLE_SUFFIX)
}

/** Writes the title beside the log, atomically, never through a link at the name (below the sessions root). */
export async function writeSessionTitle(logPath: string, title: string): Promise<void> {
  const path = titlePathOf(logPath)
  const { dir, name } = placeOf(dirname(dirname(path)), path, { createDirs: PRIVATE_DIR })
  try {
    await replaceInDirAsync(dir, name, `${title}\n`, { mode: 0o600 })
  } finally {
    dir.close()
  }
}

/** The title written by `writeSessionTitle`, or undefined (none, unreadable, a link or FIFO at the name). */
export function readTitleFile(logPath: string): string | undefined {
  const path = titlePathOf(logPath)
  try {
    const text = readOwnFile(dirname(path), path, { maxBytes: 4096 })
    if (text === undefined) return undefined
    const title = normalizeTitle(text.toString('utf8'))
    return title || undefined
  } catch {
    return undefined
  }
}
