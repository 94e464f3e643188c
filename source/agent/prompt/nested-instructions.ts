import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import type { InstructionReader } from '../../tools/instruction-file.js'
import type { Announcement } from '../runtime/announcements.js'
import {
  type InstructionSection,
  type LoadedInstructions,
  loadInstructions,
  skipNotice,
} from './instructions.js'
import { shownPath } from './project-memory.js'

/**
 * CLAUDE.md files below the working folder, read as Claude Code reads them: when the agent first works in
 * that subtree (a Read, Edit, Write, Glob or Grep there, or a `cd` into it), each with its `@path` imports,
 * through the read boundary. They reach the model as a message at its next step, never as an edit of the
 * system prompt (whose bytes stay the same for the whole session, for the server's cache). A file
 * already in the prompt, or announced, is not read again.
 */

export interface NestedInstructions {
  /** The agent works at these places now (absolute or relative to `cwd`). */
  touched(places: readonly Place[], cwd: string): void
  /** The files read since the last call, as announcements (a read still under way waits for the next). */
  take(): Announcement[]
  /** Resolves when the reads under way are done (or after `waitMs`: a slow disk does not hold the step). */
  ready(): Promise<void>
}

export interface NestedOptions {
  workspace: string
  home: string
  read: InstructionReader
  /** Real paths already in the instructions (the system prompt's): shared, updated as files are read. */
  seen: Set<string>
  /** Each file read (or left out), for `/status`. */
  record?(loaded: LoadedInstructions): void
  /** A file left out, and why. */
  report?(text: string): void
  /** How long the next step waits for reads under way (default 2 s). */
  waitMs?: number
}

/** A file the agent works on, or a folder it works in (a Glob's or Grep's `path`, Bash's folder). */
export interface Place {
  path: string
  /** A file: the agent works in its folder. */
  file: boolean
}

/** The tools whose arguments name where the agent works: the argument, and whether it names a file. */
const PATH_ARGUMENTS: Readonly<Record<string, { key: string; file: boolean }>> = {
  Read: { key: 'file_path', file: true },
  Write: { key: 'file_path', file: true },
  Edit: { key: 'file_path', file: true },
  MultiEdit: { key: 'file_path', file: true },
  NotebookEdit: { key: 'notebook_path', file: true },
  Glob: { key: 'path', file: false },
  // A Grep's path may be one file: then its folder is where the agent works.
  Grep: { key: 'path', file: false },
}

/** The places a tool call's arguments name (its JSON as the model sent it); none for other tools. */
export function placesOfCall(name: string, argumentsJson: string): Place[] {
  const spec = PATH_ARGUMENTS[name]
  if (!spec) return []
  let args: unknown
  try {
    args = JSON.parse(argumentsJson)
  } catch {
    return []
  }
  if (typeof args !== 'object' || args === null) return []
  const value = (args as Record<string, unknown>)[spec.key]
  if (typeof value !== 'string' || value === '') return []
  const file = spec.file || (name === 'Grep' && /\.[^\\/.]+$/.test(value))
  return [{ path: value, file }]
}

/**
 * The CLAUDE.md files of the folders from `path`'s folder up to, not including, the workspace (whose own
 * is in the prompt), outermost first. A file's folder is where the agent works: `src/api/x.ts` gives
 * `src/CLAUDE.md`, `src/api/CLAUDE.md`. Nothing outside the workspace.
 */
export function nestedCandidates(path: string, workspace: string, isFile: boolean): string[] {
  const start = isFile ? dirname(path) : path
  const rel = relative(workspace, start)
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return []
  const parts = rel.split(/[\\/]/).filter(Boolean)
  return parts.map((_, i) => join(workspace, ...parts.slice(0, i + 1), 'CLAUDE.md'))
}

export function createNestedInstructions(opts: NestedOptions): NestedInstructions {
  /** Candidates asked about already (read or not): each folder is looked at once. */
  const asked = new Set<string>()
  const ready: Announcement[] = []
  const pending = new Set<Promise<void>>()
  const label = (path: string) => shownPath(path, opts.workspace, opts.home)

  /** One file and its imports: its sections, or none (missing, left out, or in the prompt already). */
  const readOne = async (path: string): Promise<InstructionSection[]> => {
    const loaded = await loadInstructions([{ path, label: label(path), read: opts.read, imports: true }], {
      home: opts.home,
      label,
      seen: opts.seen,
    })
    if (loaded.sections.length > 0 || loaded.skipped.some((s) => s.reason !== 'missing'))
      opts.record?.(loaded)
    for (const skip of loaded.skipped)
      if (skip.reason === 'refused' || skip.reason === 'cycle' || skip.reason === 'depth')
        opts.report?.(skipNotice(skip))
    return loaded.sections
  }

  /** The folders' files in order, outermost first, as one message. */
  const readChain = async (paths: readonly string[]) => {
    const sections: InstructionSection[] = []
    for (const path of paths) sections.push(...(await readOne(path).catch(() => [])))
    const first = sections.find((s) => !s.importedBy)
    if (!first) return
    const deepest = sections.findLast((s) => !s.importedBy) ?? first
    const where = label(dirname(deepest.path))
    const text = sections
      .map((s) =>
        s.importedBy
          ? `# Instructions from ${s.label} (imported by ${s.importedBy})\n${s.text}`
          : `# Instructions from ${s.label}, for work in ${label(dirname(s.path))}/\n${s.text}`,
      )
      .join('\n\n')
    const files = sections.filter((s) => !s.importedBy).map((s) => s.label)
    ready.push({
      content: `The agent started working in ${where}/, which has instructions of its own (for work there, beside the project's):\n\n${text}`,
      note: `Read ${files.join(', ')} (the agent works in ${where}/ now)`,
    })
  }

  return {
    touched(places, cwd) {
      for (const place of places) {
        const abs = resolve(cwd, place.path)
        const fresh = nestedCandidates(abs, opts.workspace, place.file).filter((c) => !asked.has(c))
        if (fresh.length === 0) continue
        for (const candidate of fresh) asked.add(candidate)
        const read = readChain(fresh)
        pending.add(read)
        void read.finally(() => pending.delete(read))
      }
    },
    take: () => ready.splice(0),
    async ready() {
      if (pending.size === 0) return
      let timer: NodeJS.Timeout | undefined
      const cap = new Promise<void>((done) => {
        timer = setTimeout(done, opts.waitMs ?? 2000)
        timer.unref?.()
      })
      await Promise.race([Promise.all(pending), cap])
      clearTimeout(timer)
    },
  }
}
