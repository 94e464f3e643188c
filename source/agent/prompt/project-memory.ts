import { join } from 'node:path'
import { appendMemoryItem, MEMORY_FILE } from '../../tools/memory-file.js'
import type { InstructionReader } from '../../tools/instruction-file.js'
import type { MemoryFile } from '../runtime/commands.js'

/** Project instruction files, in the order the system prompt reads them (see system-prompt.ts). */
export const INSTRUCTION_FILES: readonly string[] = ['AGENTS.md', 'CLAUDE.md', MEMORY_FILE]

export { MEMORY_FILE }

/**
 * The workspace's instruction files (relative paths), with how many lines each has now (null when missing
 * or left out), read as the system prompt reads them: a file the read boundary keeps out says why.
 */
export async function listMemoryFiles(workspace: string, read: InstructionReader): Promise<MemoryFile[]> {
  return Promise.all(
    INSTRUCTION_FILES.map(async (name) => {
      const file = await read.file(join(workspace, name))
      if (file.kind === 'refused') return { path: name, lines: null, leftOut: file.reason }
      return { path: name, lines: file.kind === 'read' ? countLines(file.text) : null }
    }),
  )
}

/** `/memory add <text>`: the text as one list item of the memory file (tools/memory-file.ts). */
export async function appendMemory(
  workspace: string,
  text: string,
  read: InstructionReader,
): Promise<string> {
  const line = text.replace(/\s+/g, ' ').trim()
  if (line === '') throw new Error('nothing to remember: /memory add <text>')
  return appendMemoryItem(workspace, line, read)
}

function countLines(text: string): number {
  if (text === '') return 0
  const breaks = text.split('\n').length - 1
  return text.endsWith('\n') ? breaks : breaks + 1
}
