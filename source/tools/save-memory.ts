import { z } from 'zod'
import { summarizeDiff } from './diff-summary.js'
import type { InstructionReader } from './instruction-file.js'
import { appendMemoryItem, MEMORY_FILE, readMemory, withItem } from './memory-file.js'
import { defineTool, ToolError, type ToolSuccess } from './types.js'

const DESCRIPTION = `Saves one fact to the project's memory file (${MEMORY_FILE}), which every later session in this project reads at its start.
- Use it when the user asks you to remember something, or for a durable fact about this project that a later session will need (a build command, a convention, where something lives).
- One short, self-contained fact per call, in plain words; it is stored as one dated line. Do not save secrets, or anything only this task needs.
- The user is asked the first time in a session.`

/** A memory is one line: longer than this is not a fact but a document. */
const MAX_FACT_CHARS = 500

const schema = z.strictObject({
  fact: z.string().min(1).describe('One short sentence'),
})

export type SaveMemoryArgs = z.infer<typeof schema>

export interface SaveMemoryOptions {
  /** Reads the memory file as the system prompt does (the read boundary). */
  read: InstructionReader
  /** Today, for the line's date (tests fix it). */
  now?: () => Date
}

/**
 * The line a fact becomes: `2025-01-31: <fact>`, on one line (breaks and control characters become
 * spaces, so a fact cannot add a heading or instructions of its own lines). Throws ToolError for an
 * empty or overlong fact.
 */
export function memoryItem(fact: string, day: Date): string {
  const line = fact
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  if (line === '') throw new ToolError('validation', 'The fact is empty, so nothing was saved.')
  if (line.length > MAX_FACT_CHARS) {
    throw new ToolError(
      'validation',
      `The fact is ${line.length} characters long; a memory is one short line (at most ${MAX_FACT_CHARS}). Nothing was saved.`,
      { hint: 'Save the essential fact in one sentence; put longer notes in a file of the project.' },
    )
  }
  return `${day.toISOString().slice(0, 10)}: ${line}`
}

/** The SaveMemory tool: appends a dated line to the project's memory file (the one `/memory` shows). */
export function createSaveMemoryTool(opts: SaveMemoryOptions) {
  const now = opts.now ?? (() => new Date())
  return defineTool<SaveMemoryArgs>({
    name: 'SaveMemory',
    description: DESCRIPTION,
    schema,
    // It steers later sessions, as configuration does: it asks in safe and auto mode, plan mode refuses it.
    risk: 'config',
    consentForSession: true,
    // The memory file is a workspace file: /rewind takes a saved line back with the turn's other files.
    writesWorkspace: true,
    isReadOnly: () => false,
    permissionTarget: () => ({ kind: 'none' }),
    async preview(args, ctx) {
      const item = (() => {
        try {
          return memoryItem(args.fact, now())
        } catch {
          return args.fact
        }
      })()
      const before = await readMemory(ctx.workspace, opts.read).catch(() => '')
      return {
        kind: 'diff',
        path: MEMORY_FILE,
        diff: summarizeDiff(MEMORY_FILE, before, withItem(before, item)).diff,
      }
    },
    summarize: (args) => `SaveMemory: ${args.fact.replace(/\s+/g, ' ').trim()}`,
    async execute(args, ctx): Promise<ToolSuccess> {
      const item = memoryItem(args.fact, now())
      const before = await readMemory(ctx.workspace, opts.read).catch((error: Error) => {
        throw new ToolError('filesystem', `${error.message}; nothing was saved.`)
      })
      await appendMemoryItem(ctx.workspace, item, opts.read).catch((error: Error) => {
        throw new ToolError('filesystem', `Could not save to ${MEMORY_FILE}: ${error.message}`)
      })
      const { diff, added, removed } = summarizeDiff(MEMORY_FILE, before, withItem(before, item))
      return {
        forModel: `Saved to ${MEMORY_FILE}: "- ${item}". Later sessions in this project read it.`,
        display: { kind: 'diff', path: MEMORY_FILE, diff, added, removed, created: before === '' },
      }
    },
  })
}
