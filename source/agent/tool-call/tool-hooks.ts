import { isAbsolute, resolve } from 'node:path'
import type { HookService } from '../../user-hooks/hook-service.js'
import type { HookCard } from '../../user-hooks/types.js'
import type { Dispatch } from '../../store/create-store.js'
import type { ToolDisplay } from '../../store/domain.js'
import type { ToolSuccess } from '../../tools/types.js'
import { resolveToolPath } from '../../tools/paths.js'

/**
 * PreToolUse and PostToolUse around one tool call (the pipeline's side of source/user-hooks/). The executor
 * decides what a verdict means for the call; this module asks the hooks, shows their cards, and builds
 * what the model reads from them.
 */

export interface ToolHooks {
  service: HookService
  dispatch: Dispatch
  /** Tools show paths inside it relative to it; `tool_response.filePath` is absolute. */
  workspace: string
  /** Where the call's relative paths resolve (the current directory of the runtime it runs in). */
  cwd?(): string
  /** A Notification hook run that nobody waits for (a consent prompt is opening). */
  notify(type: string, message: string): void
  /** Card ids: unique in the session even when a server reuses tool-call ids. */
  newId(prefix: string): string
}

export interface PreToolVerdict {
  /** Why a hook denied the call (exit 2, `permissionDecision: deny`, `decision: block`); null: not denied. */
  deny: string | null
  allow: boolean
  /** Why a hook wants the user asked first; null: it does not. */
  ask: string | null
  updatedInput: Record<string, unknown> | null
  /** A hook answered `"continue": false`: the call does not run and the turn stops. */
  stop: string | null
}

export async function preToolUse(
  hooks: ToolHooks,
  call: { id: string; tool: string; input: unknown },
  signal: AbortSignal,
): Promise<PreToolVerdict> {
  const verdict = await hooks.service.run(
    'PreToolUse',
    { tool_name: call.tool, tool_input: hookToolInput(call.input, hooks), tool_use_id: call.id },
    { signal, target: call.tool },
  )
  showCards(hooks.dispatch, hooks.newId(`hook-pre-${call.id}`), verdict.cards)
  return {
    deny: verdict.permission === 'deny' ? verdict.block || verdict.permissionReason : null,
    allow: verdict.permission === 'allow',
    ask: verdict.permission === 'ask' ? verdict.permissionReason || 'a PreToolUse hook asks first' : null,
    updatedInput: verdict.updatedInput,
    stop: verdict.stop,
  }
}

export interface PostToolVerdict {
  /** Appended to the tool's result: what the hooks tell the model (block reasons, additional context). */
  feedback: string
  stop: string | null
}

export async function postToolUse(
  hooks: ToolHooks,
  call: { id: string; tool: string; input: unknown },
  result: ToolSuccess,
  signal: AbortSignal,
): Promise<PostToolVerdict> {
  const verdict = await hooks.service.run(
    'PostToolUse',
    {
      tool_name: call.tool,
      tool_input: hookToolInput(call.input, hooks),
      tool_response: toolResponse(result, hooks.workspace),
      tool_use_id: call.id,
    },
    { signal, target: call.tool },
  )
  showCards(hooks.dispatch, hooks.newId(`hook-post-${call.id}`), verdict.cards)
  const parts: string[] = []
  if (verdict.block) parts.push(`PostToolUse hook feedback:\n${verdict.block}`)
  if (verdict.context.length)
    parts.push(`Additional context from a PostToolUse hook:\n${verdict.context.join('\n\n')}`)
  return { feedback: parts.join('\n\n'), stop: verdict.stop }
}

/**
 * `tool_input` as hooks get it: the arguments, with `file_path` and `notebook_path` absolute, as Claude
 * Code's always are. The model chooses them: a relative `--plugin=./x.cjs` would reach a hook's
 * `prettier --write "$(jq -r .tool_input.file_path)"` as an option that loads the model's code, outside
 * any sandbox; an absolute path never starts with `-`.
 */
export function hookToolInput(input: unknown, hooks: Pick<ToolHooks, 'workspace' | 'cwd'>): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input
  const fields = input as Record<string, unknown>
  let out: Record<string, unknown> | undefined
  for (const key of ['file_path', 'notebook_path']) {
    const value = fields[key]
    if (typeof value !== 'string' || value === '' || isAbsolute(value)) continue
    out ??= { ...fields }
    out[key] = resolveToolPath(value, hooks.cwd?.() ?? hooks.workspace)
  }
  return out ?? input
}

/**
 * `tool_response`: the result text the model reads (`output`) and whether it succeeded, plus the fields
 * hooks written for Claude Code look for — `filePath` after a file change, `stdout` and the exit code
 * after a command.
 */
export function toolResponse(result: ToolSuccess, workspace: string): Record<string, unknown> {
  const out: Record<string, unknown> = { output: result.forModel, success: !result.failed }
  const display: ToolDisplay | undefined = result.display
  if (display?.kind === 'diff') {
    out.filePath = isAbsolute(display.path) ? display.path : resolve(workspace, display.path)
    Object.assign(out, { added: display.added, removed: display.removed, created: display.created })
  } else if (display?.kind === 'command') {
    Object.assign(out, {
      stdout: display.output,
      stderr: '',
      exitCode: display.exitCode,
      interrupted: false,
      ...(display.timedOut ? { timedOut: true } : {}),
      ...(display.taskId ? { backgroundTaskId: display.taskId } : {}),
    })
  } else if (display?.kind === 'diffs') {
    const at = (path: string) => (isAbsolute(path) ? path : resolve(workspace, path))
    out.filePaths = display.files.map((file) => at(file.path))
  } else if (display?.kind === 'file')
    out.filePath = isAbsolute(display.path) ? display.path : resolve(workspace, display.path)
  return out
}

/** Adds the cards to the transcript (ids from `prefix`, unique per call and event). */
export function showCards(dispatch: Dispatch, prefix: string, cards: readonly HookCard[]): void {
  cards.forEach((card, i) => {
    dispatch({
      type: 'hook/ran',
      id: `${prefix}-${i}`,
      event: card.event,
      level: card.level,
      text: card.text,
      detail: card.detail,
    })
  })
}
