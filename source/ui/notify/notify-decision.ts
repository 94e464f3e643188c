/**
 * When agent-tui asks for attention, and how: the events (a permission prompt appeared, a turn ended)
 * read from two states, and the decision table over focus × event × settings × terminal. Pure.
 */
import type { State } from '../../store/state.js'
import { type NotifyTerminal, notificationProgramArgs, notificationSequence } from './notify-terminal.js'

/** Settings `notifications` (docs/configuration.md). */
export interface NotificationSettings {
  /** A permission prompt waits. Default: on. */
  onConsent?: boolean
  /** A turn ended. Default: off. */
  onTurnEnd?: boolean
  /** `auto`: the bell and the terminal's notification (or the desktop's program); `bell`: only the bell; `off`. */
  method?: 'auto' | 'bell' | 'desktop' | 'off'
}

export type NotifyEvent = { kind: 'consent'; tool: string; summary: string } | { kind: 'turn-end' }

/** The events between two states: each new permission prompt, and a turn ending (busy → idle). */
export function notificationEvents(prev: State, next: State): NotifyEvent[] {
  const events: NotifyEvent[] = []
  if (next.consent !== prev.consent) {
    const before = new Set(prev.consent.queue)
    for (const id of next.consent.queue) {
      const request = next.consent.byId[id]
      if (!before.has(id) && request)
        events.push({ kind: 'consent', tool: request.tool, summary: request.summary })
    }
  }
  if (prev.run.phase !== 'idle' && next.run.phase === 'idle') events.push({ kind: 'turn-end' })
  return events
}

export interface Delivery {
  /** The terminal bell (BEL). */
  bell: boolean
  /** The terminal's notification escape, ready to write. */
  sequence?: string
  /** Or the desktop's notification program. */
  program?: { name: 'notify-send' | 'osascript'; args: string[] }
}

/**
 * Whether and how to notify. `focused` is what the terminal last reported (focus reporting); undefined when
 * it never said — then agent-tui cannot know whether you are looking and notifies.
 */
export function decideNotification(
  event: NotifyEvent,
  focused: boolean | undefined,
  settings: NotificationSettings | undefined,
  terminal: NotifyTerminal,
): Delivery | undefined {
  if (focused === true) return undefined
  const wanted = event.kind === 'consent' ? settings?.onConsent !== false : settings?.onTurnEnd === true
  const method = settings?.method ?? 'auto'
  if (!wanted || method === 'off') return undefined
  const bell = method !== 'desktop'
  if (method === 'bell') return { bell }
  const title = 'agent-tui'
  const body = event.kind === 'consent' ? `Permission needed: ${consentText(event)}` : 'Turn finished'
  if (terminal.protocol)
    return { bell, sequence: notificationSequence(terminal.protocol, title, body, terminal) }
  if (terminal.program) {
    return {
      bell,
      program: { name: terminal.program, args: notificationProgramArgs(terminal.program, title, body) },
    }
  }
  return { bell: true }
}

/** The call as the prompt's title names it (a summary usually starts with the tool's name already). */
function consentText({ tool, summary }: { tool: string; summary: string }): string {
  return summary.startsWith(tool) ? summary : `${tool} ${summary}`.trim()
}
