import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff'

export interface DiffSummary {
  /** Unified diff (file headers + hunks), bounded for display. */
  diff: string
  added: number
  removed: number
}

const MAX_DIFF_CHARS = 200_000
// Myers diff is quadratic in the worst case; a rewrite of a huge file must not stall the loop.
const DIFF_TIMEOUT_MS = 2_000

/** Unified diff of `before` → `after` (LF text) with added/removed line counts. Never throws. */
export function summarizeDiff(path: string, before: string, after: string): DiffSummary {
  const patch = structuredPatch(path, path, before, after, undefined, undefined, {
    context: 3,
    timeout: DIFF_TIMEOUT_MS,
  })
  if (!patch) {
    const removed = lineCount(before)
    const added = lineCount(after)
    return {
      diff: `--- ${path}\n+++ ${path}\n(diff too large to compute: ${removed} lines → ${added} lines)\n`,
      added,
      removed,
    }
  }
  let added = 0
  let removed = 0
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++
      else if (line.startsWith('-')) removed++
    }
  }
  let diff = formatPatch(patch, FILE_HEADERS_ONLY)
  if (diff.length > MAX_DIFF_CHARS) {
    diff = `${diff.slice(0, MAX_DIFF_CHARS)}\n… diff cut: ${diff.length - MAX_DIFF_CHARS} more chars\n`
  }
  return { diff, added, removed }
}

function lineCount(text: string): number {
  if (text === '') return 0
  const n = text.split('\n').length
  return text.endsWith('\n') ? n - 1 : n
}
