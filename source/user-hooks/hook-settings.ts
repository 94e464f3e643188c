import { z } from 'zod'
import { matcherProblem } from './matcher.js'
import {
  type ConfiguredHook,
  DEFAULT_TIMEOUT_SECONDS,
  type HookOrigin,
  type HooksView,
  HOOK_EVENTS,
  isHookEvent,
} from './types.js'

/**
 * The `hooks` settings key in Claude Code's format, and turning the settings files into the list of
 * hooks. Loaded with the settings at start, so it holds no more than zod and a few functions.
 *
 *   "hooks": { "PreToolUse": [ { "matcher": "Bash|Edit", "hooks": [ { "type": "command", "command": "…",
 *              "timeout": 60 } ] } ] }
 */

/**
 * One handler. Only `command` hooks run here; Claude Code's other types and extra fields are accepted
 * and reported (a settings file shared with Claude Code must not stop agent-tui from starting).
 */
const handlerSchema = z
  .object({
    type: z.string({ error: 'expected a hook type, e.g. "command"' }),
    command: z.string({ error: 'expected the shell command to run' }).optional(),
    timeout: z.number().positive('expected a number of seconds above 0').optional(),
  })
  .catchall(z.unknown())
  .superRefine((value, ctx) => {
    if (value.type === 'command' && !value.command?.trim()) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'expected the shell command to run' })
    }
  })

const groupSchema = z.strictObject({
  matcher: z.string().optional(),
  hooks: z.array(handlerSchema, { error: 'expected a list of hooks: [{"type": "command", "command": "…"}]' }),
})

export const hooksSettingsSchema = z.record(
  z.string(),
  z.array(groupSchema, { error: 'expected a list of {"matcher", "hooks"} groups' }),
)

export type HooksSettings = z.infer<typeof hooksSettingsSchema>

/** What hook loading needs of one settings file. */
export interface HookSource {
  scope: HookOrigin['scope']
  label: string
  exists?: boolean
  settings: { hooks?: HooksSettings; disableAllHooks?: boolean }
  /** Set for each of its hooks' processes (a plugin's `CLAUDE_PLUGIN_ROOT`). */
  env?: Readonly<Record<string, string>>
}

export interface CollectedHooks {
  /** Every command hook of the files, lowest precedence first (user, project, local). */
  hooks: ConfiguredHook[]
  /** The file whose `"disableAllHooks": true` turns them all off (the highest file that sets it decides). */
  disabledBy: string | null
  warnings: string[]
}

const KNOWN_FIELDS = new Set(['type', 'command', 'timeout'])

/** The hooks of the settings files, in file order, with what cannot run named in `warnings`. */
export function collectHooks(sources: readonly HookSource[]): CollectedHooks {
  const hooks: ConfiguredHook[] = []
  const warnings: string[] = []
  let disabledBy: string | null = null
  for (const source of sources) {
    const { settings, label: file, scope } = source
    if (settings.disableAllHooks !== undefined) disabledBy = settings.disableAllHooks ? file : null
    for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
      if (!isHookEvent(event)) {
        const near = closestEvent(event)
        warnings.push(
          `${file}: hooks.${event} is not an event agent-tui fires${near ? ` (did you mean ${near}?)` : ''}; ` +
            `its hooks are ignored (events: ${HOOK_EVENTS.join(', ')})`,
        )
        continue
      }
      groups.forEach((group, g) => {
        const matcher = group.matcher ?? ''
        const problem = matcherProblem(matcher)
        if (problem) {
          warnings.push(`${file}: hooks.${event}[${g}].matcher ${JSON.stringify(matcher)}: ${problem}`)
          return
        }
        group.hooks.forEach((handler, h) => {
          const at = `${file}: hooks.${event}[${g}].hooks[${h}]`
          if (handler.type !== 'command' || handler.command === undefined) {
            warnings.push(
              `${at}: "type": ${JSON.stringify(handler.type)} hooks are not supported; only "command"`,
            )
            return
          }
          const extra = Object.keys(handler).filter((k) => !KNOWN_FIELDS.has(k))
          if (extra.length > 0)
            warnings.push(`${at}: ${extra.map((k) => `"${k}"`).join(', ')} not supported here; ignored`)
          hooks.push({
            event,
            matcher,
            command: handler.command,
            timeoutSeconds: handler.timeout ?? DEFAULT_TIMEOUT_SECONDS,
            scope,
            file,
            ...(source.env ? { env: source.env } : {}),
          })
        })
      })
    }
  }
  return { hooks, disabledBy, warnings }
}

/**
 * `/hooks`' view: `all` is every configured hook (the folder trusted), `active` those that apply now.
 * A hook in `all` but not in `active` comes from the repository and waits for trust.
 */
export function hooksView(all: CollectedHooks, active: CollectedHooks, untrustedWhy: string): HooksView {
  const key = (h: ConfiguredHook) => `${h.file}\0${h.event}\0${h.matcher}\0${h.command}`
  const running = new Set(active.hooks.map(key))
  const inactive: HooksView['inactive'] = all.hooks
    .filter((h) => !running.has(key(h)))
    .map((h) => ({ ...h, why: untrustedWhy }))
  if (active.disabledBy) {
    const why = `"disableAllHooks": true in ${active.disabledBy}`
    return {
      active: [],
      inactive: [...active.hooks.map((h) => ({ ...h, why })), ...inactive],
      warnings: active.warnings,
    }
  }
  return { active: active.hooks, inactive, warnings: active.warnings }
}

/** `PreToolUse(Bash): ./guard.sh` — one hook in a sentence or a list (the trust prompt, notices). */
export function describeHook(h: Pick<ConfiguredHook, 'event' | 'matcher' | 'command'>): string {
  const matcher = h.matcher && h.matcher !== '*' ? `(${h.matcher})` : ''
  return `${h.event}${matcher}: ${h.command}`
}

/** The hooks of a raw `hooks` settings value, described one per command (for untrusted-folder notices). */
export function describeHookEntries(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return []
  const out: string[] = []
  for (const [event, groups] of Object.entries(value)) {
    if (!Array.isArray(groups)) continue
    for (const group of groups) {
      const matcher = isRecord(group) && typeof group.matcher === 'string' ? group.matcher : ''
      const handlers = isRecord(group) && Array.isArray(group.hooks) ? group.hooks : []
      for (const handler of handlers) {
        if (isRecord(handler) && typeof handler.command === 'string')
          out.push(
            describeHook({ event: event as ConfiguredHook['event'], matcher, command: handler.command }),
          )
      }
    }
  }
  return out
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** An event name one or two edits (or a case change) away from `name`. */
function closestEvent(name: string): string | undefined {
  const lower = name.toLowerCase()
  return HOOK_EVENTS.find((e) => e.toLowerCase() === lower || distance(e.toLowerCase(), lower) <= 2)
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length] as number
}
