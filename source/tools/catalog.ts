import { createBashTool } from './bash.js'
import { editTool } from './edit.js'
import { globTool } from './glob.js'
import { grepTool } from './grep.js'
import { createReadTool } from './read.js'
import type { AnyTool } from './types.js'
import { writeTool } from './write.js'

export interface CoreToolOptions {
  /** Read-only shell command classifier from the permissions module. */
  isReadOnlyCommand: (command: string) => boolean
}

/**
 * The core tools in the order the model sees them (Bash first, as in Claude Code). A fresh array on
 * every call and no registration side effects; the order is part of the byte-stable tool definitions.
 */
export function createCoreTools(opts: CoreToolOptions): AnyTool[] {
  return [createBashTool(opts), createReadTool(), writeTool, editTool, globTool, grepTool]
}
