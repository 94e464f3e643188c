import { EventEmitter } from 'node:events'
import { render as inkRender } from 'ink'
import { render } from 'ink-testing-library'
import type { ReactElement } from 'react'
import stripAnsi from 'strip-ansi'
import type { RuntimeCommands } from '../../../source/agent/runtime/commands.js'
import type { Store } from '../../../source/store/create-store.js'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import { type CommandTable, createCommandTable } from '../../../source/ui/commands/command-table.js'
import { CommandTableContext } from '../../../source/ui/commands/use-command-table.js'
import { CommandsContext, StoreContext } from '../../../source/ui/hooks/use-store.js'
import { type Bindings, DEFAULT_BINDINGS } from '../../../source/ui/keys/bindings.js'
import { KeyDispatcher } from '../../../source/ui/keys/dispatcher.js'
import { createTerminalInput } from '../../../source/ui/keys/terminal-input.js'
import {
  createTypeAhead,
  type Flash,
  type Overlay,
  type ShellApi,
  ShellContext,
} from '../../../source/ui/shell-context.js'

export {
  type Call,
  EMPTY_PREVIEW,
  EMPTY_REPORT,
  type FakeCommands,
  fakeCommands,
  makeState,
  makeStore,
} from './fake-commands.js'

export const KEYS = {
  esc: '\x1b',
  enter: '\r',
  tab: '\t',
  shiftTab: '\x1b[Z',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  pageUp: '\x1b[5~',
  pageDown: '\x1b[6~',
  home: '\x1b[H',
  end: '\x1b[F',
  backspace: '\x7f',
  delete: '\x1b[3~',
  ctrl: (letter: string) => String.fromCharCode(letter.toLowerCase().charCodeAt(0) - 96),
  paste: (text: string) => `\x1b[200~${text}\x1b[201~`,
} as const

export interface FakeShell extends ShellApi {
  flashes: Flash[]
  overlays: Overlay[]
  exits: number[]
}

export function fakeShell(): FakeShell {
  const flashes: Flash[] = []
  const overlays: Overlay[] = []
  const exits: number[] = []
  return {
    flashes,
    overlays,
    exits,
    contextLimit: 100_000,
    flash: (text, level = 'info') => flashes.push({ text, level }),
    hint: (text) => flashes.push({ text, level: 'info', transient: true }),
    clearFlash: () => {},
    showHelp: () => overlays.push({ kind: 'help' }),
    showInfo: (title, lines) => overlays.push({ kind: 'info', title, lines }),
    showConfirm: (confirm) => overlays.push({ kind: 'confirm', ...confirm }),
    showMcp: () => overlays.push({ kind: 'mcp' }),
    showSessions: (sessions) => overlays.push({ kind: 'sessions', sessions }),
    showModels: (models, current) => overlays.push({ kind: 'models', models, current }),
    requestExit: (code) => exits.push(code),
    requestResume: () => exits.push(0),
    requestSetup: () => exits.push(0),
    typeAhead: createTypeAhead(),
  }
}

/** Renders a pane with the store, commands, slash commands, key dispatcher and a recording shell around it. */
export function renderPane(
  node: ReactElement,
  opts: {
    store: Store
    commands: RuntimeCommands
    shell?: ShellApi
    bindings?: Bindings
    commandTable?: CommandTable
  },
) {
  const shell = opts.shell ?? fakeShell()
  const table = opts.commandTable ?? createCommandTable(BUILTIN_COMMANDS)
  const result = render(
    <StoreContext.Provider value={opts.store}>
      <CommandsContext.Provider value={opts.commands}>
        <CommandTableContext.Provider value={table}>
          <KeyDispatcher bindings={opts.bindings ?? DEFAULT_BINDINGS} doublePressMs={60_000}>
            <ShellContext.Provider value={shell}>{node}</ShellContext.Provider>
          </KeyDispatcher>
        </CommandTableContext.Provider>
      </CommandsContext.Provider>
    </StoreContext.Provider>,
  )
  return { ...result, frame: () => stripAnsi(result.lastFrame() ?? '') }
}

/** Polls a condition (no fixed sleeps): resolves as soon as it holds, fails with the last frame after 5 s. */
export async function waitFor(condition: () => boolean, describe: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + 5000
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`waitFor timed out${describe() ? `; last frame:\n${describe()}` : ''}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** A fake terminal for ink's own `render`: a sized, TTY-less stdout that keeps the last frame. */
export class FakeStdout extends EventEmitter {
  frames: string[] = []
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super()
  }
  write = (frame: string, ...rest: unknown[]) => {
    this.frames.push(frame)
    // Ink waits for write callbacks before it reports the app as exited.
    const callback = rest.find((r): r is () => void => typeof r === 'function')
    callback?.()
    return true
  }
  lastFrame = () => this.frames.at(-1) ?? ''
}

export class FakeStdin extends EventEmitter {
  isTTY = true
  private data: string | null = null
  write = (data: string) => {
    this.data = data
    this.emit('readable')
  }
  read = () => {
    const d = this.data
    this.data = null
    return d
  }
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

/**
 * Renders with ink itself at a given terminal size (ink-testing-library is always 100 columns). With
 * `terminalInput`, Ink reads through the stand-in a real terminal gets (`createTerminalInput`: one key per
 * read), so a write of several keys arrives as a terminal would deliver them.
 */
export function renderSized(
  node: ReactElement,
  columns: number,
  rows: number,
  opts: { terminalInput?: boolean } = {},
) {
  const stdout = new FakeStdout(columns, rows)
  const stdin = new FakeStdin()
  const inkStdin = opts.terminalInput
    ? createTerminalInput({
        stdin: stdin as unknown as NodeJS.ReadStream,
        stdout: stdout as unknown as NodeJS.WriteStream,
        mouse: false,
        onMouse: () => {},
      }).stdin
    : (stdin as unknown as NodeJS.ReadStream)
  const instance = inkRender(node, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: inkStdin,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  })
  return { instance, stdout, stdin, frame: () => stripAnsi(stdout.lastFrame()) }
}
