import { formatBytes, keptReason } from '../../../checkpoints/report.js'
import type { RewindReport, RewindScope, RewindTurn } from '../../../checkpoints/types.js'
import type { RewindUndo } from '../../../store/state.js'

/** What the /rewind dialog shows, as plain data: rows of the turn list, scope options, plan lines. */

export type ListRow = { kind: 'undo'; label: string } | { kind: 'turn'; turn: RewindTurn }

/** Turns oldest first (like the transcript), the undo of the last rewind below them when there is one. */
export function listRows(turns: readonly RewindTurn[], undo: RewindUndo | null): ListRow[] {
  const rows: ListRow[] = turns.map((turn) => ({ kind: 'turn', turn }))
  if (undo) {
    rows.push({
      kind: 'undo',
      label: `Undo the last rewind (to ${firstLine(undo.prompt, 40)}): put back what it changed`,
    })
  }
  return rows
}

export function firstLine(text: string, max: number): string {
  const line = text.trim().split('\n')[0] ?? ''
  return `“${line.length > max ? `${line.slice(0, max - 1)}…` : line}”`
}

/** `· 3 files: a.ts, b.ts, c.ts` / `· no file changes`, fitted to `width` characters. */
export function filesLabel(turn: RewindTurn, width: number): string {
  if (turn.files.length === 0) return turn.code ? '· no file changes' : `· ${turn.codeNote ?? ''}`
  const head = `· ${turn.files.length === 1 ? '1 file' : `${turn.files.length} files`}: `
  let text = head
  for (const [i, file] of turn.files.entries()) {
    const next = `${text}${i > 0 ? ', ' : ''}${file}`
    const more = turn.files.length - i - 1
    if (i > 0 && next.length + (more > 0 ? ` +${more}`.length : 0) > width) return `${text} +${more + 1}`
    text = next
  }
  return text.length > width ? `${text.slice(0, Math.max(head.length, width - 1))}…` : text
}

export interface ScopeOption {
  scope: RewindScope
  label: string
  /** Why this option cannot be used for this turn; undefined when it can. */
  unavailable?: string
}

export function scopeOptions(turn: RewindTurn): ScopeOption[] {
  const noCode = turn.code ? undefined : `files cannot go back: ${turn.codeNote ?? 'no checkpoint'}`
  const noConversation = turn.conversation ? undefined : 'the conversation before it was cleared or compacted'
  const both: ScopeOption = { scope: 'both', label: 'Restore code and conversation' }
  if (noCode || noConversation) both.unavailable = noCode ?? noConversation
  return [
    both,
    {
      scope: 'conversation',
      label: 'Restore conversation only',
      ...(noConversation ? { unavailable: noConversation } : {}),
    },
    { scope: 'code', label: 'Restore code only', ...(noCode ? { unavailable: noCode } : {}) },
  ]
}

export type PlanLine = { text: string; tone: 'plain' | 'add' | 'remove' | 'warn' | 'dim' }

/** The plan of a rewind (a dry run) as lines: what is restored, deleted, kept, and the conversation. */
export function planLines(plan: RewindReport, width: number): PlanLine[] {
  const lines: PlanLine[] = []
  const list = (label: string, paths: readonly string[], tone: PlanLine['tone']) => {
    if (paths.length)
      lines.push({ text: clip(`${label} (${paths.length}): ${paths.join(', ')}`, width), tone })
  }
  list(
    'Restore',
    plan.restore.filter((p) => !plan.outside.includes(p)),
    'add',
  )
  list(
    plan.turn ? 'Delete (created after the checkpoint)' : 'Delete',
    plan.remove.filter((p) => !plan.outside.includes(p)),
    'remove',
  )
  if (plan.outside.length) {
    lines.push({
      text: clip(
        `Changed outside the agent since the checkpoint (${plan.outside.length}): ${plan.outside.join(', ')}`,
        width,
      ),
      tone: 'warn',
    })
  }
  for (const kept of plan.kept) {
    lines.push({ text: clip(`Left as is: ${kept.path} — ${keptReason(kept.reason)}`, width), tone: 'dim' })
  }
  if (plan.scope !== 'conversation' && plan.restore.length + plan.remove.length + plan.outside.length === 0) {
    lines.push({ text: 'Files: nothing to restore', tone: 'dim' })
  }
  if (plan.droppedTurns > 0) {
    const n = plan.droppedTurns
    lines.push({
      text: `Conversation: back to before this turn (${n} turn${n === 1 ? '' : 's'} removed)`,
      tone: 'plain',
    })
  } else if (!plan.turn && plan.scope !== 'code') {
    lines.push({ text: 'Conversation: restored as it was before the rewind', tone: 'plain' })
  }
  for (const note of plan.notes) lines.push({ text: clip(`Note: ${note}`, width), tone: 'dim' })
  for (const skipped of plan.turn?.skipped ?? []) {
    if (plan.kept.some((k) => k.path === skipped.path)) continue
    lines.push({
      text: clip(
        `Not in the checkpoint: ${skipped.path} (${formatBytes(skipped.bytes)}, over the size cap)`,
        width,
      ),
      tone: 'dim',
    })
  }
  return lines
}

export interface ConfirmOption {
  force: boolean
  label: string
}

/** Apply keeping outside changes; apply overwriting them (only when there are some); back. */
export function confirmOptions(plan: RewindReport): Array<ConfirmOption | { back: true; label: string }> {
  const verb = plan.turn ? 'Rewind' : 'Undo the rewind'
  const options: Array<ConfirmOption | { back: true; label: string }> = [
    { force: false, label: plan.outside.length ? `${verb}, keep the files changed outside the agent` : verb },
  ]
  if (plan.outside.length) {
    const which = plan.outside.length === 1 ? plan.outside[0] : `those ${plan.outside.length} files`
    options.push({ force: true, label: `${verb} and overwrite ${which} too` })
  }
  options.push({ back: true, label: 'Back' })
  return options
}

function clip(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(1, width - 1))}…` : text
}
