import { createContext, useContext } from 'react'
import type { SessionSummary } from '../agent/runtime/commands.js'
import type { Confirm, FlashLevel } from './commands/command-context.js'
import type { Prices } from './panes/status/format.js'
import type { KeyEvent } from './keys/dispatcher.js'

export interface Flash {
  text: string
  level: FlashLevel
  /** Hints like "press again to exit": cleared by the next key or after the double-press window. */
  transient?: boolean
}

export type { Confirm }

export type Overlay =
  | { kind: 'help' }
  | { kind: 'info'; title: string; lines: string[] }
  | ({ kind: 'confirm' } & Confirm)
  | { kind: 'sessions'; sessions: SessionSummary[] }
  | { kind: 'mcp' }
  | { kind: 'models'; models: string[]; current: string }

/**
 * What panes may ask of the app shell: one-line messages above the input, overlays, exit. Created by
 * the App (no module state); panes read it with `useShell`.
 */
export interface ShellApi {
  contextLimit: number
  prices?: Prices
  flash(text: string, level?: FlashLevel): void
  /** A transient hint (see Flash.transient). */
  hint(text: string): void
  clearFlash(): void
  showHelp(): void
  showInfo(title: string, lines: string[]): void
  showConfirm(confirm: Confirm): void
  /** Opens the `/mcp` panel (MCP servers with their live status). */
  showMcp(): void
  /** Opens the session picker; picking one resumes it in place of this session. */
  showSessions(sessions: SessionSummary[]): void
  /** Opens the model picker (`/model`); picking one switches the session's model. */
  showModels(models: string[], current: string): void
  /** Shuts the runtime down, restores the terminal and resolves runTui with `code`. */
  requestExit(code: number): void
  /** Leaves this session like an exit, and has runTui resolve with `resume` so that session opens next. */
  requestResume(id: string): void
  /** Leaves this session like an exit, and has runTui resolve with `setup`: the setup form opens next. */
  requestSetup(): void
  /** `/doctor`'s checks as lines; absent where there is no session to check (tests). */
  doctor?: () => Promise<string[]>
  /**
   * Keys typed for the prompt while something else had the focus (a pane gives back printable keys that
   * are not its own): the prompt takes them, in order, as soon as it is active again. Nothing typed is lost.
   */
  typeAhead: TypeAhead
}

export interface TypeAhead {
  push(event: KeyEvent): void
  take(): KeyEvent[]
}

/** A fresh type-ahead buffer (one per App). */
export function createTypeAhead(): TypeAhead {
  let pending: KeyEvent[] = []
  return {
    push: (event) => {
      pending.push(event)
    },
    take: () => {
      const out = pending
      pending = []
      return out
    },
  }
}

export const ShellContext = createContext<ShellApi | null>(null)

export function useShell(): ShellApi {
  const shell = useContext(ShellContext)
  if (!shell) throw new Error('ShellContext is missing: render panes inside <App>')
  return shell
}
