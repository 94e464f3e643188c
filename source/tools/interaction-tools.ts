import { askUserQuestionTool } from './ask-user-question.js'
import { createConfigTool, type SettingInfo } from './config.js'
import { exitPlanModeTool } from './exit-plan-mode.js'
import { notebookEditTool } from './notebook-edit.js'
import { taskOutputTool } from './task-output.js'
import { taskStopTool } from './task-stop.js'
import { todoWriteTool } from './todo-write.js'
import type { AnyTool } from './types.js'

/**
 * The state and interaction tools (SPEC §6 rows 2, 3, 9–12, 15) in Claude Code's relative order. A
 * fresh array on every call; the catalog splices them between the core tools.
 */
export function createInteractionTools(settings: readonly SettingInfo[] = []): AnyTool[] {
  return [
    taskOutputTool,
    taskStopTool,
    todoWriteTool,
    askUserQuestionTool,
    createConfigTool(settings),
    exitPlanModeTool,
    notebookEditTool,
  ]
}
