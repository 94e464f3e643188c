/**
 * Watches the store for what asks for attention and delivers it (`notify-decision.ts`). The bytes go to
 * the real stdout beside the painter's frames, never in one: the painter's guard strips OSC and BEL from
 * painted text (so a model's reply cannot ring or notify), and agent-tui's own sequences go around it
 * deliberately. The desktop program is found outside the workspace and started detached, not waited on.
 */
import { spawn } from 'node:child_process'
import type { Store } from '../../store/create-store.js'
import { decideNotification, type NotificationSettings, notificationEvents } from './notify-decision.js'
import type { NotifyTerminal } from './notify-terminal.js'

export interface NotifierOptions {
  store: Pick<Store, 'getState' | 'subscribe'>
  settings: NotificationSettings | undefined
  terminal: NotifyTerminal
  /** Writes to the real terminal, between frames. */
  write(text: string): void
  /** A program's absolute path outside the workspace (`HostPrograms.find`). */
  find(name: string): string | undefined
  env: Readonly<Record<string, string | undefined>>
}

export interface Notifier {
  /** The terminal's focus report (CSI I / CSI O). */
  setFocused(focused: boolean): void
  dispose(): void
}

export function startNotifier(opts: NotifierOptions): Notifier {
  let focused: boolean | undefined
  let prev = opts.store.getState()
  const unsubscribe = opts.store.subscribe(() => {
    const next = opts.store.getState()
    const events = notificationEvents(prev, next)
    prev = next
    for (const event of events) {
      const delivery = decideNotification(event, focused, opts.settings, opts.terminal)
      if (!delivery) continue
      const bytes = `${delivery.sequence ?? ''}${delivery.bell ? '\x07' : ''}`
      if (bytes) opts.write(bytes)
      if (delivery.program) runDetached(opts.find(delivery.program.name), delivery.program.args, opts.env)
    }
  })
  return {
    setFocused(value) {
      focused = value
    },
    dispose: unsubscribe,
  }
}

/** Fire and forget: a notification program that fails or is missing loses only the notification. */
function runDetached(path: string | undefined, args: string[], env: NotifierOptions['env']) {
  if (!path) return
  const child = spawn(path, args, { stdio: 'ignore', detached: true, env: { ...env } })
  child.on('error', () => {})
  child.unref()
}
