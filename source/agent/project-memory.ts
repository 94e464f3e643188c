import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { atomicWriteFile } from '../tools/atomic-write.js'
import { readOwnFile } from '../util/safe-files.js'
import type { MemoryFile } from './commands.js'

/** Project instruction files, in the order the system prompt reads them (see system-prompt.ts). */
export const INSTRUCTION_FILES: readonly string[] = [
  'AGENTS.md',
  'CLAUDE.md',
  join('.agent-tui', 'memory.md'),
]

/** Where `/memory add` writes: the project's own notes, kept apart from hand-written AGENTS.md. */
export const MEMORY_FILE = join('.agent-tui', 'memory.md')

/** The workspace's instruction files (relative paths), with how many lines each has now (null when missing). */
export async function listMemoryFiles(workspace: string): Promise<MemoryFile[]> {
  return Promise.all(
    INSTRUCTION_FILES.map(async (name) => {
      const text = await readFile(join(workspace, name), 'utf8').catch(() => null)
      return { path: name, lines: text === null ? null : countLines(text) }
    }),
  )
}

/**
 * Appends `text` as one list item to the memory file, creating it (and `.agent-tui/`) when missing. The
 * file is rewritten atomically, so a crash leaves either the old notes or the new ones, never half.
 */
export async function appendMemory(workspace: string, text: string): Promise<string> {
  const line = text.replace(/\s+/g, ' ').trim()
  if (line === '') throw new Error('nothing to remember: /memory add <text>')
  const path = join(workspace, MEMORY_FILE)
  let before: string
  try {
    // Not through a link either: the notes are read back into the file.
    before = readOwnFile(workspace, path)?.toString('utf8') ?? ''
  } catch (error) {
    throw new Error(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`)
  }
  const head = before === '' ? '# Project memory\n\n' : before.endsWith('\n') ? before : `${before}\n`
  // Below the workspace nothing is followed: a committed `.agent-tui -> ~` or `memory.md -> ~/.bashrc`
  // is refused or replaced, never written through.
  await atomicWriteFile(path, `${head}- ${line}\n`, { below: workspace })
  return MEMORY_FILE
}

function countLines(text: string): number {
  if (text === '') return 0
  const breaks = text.split('\n').length - 1
  return text.endsWith('\n') ? breaks : breaks + 1
}
