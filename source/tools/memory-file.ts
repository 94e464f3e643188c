import { dirname, join } from 'node:path'
import { atomicWriteFile } from './atomic-write.js'
import type { InstructionReader } from './instruction-file.js'

/**
 * The project's memory file, `.agent-tui/memory.md`: notes the system prompt of every later session in
 * this workspace reads (after AGENTS.md and CLAUDE.md). `/memory add` and the SaveMemory tool both append
 * to it here, one list item per note.
 */

/** Where the notes live, relative to the workspace. */
export const MEMORY_FILE = join('.agent-tui', 'memory.md')

/** An append rewrites the whole file: one this big is not a list of notes any more. */
export const MAX_MEMORY_BYTES = 1024 * 1024

/** The file as it is now ('' when missing), read as the system prompt reads it; throws why it may not be added to. */
export async function readMemory(workspace: string, read: InstructionReader): Promise<string> {
  const path = join(workspace, MEMORY_FILE)
  // A `.agent-tui` that is a link out of the workspace would take the note (and the file) elsewhere.
  const folder = await read.folder(dirname(path))
  if (folder.kind === 'refused') throw new Error(`cannot add to ${MEMORY_FILE}: its folder: ${folder.reason}`)
  // Read as the system prompt reads it: a link to a file outside (or a FIFO) is not copied into the notes.
  const file = await read.file(path, { maxBytes: MAX_MEMORY_BYTES })
  if (file.kind === 'refused') throw new Error(`cannot add to ${MEMORY_FILE}: ${file.reason}`)
  if (file.kind === 'read' && file.truncated)
    throw new Error(`cannot add to ${MEMORY_FILE}: it is over ${MAX_MEMORY_BYTES / 1024} KB`)
  return file.kind === 'read' ? file.text : ''
}

/** `before` with `item` appended as one list item (a heading first in a new file). */
export function withItem(before: string, item: string): string {
  const head = before === '' ? '# Project memory\n\n' : before.endsWith('\n') ? before : `${before}\n`
  return `${head}- ${item}\n`
}

/**
 * Appends `item` (one line) as a list item, creating the file (and `.agent-tui/`) when missing. The file
 * is replaced atomically, so a crash leaves the old notes or the new ones, never half; below the
 * workspace nothing is followed — a committed `.agent-tui -> ~` or `memory.md -> ~/.bashrc` is refused
 * or replaced, never written through. Resolves with the file's path relative to the workspace.
 */
export async function appendMemoryItem(
  workspace: string,
  item: string,
  read: InstructionReader,
): Promise<string> {
  const before = await readMemory(workspace, read)
  await atomicWriteFile(join(workspace, MEMORY_FILE), withItem(before, item), { below: workspace })
  return MEMORY_FILE
}
