import type { Action } from '../store/actions.js'
import { conversationReachable } from '../store/rewind-reducer.js'
import type { State, TimelineEntry } from '../store/state.js'
import { GitCommandError } from './git.js'
import { classifyChanges } from './plan.js'
import { rewindNotice } from './report.js'
import type { CheckpointService } from './checkpoint-service.js'
import type {
  KeptFile,
  RewindOptions,
  RewindPlan,
  RewindReport,
  RewindScope,
  RewindTurn,
  TreeChange,
} from './types.js'

/**
 * `/rewind` and `--rewind-to`: code, conversation or both back to the start of a turn, and the undo of
 * the last rewind. The plan is computed against a fresh snapshot, so it says exactly what will change.
 */

export interface RewindHost {
  getState(): State
  dispatch(action: Action): void
  /** Null when this session has no checkpoint service (tests, or a build without git support). */
  checkpoints: Pick<CheckpointService, 'offReason' | 'snapshotNow' | 'diff' | 'apply' | 'idle'> | null
  newId(prefix: string): string
  /** The model no longer remembers reading what the removed turns read. */
  forgetReads(): void
  /** A turn is running: nothing may be rewound under it. */
  busy(): boolean
  /** The transcript line that says what a rewind did. */
  notice(text: string): void
}

/** Runs a rewind (or its undo) for the runtime: refused while a turn runs, reported in the transcript. */
export async function runRewind(
  host: RewindHost,
  run: (host: RewindHost) => Promise<RewindReport>,
): Promise<RewindReport> {
  if (host.busy()) throw new RewindError('the agent is working: press Esc to interrupt it, then rewind')
  const report = await run(host)
  if (report.applied) host.notice(rewindNotice(report))
  return report
}

/** A user-facing failure: no such turn, nothing to undo, a scope that cannot be honoured. */
export class RewindError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RewindError'
  }
}

/** The turns of the current conversation, oldest first, as /rewind lists them. */
export function listTurns(state: State, off: string | null = null): RewindTurn[] {
  const timeline = state.checkpoints.timeline
  return state.turns.map((mark, i) => {
    const target = timeline[mark.seq]
    const note =
      off && !target ? `checkpoints are off: ${off}` : target && !target.tree ? target.note : undefined
    return {
      id: mark.id,
      number: i + 1,
      prompt: mark.prompt,
      files: mark.files,
      skipped: mark.skipped,
      code: note === undefined,
      ...(note !== undefined ? { codeNote: note || 'no checkpoint was taken' } : {}),
      conversation: conversationReachable(state, mark),
    }
  })
}

/** A turn by 1-based number or id (or a unique prefix of it). */
export function findTurn(turns: readonly RewindTurn[], ref: string): RewindTurn {
  if (turns.length === 0) throw new RewindError('there are no turns to rewind in this conversation')
  const range = `1–${turns.length}`
  if (/^\d+$/.test(ref)) {
    const turn = turns[Number(ref) - 1]
    if (!turn) throw new RewindError(`no turn ${ref}: this conversation has turns ${range}`)
    return turn
  }
  const exact = turns.find((t) => t.id === ref)
  if (exact) return exact
  const prefixed = turns.filter((t) => t.id.startsWith(ref))
  if (prefixed.length === 1 && prefixed[0]) return prefixed[0]
  throw new RewindError(`no turn "${ref}": give a turn number (${range}) or a turn id`)
}

interface CodeStep {
  target: string
  undoTree: string
  undoSkipped: TimelineEntry['skipped']
  written: Record<string, string | null>
}

export async function rewind(
  host: RewindHost,
  ref: string,
  scope: RewindScope,
  opts: RewindOptions = {},
): Promise<RewindReport> {
  await host.checkpoints?.idle()
  const state = host.getState()
  const off = host.checkpoints ? host.checkpoints.offReason() : 'this session has no checkpoints'
  const turn = findTurn(listTurns(state, off), ref)
  const mark = state.turns[turn.number - 1]
  if (!mark) throw new RewindError(`no turn ${ref}`)
  const plan: RewindPlan = {
    turn,
    scope,
    restore: [],
    remove: [],
    outside: [],
    kept: [],
    droppedTurns: 0,
    notes: [],
  }
  let code: CodeStep | null = null

  if (scope !== 'conversation') {
    const timeline = state.checkpoints.timeline
    const entry = timeline[mark.seq]
    if (!turn.code) {
      if (scope === 'code')
        throw new RewindError(`files cannot go back to turn ${turn.number}: ${turn.codeNote}`)
      plan.notes.push(`files are not restored: ${turn.codeNote}`)
    } else if (!entry?.tree) {
      plan.notes.push('the agent changed no files since this turn began')
    } else if (host.checkpoints) {
      if (timeline.slice(mark.seq + 1).some((e) => !e.tree)) {
        plan.notes.push('a later checkpoint failed: files changed after it show as changed outside the agent')
      }
      const now = await snapshotNow(host.checkpoints)
      const changes = await storedDiff(host.checkpoints, entry.tree, now.tree)
      const overCap = new Set([...entry.skipped, ...now.skipped].map((s) => s.path))
      const sorted = classifyChanges(changes, state.checkpoints.known, overCap, opts.force === true)
      Object.assign(plan, {
        restore: sorted.restore,
        remove: sorted.remove,
        outside: sorted.outside,
        kept: sorted.kept,
      })
      code = { target: entry.tree, undoTree: now.tree, undoSkipped: now.skipped, written: sorted.written }
    }
  }
  if (scope !== 'code') {
    if (!turn.conversation) {
      const why = 'the conversation before it was cleared or compacted'
      if (scope === 'conversation')
        throw new RewindError(`the conversation cannot go back to turn ${turn.number}: ${why}`)
      plan.notes.push(`the conversation is not rewound: ${why}`)
    } else plan.droppedTurns = state.turns.length - turn.number + 1
  }
  if (opts.dryRun) return { ...plan, applied: false, undoable: false }

  const rewindId = host.newId('rewind')
  if (code && Object.keys(code.written).length > 0 && host.checkpoints) {
    const refused = await host.checkpoints.apply(code.target, plan.restore, plan.remove)
    refuse(plan, code.written, refused)
    host.dispatch({
      type: 'code/rewound',
      rewindId,
      turnId: turn.id,
      undoTree: code.undoTree,
      skipped: code.undoSkipped,
      written: code.written,
    })
  }
  if (plan.droppedTurns > 0) {
    host.dispatch({ type: 'conversation/rewound', rewindId, turnId: turn.id })
    host.forgetReads()
  }
  return { ...plan, applied: true, undoable: host.getState().checkpoints.undo?.id === rewindId }
}

/** Puts the files as they were just before the last rewind, and its conversation back if nothing followed. */
export async function undoRewind(host: RewindHost, opts: RewindOptions = {}): Promise<RewindReport> {
  await host.checkpoints?.idle()
  const state = host.getState()
  const undo = state.checkpoints.undo
  if (!undo) throw new RewindError('there is no rewind to undo')
  const plan: RewindPlan = {
    scope: undo.code && undo.conversation ? 'both' : undo.code ? 'code' : 'conversation',
    restore: [],
    remove: [],
    outside: [],
    kept: [],
    droppedTurns: 0,
    notes: [],
  }
  let code: CodeStep | null = null
  if (undo.code) {
    if (!host.checkpoints || host.checkpoints.offReason()) {
      throw new RewindError(
        `files cannot be put back: checkpoints are off (${host.checkpoints?.offReason() ?? 'none'})`,
      )
    }
    const now = await snapshotNow(host.checkpoints)
    const changes = await storedDiff(host.checkpoints, undo.code.tree, now.tree, undo.code.paths)
    const overCap = new Set(now.skipped.map((s) => s.path))
    const sorted = classifyChanges(changes, state.checkpoints.known, overCap, opts.force === true)
    Object.assign(plan, {
      restore: sorted.restore,
      remove: sorted.remove,
      outside: sorted.outside,
      kept: sorted.kept,
    })
    code = { target: undo.code.tree, undoTree: now.tree, undoSkipped: now.skipped, written: sorted.written }
  }
  if (!undo.conversation && !undo.code)
    throw new RewindError('the conversation has moved on since the rewind')
  if (undo.conversation === null && plan.scope !== 'code') {
    plan.notes.push('the conversation has moved on since the rewind: only files are put back')
  }
  if (opts.dryRun) return { ...plan, applied: false, undoable: false }
  let written: Record<string, string | null> = {}
  if (code && Object.keys(code.written).length > 0 && host.checkpoints) {
    const refused = await host.checkpoints.apply(code.target, plan.restore, plan.remove)
    refuse(plan, code.written, refused)
    written = code.written
  }
  host.dispatch({
    type: 'rewind/undone',
    beforeTree: code ? code.undoTree : null,
    skipped: code ? code.undoSkipped : [],
    written,
    conversation: undo.conversation !== null,
  })
  return { ...plan, applied: true, undoable: false }
}

async function snapshotNow(checkpoints: NonNullable<RewindHost['checkpoints']>) {
  try {
    return await checkpoints.snapshotNow()
  } catch (err) {
    throw new RewindError(
      `could not snapshot the workspace: ${err instanceof Error ? err.message : String(err)}`,
    )
  }
}

/** A diff against a snapshot the shadow repository no longer has (deleted by hand) says so plainly. */
async function storedDiff(
  checkpoints: NonNullable<RewindHost['checkpoints']>,
  from: string,
  to: string,
  paths?: readonly string[],
): Promise<TreeChange[]> {
  try {
    return await checkpoints.diff(from, to, paths)
  } catch (err) {
    if (!(err instanceof GitCommandError)) throw err
    throw new RewindError(`the checkpoint is no longer stored in the shadow repository (${err.message})`)
  }
}

/** Paths the workspace refused (a directory or symlink in the way) are kept, not written. */
function refuse(plan: RewindPlan, written: Record<string, string | null>, refused: readonly string[]): void {
  if (!refused.length) return
  const set = new Set(refused)
  plan.restore = plan.restore.filter((p) => !set.has(p))
  plan.remove = plan.remove.filter((p) => !set.has(p))
  for (const path of refused) {
    delete written[path]
    plan.kept.push({ path, reason: 'unsafe-path' } satisfies KeptFile)
  }
}
