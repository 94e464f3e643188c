import type { Mode } from '../../store/domain.js'

/**
 * Mode changes reach the model as an appended message, never as an edit of the system prompt, so the
 * cached prompt prefix stays byte-identical (docs/context.md#stable-prefix).
 */
export function modeInstruction(previous: Mode, next: Mode): string | null {
  if (next === 'plan') {
    return (
      'PLAN MODE is now on. Research and plan only: read files, search, and run read-only commands. Do not ' +
      'edit files or run commands that change anything — such calls will be refused. When the plan is ready, ' +
      'present it (call ExitPlanMode with the plan if that tool is available) and wait for approval.'
    )
  }
  if (previous === 'plan') {
    return `PLAN MODE is now off (permission mode: ${next}). You may carry out the approved plan.`
  }
  return null
}
