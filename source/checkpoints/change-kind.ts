import type { Risk } from '../store/domain.js'
import type { PermissionTarget } from '../permissions/target.js'

/**
 * Which tool calls change the workspace and so get a checkpoint: edits (Edit, Write, MultiEdit,
 * NotebookEdit, apply_patch, DeleteFile), a tool of another class that writes a workspace file
 * (`writesWorkspace`: SaveMemory's memory file) and shell commands the read-only classifier does not
 * clear. Null for everything else.
 */
export function changeKind(
  risk: Risk,
  target: PermissionTarget,
  readOnly: boolean,
  writesWorkspace?: boolean,
): 'edit' | 'exec' | null {
  if (risk === 'edit' || (writesWorkspace && !readOnly)) return 'edit'
  if (risk === 'exec' && target.kind === 'command' && !readOnly) return 'exec'
  return null
}
