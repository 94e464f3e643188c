import type { KeptFile, RewindReport } from './types.js'

/** How a rewind reads: the transcript notice, the headless report and the dialog share these words. */

const KEPT_REASON: Record<KeptFile['reason'], string> = {
  outside: 'changed outside the agent since the checkpoint',
  'size-cap': 'over the size cap when a snapshot was taken',
  'nested-repo': 'inside a nested repository, which checkpoints do not cover',
  'unsafe-path': 'a directory, file or symlink is now in the way',
}

export function keptReason(reason: KeptFile['reason']): string {
  return KEPT_REASON[reason]
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

function quote(prompt: string): string {
  const line = prompt.trim().split('\n')[0] ?? ''
  return `“${line.length > 50 ? `${line.slice(0, 49)}…` : line}”`
}

/** What the rewind is about: `turn 2 “fix the greeting”`, or the undo. */
export function rewindTitle(report: RewindReport): string {
  return report.turn ? `turn ${report.turn.number} ${quote(report.turn.prompt)}` : 'the last rewind'
}

/** One line for the transcript after a rewind (or its undo) was applied. */
export function rewindNotice(report: RewindReport): string {
  const undo = !report.turn
  const parts: string[] = []
  const files = report.restore.length + report.remove.length
  if (files > 0) {
    const removed = report.remove.length ? `, ${report.remove.length} deleted` : ''
    parts.push(`${count(report.restore.length, 'file')} restored${removed}`)
  } else if (report.scope !== 'conversation') parts.push('no file needed restoring')
  const outsideKept = report.outside.filter((p) => !report.restore.includes(p) && !report.remove.includes(p))
  if (outsideKept.length) {
    parts.push(
      `${count(outsideKept.length, 'file')} changed outside the agent kept (${outsideKept.slice(0, 3).join(', ')})`,
    )
  }
  if (report.droppedTurns > 0)
    parts.push(`conversation back to before it (${count(report.droppedTurns, 'turn')} removed)`)
  if (undo && report.scope !== 'code') parts.push('conversation restored')
  const head = undo ? 'Undid the last rewind' : `Rewound to ${rewindTitle(report)}`
  const tail = report.undoable ? ' — /rewind can undo this' : ''
  return `${head}: ${parts.join('; ') || 'nothing to change'}${tail}`
}

/** The headless report (`--rewind-to`), one line per file. */
export function reportLines(report: RewindReport): string[] {
  const would = !report.applied
  const verb = (done: string, planned: string) => (would ? planned : done)
  const what =
    report.scope === 'both'
      ? 'code and conversation'
      : report.scope === 'code'
        ? 'code only'
        : 'conversation only'
  const lines = [
    report.turn
      ? `${would ? 'Dry run: rewind' : 'Rewound'} to the start of ${rewindTitle(report)} (${what})`
      : `${would ? 'Dry run: undo' : 'Undid'} the last rewind`,
  ]
  for (const path of report.restore) lines.push(`  ${verb('restored', 'restore')}  ${path}`)
  for (const path of report.remove) lines.push(`  ${verb('deleted', 'delete')}   ${path}`)
  const outsideKept = report.outside.filter((p) => !report.restore.includes(p) && !report.remove.includes(p))
  for (const path of outsideKept)
    lines.push(`  ${verb('kept', 'keep')}     ${path}  (${keptReason('outside')}; --force restores it)`)
  for (const k of report.kept)
    lines.push(`  ${verb('kept', 'keep')}     ${k.path}  (${keptReason(k.reason)})`)
  if (
    report.scope !== 'conversation' &&
    report.restore.length + report.remove.length + report.outside.length === 0
  ) {
    lines.push('  files: nothing to restore')
  }
  if (report.droppedTurns > 0) {
    lines.push(
      `  conversation: ${verb('back', 'goes back')} to before this turn (${count(report.droppedTurns, 'turn')} removed)`,
    )
  } else if (!report.turn && report.scope !== 'code') {
    lines.push(`  conversation: ${verb('restored', 'restore')} as it was before the rewind`)
  }
  for (const note of report.notes) lines.push(`  note: ${note}`)
  return lines
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`
  return `${bytes} B`
}
