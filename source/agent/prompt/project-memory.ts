import { isAbsolute, join, relative } from 'node:path'
import { appendMemoryItem, MEMORY_FILE } from '../../tools/memory-file.js'
import type { InstructionReader } from '../../tools/instruction-file.js'
import type { MemoryFile } from '../runtime/commands.js'
import type { InstructionRoot } from './instructions.js'

/** Project instruction files, in the order the system prompt reads them (see system-prompt.ts). */
export const INSTRUCTION_FILES: readonly string[] = ['AGENTS.md', 'CLAUDE.md', MEMORY_FILE]

export { MEMORY_FILE }

/** Claude Code's project instruction files, read after CLAUDE.md when Claude Code's places are read. */
export const CLAUDE_INSTRUCTION_FILES: readonly string[] = [join('.claude', 'CLAUDE.md'), 'CLAUDE.local.md']

/** The files whose `@path` imports are followed: CLAUDE.md files (Claude Code's syntax, not AGENTS.md's). */
const IMPORTING = new Set(['CLAUDE.md', 'CLAUDE.local.md'])

/**
 * The instruction files of a session, in prompt order: `~/.claude/CLAUDE.md` (the user's, when Claude
 * Code's places are read), AGENTS.md, CLAUDE.md, `.claude/CLAUDE.md` and `CLAUDE.local.md` (Claude Code's
 * places), then `.agent-tui/memory.md`; and how a path is shown (workspace-relative, `~/…`).
 */
export function instructionRoots(
  workspace: string,
  read: InstructionReader,
  claude?: { userMemory: string; readUser: InstructionReader; home: string },
): { roots: InstructionRoot[]; label(path: string): string } {
  const label = (path: string) => shownPath(path, workspace, claude?.home)
  const project = (name: string): InstructionRoot => {
    const path = join(workspace, name)
    const imports = claude !== undefined && IMPORTING.has(name.split(/[\\/]/).pop() ?? '')
    return { path, label: label(path), read, imports }
  }
  const [agents, claudeMd, memory] = INSTRUCTION_FILES.map(project) as [
    InstructionRoot,
    InstructionRoot,
    InstructionRoot,
  ]
  if (!claude) return { roots: [agents, claudeMd, memory], label }
  const user: InstructionRoot = {
    path: claude.userMemory,
    label: label(claude.userMemory),
    read: claude.readUser,
    imports: true,
  }
  return { roots: [user, agents, claudeMd, ...CLAUDE_INSTRUCTION_FILES.map(project), memory], label }
}

/** `src/CLAUDE.md` inside the workspace, `~/.claude/CLAUDE.md` in the home folder, else absolute. */
export function shownPath(path: string, workspace: string, home?: string): string {
  const inside = (root: string) => {
    const rel = relative(root, path)
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : undefined
  }
  const rel = inside(workspace)
  if (rel !== undefined) return rel
  const inHome = home ? inside(home) : undefined
  return inHome !== undefined ? `~/${inHome}` : path
}

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
