import type { ApplyPatchOffer } from '../provider/model-profiles.js'
import { applyPatchTool } from './apply-patch.js'
import { askUserQuestionTool } from './ask-user-question.js'
import { type BashToolOptions, createBashTool } from './bash.js'
import { createConfigTool, type SettingInfo } from './config.js'
import { deleteFileTool } from './delete-file.js'
import { editTool } from './edit.js'
import { exitPlanModeTool } from './exit-plan-mode.js'
import { globTool } from './glob.js'
import { grepTool } from './grep.js'
import type { InstructionReader } from './instruction-file.js'
import { multiEditTool } from './multi-edit.js'
import { renderNotebook } from './notebook.js'
import { notebookEditTool } from './notebook-edit.js'
import { createReadTool } from './read.js'
import { createSaveMemoryTool } from './save-memory.js'
import { taskOutputTool } from './task-output.js'
import { taskStopTool } from './task-stop.js'
import { todoWriteTool } from './todo-write.js'
import type { AnyTool } from './types.js'
import { createWebFetchTool } from './web-fetch.js'
import { createWebSearchTool } from './web-search.js'
import type { WebToolOptions } from './web/types.js'
import { writeTool } from './write.js'

export interface CoreToolOptions {
  /** Read-only shell command classifier from the permissions module. */
  isReadOnlyCommand: BashToolOptions['isReadOnlyCommand']
}

export interface CatalogOptions extends CoreToolOptions {
  /** The session's services for WebFetch and WebSearch (summarizer, search settings, notices). */
  web?: WebToolOptions
  /** The runtime settings the session offers, for the Config tool's description. */
  settings?: readonly SettingInfo[]
  /** Reads the memory file as the system prompt does; without it there is no SaveMemory. */
  memory?: InstructionReader
  /** apply_patch for the session's model (its profile): in place of Edit, MultiEdit and Write, beside them, or not. */
  applyPatch?: ApplyPatchOffer
}

/** What apply_patch stands in for when a profile offers it in their place. */
const REPLACED_BY_PATCH = new Set(['Write', 'Edit', 'MultiEdit'])

/**
 * The core tools in the order the model sees them (Bash first, as in Claude Code). A fresh array on
 * every call and no registration side effects; the order is part of the byte-stable tool definitions.
 */
export function createCoreTools(opts: CoreToolOptions): AnyTool[] {
  return [createBashTool(opts), createReadTool(), writeTool, editTool, globTool, grepTool]
}

/**
 * Every tool of this build, in the order of docs/tools.md#the-tools. The session sends exactly this list (same order, same
 * bytes) with every request.
 */
export function createCatalog(opts: CatalogOptions): AnyTool[] {
  const tools: AnyTool[] = [
    createBashTool(opts),
    taskOutputTool,
    taskStopTool,
    createReadTool({ renderNotebook: (raw) => renderNotebook(raw) }),
    writeTool,
    editTool,
    globTool,
    grepTool,
    todoWriteTool,
    askUserQuestionTool,
    createConfigTool(opts.settings ?? []),
    exitPlanModeTool,
    createWebFetchTool(opts.web),
    createWebSearchTool(opts.web),
    notebookEditTool,
    multiEditTool,
    deleteFileTool,
    ...(opts.memory ? [createSaveMemoryTool({ read: opts.memory })] : []),
  ]
  const patch = opts.applyPatch ?? false
  if (patch === false) return tools
  // In place of the file-editing tools, at the place of the first of them; beside them, after the last.
  if (patch === 'beside') return [...tools, applyPatchTool]
  const at = tools.findIndex((t) => REPLACED_BY_PATCH.has(t.name))
  const kept = tools.filter((t) => !REPLACED_BY_PATCH.has(t.name))
  kept.splice(at, 0, applyPatchTool)
  return kept
}
