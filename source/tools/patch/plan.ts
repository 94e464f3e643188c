import type { FileChange } from '../../store/domain.js'
import { summarizeDiff } from '../diff-summary.js'
import type { MatcherName } from '../edit-matchers.js'
import { DEFAULT_FORMAT, type TextFormat } from '../text-file.js'
import { ToolError } from '../types.js'
import { applyChunks, HunkError } from './apply-chunks.js'
import type { PatchSection } from './parse.js'

/**
 * What a parsed patch does to the files, worked out in memory before anything is written: the sections
 * apply in order to a running picture of the files (a file added and then updated, updated twice, moved),
 * and the end result is a list of writes and deletes against what is on disk now, with a diff per file.
 * The disk is reached only through `PatchDisk`, which also enforces the read-first rule.
 */

/** A file as the patch finds it on disk. */
export type DiskText = { kind: 'missing' } | { kind: 'text'; text: string; format: TextFormat }

export interface PatchDisk {
  /** The path a section names, absolute. */
  resolve(path: string): string
  /** How messages name an absolute path. */
  shown(abs: string): string
  /**
   * The file at `abs` before the patch. Throws ToolError for what the patch may not change: a directory,
   * a binary file, a symbolic link to delete, an existing file not read in this session or changed since.
   */
  load(abs: string, purpose: 'change' | 'delete'): Promise<DiskText>
}

export interface PatchPlan {
  /** What the consent prompt and the transcript card show, in the patch's order. */
  files: FileChange[]
  /** The final content of every file to write, in the patch's order. */
  writes: Array<{ abs: string; text: string; format: TextFormat; created: boolean }>
  deletes: string[]
  /** Hunks a tolerant matcher placed, for the model: "src/a.ts hunk 2: trailing-whitespace". */
  tolerant: Array<{ file: string; hunk: number; matcher: MatcherName }>
}

interface Entry {
  disk: DiskText
  now: { text: string; format: TextFormat } | null
  /** The file this one's content was moved from. */
  movedFrom?: string
  /** Moved away: shown through its destination only. */
  movedAway?: boolean
}

export async function planPatch(sections: readonly PatchSection[], disk: PatchDisk): Promise<PatchPlan> {
  if (sections.length === 0) {
    throw new ToolError('validation', 'The patch has no file sections, so nothing was changed.', {
      hint: "Add an '*** Add File:', '*** Delete File:' or '*** Update File:' section.",
    })
  }
  const entries = new Map<string, Entry>()
  const tolerant: PatchPlan['tolerant'] = []
  const get = async (abs: string, purpose: 'change' | 'delete'): Promise<Entry> => {
    let entry = entries.get(abs)
    if (!entry) {
      const found = await disk.load(abs, purpose)
      entry = { disk: found, now: found.kind === 'text' ? { text: found.text, format: found.format } : null }
      entries.set(abs, entry)
    }
    return entry
  }
  const missing = (abs: string, section: PatchSection, what: string) =>
    new ToolError(
      'not_found',
      `${disk.shown(abs)} (patch line ${section.line}) does not exist${entries.get(abs)?.disk.kind === 'text' ? ' any more: an earlier section of this patch deleted or moved it' : ''}, so it cannot be ${what}. Nothing was changed.`,
      { hint: 'Check the path with Glob; to create a file use *** Add File.' },
    )

  for (const section of sections) {
    const abs = disk.resolve(section.path)
    if (section.kind === 'add') {
      const entry = await get(abs, 'change')
      entry.now = { text: section.contents, format: entry.now?.format ?? DEFAULT_FORMAT }
      entry.movedAway = false
      continue
    }
    if (section.kind === 'delete') {
      const entry = await get(abs, 'delete')
      if (!entry.now) throw missing(abs, section, 'deleted')
      entry.now = null
      continue
    }
    const entry = await get(abs, 'change')
    if (!entry.now) throw missing(abs, section, 'updated')
    let applied: ReturnType<typeof applyChunks>
    try {
      applied = applyChunks(entry.now.text, section.chunks, disk.shown(abs))
    } catch (error) {
      if (!(error instanceof HunkError)) throw error
      throw new ToolError(
        error.reason === 'not-found' ? 'not_found' : 'validation',
        `${error.message}\nNothing was changed.`,
        {
          hint: `Read ${disk.shown(abs)} again and copy the hunk's context lines exactly; every hunk of a patch must apply, or none does.`,
        },
      )
    }
    for (const t of applied.tolerant) tolerant.push({ file: disk.shown(abs), ...t })
    const content = { text: applied.text, format: entry.now.format }
    const destination = section.moveTo === undefined ? abs : disk.resolve(section.moveTo)
    if (destination === abs) {
      entry.now = content
      continue
    }
    const target = await get(destination, 'change')
    target.now = content
    target.movedFrom = disk.shown(abs)
    target.movedAway = false
    entry.now = null
    entry.movedAway = true
  }
  return outcome(entries, disk, tolerant)
}

/** The end result against the disk: what to write and delete, and the diff of each file. */
function outcome(entries: Map<string, Entry>, disk: PatchDisk, tolerant: PatchPlan['tolerant']): PatchPlan {
  const plan: PatchPlan = { files: [], writes: [], deletes: [], tolerant }
  const textOf = (shown: string | undefined) => {
    for (const [abs, e] of entries)
      if (disk.shown(abs) === shown && e.disk.kind === 'text') return e.disk.text
    return ''
  }
  for (const [abs, entry] of entries) {
    const before = entry.disk.kind === 'text' ? entry.disk.text : undefined
    const shown = disk.shown(abs)
    if (entry.now === null) {
      if (before === undefined) continue
      plan.deletes.push(abs)
      if (!entry.movedAway) plan.files.push(fileChange(shown, 'deleted', before, ''))
      continue
    }
    const created = before === undefined
    if (before !== entry.now.text || (entry.disk.kind === 'text' && entry.disk.format !== entry.now.format))
      plan.writes.push({ abs, text: entry.now.text, format: entry.now.format, created })
    // A moved file's diff is against where it came from, unless it replaced a file already there.
    const from = entry.movedFrom !== undefined && created ? textOf(entry.movedFrom) : (before ?? '')
    const change = fileChange(
      shown,
      created && entry.movedFrom === undefined ? 'created' : 'updated',
      from,
      entry.now.text,
    )
    plan.files.push(entry.movedFrom !== undefined ? { ...change, movedFrom: entry.movedFrom } : change)
  }
  return plan
}

function fileChange(path: string, change: FileChange['change'], before: string, after: string): FileChange {
  const { diff, added, removed } = summarizeDiff(path, before, after)
  return { path, change, diff, added, removed }
}
