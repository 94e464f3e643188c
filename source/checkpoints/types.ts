/** Plain data shared by the checkpoint service, the store, the runtime and the /rewind dialog. */

import type { SkippedFile } from '../store/domain.js'

export type { SkippedFile }

export interface BlobRef {
  mode: string
  blob: string
}

/** One path that differs between two trees (`before` → `after`; null = absent). */
export interface TreeChange {
  path: string
  before: BlobRef | null
  after: BlobRef | null
  /** A nested repository (gitlink): its files are not in the snapshot. */
  nested: boolean
}

export type RewindScope = 'code' | 'conversation' | 'both'

/** A turn as /rewind lists it. */
export interface RewindTurn {
  id: string
  /** 1-based position among the turns of the current conversation. */
  number: number
  prompt: string
  /** Workspace-relative files the agent changed in this turn. */
  files: string[]
  /** Files the turn's checkpoint left out for their size. */
  skipped: SkippedFile[]
  /** The code can go back to the start of this turn (a checkpoint at or after it exists, or nothing changed). */
  code: boolean
  /** Why code cannot go back (no checkpoint: git missing, workspace too large…). */
  codeNote?: string
  /** The conversation can go back to before this turn (false once /clear or a compaction replaced it). */
  conversation: boolean
}

/** A file the code part of a rewind would leave alone, and why. */
export interface KeptFile {
  path: string
  reason: 'outside' | 'size-cap' | 'nested-repo' | 'unsafe-path'
}

/** What a rewind (or its undo) would do; also what it did. */
export interface RewindPlan {
  /** The turn it goes back to (absent for an undo). */
  turn?: RewindTurn
  scope: RewindScope
  /** Files written back as they were. */
  restore: string[]
  /** Files created after the checkpoint, deleted. */
  remove: string[]
  /** Files changed outside the agent since the checkpoint: kept unless forced (then restored or removed). */
  outside: string[]
  /** Files not touched for another reason (size cap, nested repository…). */
  kept: KeptFile[]
  /** Turns the conversation loses (0 for code only). */
  droppedTurns: number
  /** Plain-language notes (e.g. "checkpoints are off: git was not found"). */
  notes: string[]
}

export interface RewindOptions {
  /** Also restore (or remove) files changed outside the agent. */
  force?: boolean
  dryRun?: boolean
}

export interface RewindReport extends RewindPlan {
  applied: boolean
  /** An undo is available after this rewind. */
  undoable: boolean
}
