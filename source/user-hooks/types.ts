/**
 * Hooks (docs/hooks.md): commands the user configures to run at points of a session, in Claude Code's settings
 * format and JSON protocol. Plain types shared by the loader, the runner and the runtime.
 */

/** The events agent-tui fires, with Claude Code's names. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionStart',
  'SessionEnd',
  'Notification',
] as const

export type HookEvent = (typeof HOOK_EVENTS)[number]

export function isHookEvent(name: string): name is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(name)
}

/** Claude Code's default for a command hook, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 60

/** Where a hook was configured: the settings file's scope and its label for messages. */
export interface HookOrigin {
  scope: 'user' | 'project' | 'local'
  /** `~/.config/agent-tui/settings.json`, `.agent-tui/settings.json`… */
  file: string
}

/** One command hook as configured (one entry of a matcher group's `hooks` list). */
export interface ConfiguredHook extends HookOrigin {
  event: HookEvent
  /** As written; '' (or absent) and `*` match everything. */
  matcher: string
  command: string
  timeoutSeconds: number
  /** Set for this hook's process only: a plugin's hooks get `CLAUDE_PLUGIN_ROOT` (docs/plugins.md). */
  env?: Readonly<Record<string, string>>
}

/** A hook card in the transcript: one line, and what Ctrl+O shows under it. */
export interface HookCard {
  event: HookEvent
  level: 'info' | 'warn' | 'error'
  text: string
  detail: string
}

/** `/hooks`: what is in force and from where, and what is configured but not in force. */
export interface HooksView {
  active: ConfiguredHook[]
  /** Configured in a file whose hooks do not run now, with why (untrusted folder, disableAllHooks). */
  inactive: Array<ConfiguredHook & { why: string }>
  /** Problems found while reading the configuration (unknown events, unsupported hook types…). */
  warnings: string[]
}

/** The part of the app's process-group owner a hook run needs (see source/tasks/). */
export interface HookProcessOwner {
  /** Records a running group until the returned function is called. */
  track(group: {
    pid: number
    command: string
    cwd?: string
    startedAt?: number
    kind: 'foreground'
    /** The leader's start time, read at spawn (so a reused pid is never signalled). */
    leaderStart?: string
  }): () => void
}
