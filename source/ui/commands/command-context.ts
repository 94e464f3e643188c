/**
 * What a slash command may do: call the runtime commands, read the store, open the app's overlays and
 * show a message above the prompt. Implemented by the prompt's binding; faked in the command table's tests.
 * Kept apart from the table and the commands so both can depend on it without depending on each other.
 */
import type { ImageAttachment, RuntimeCommands, SessionSummary } from '../../agent/runtime/commands.js'
import type { ThemeSetting } from '../../store/domain.js'
import type { EditorMode, State } from '../../store/state.js'
import type { CopyOutcome } from '../clipboard/clipboard.js'
import type { Prices } from '../panes/status/format.js'

export type FlashLevel = 'info' | 'warn' | 'error'

/** A question shown in the transcript's place: Enter confirms, Esc cancels. */
export interface Confirm {
  title: string
  lines: string[]
  /** The verb Enter performs, for the key hint ("compact"). */
  action: string
  onConfirm(): void
  onCancel(): void
}

export interface CommandContext {
  /** Everything a command does to the conversation, the mode or the session goes through these. */
  commands: RuntimeCommands
  getState(): State
  /** The model's context window in tokens. */
  contextLimit: number
  prices?: Prices
  /** A one-line message above the prompt (the command's answer, or why it did nothing). */
  flash(text: string, level?: FlashLevel): void
  showHelp(): void
  /** An overlay in the transcript's place (any key closes it). */
  showInfo(title: string, lines: string[]): void
  /** A question in the transcript's place: Enter runs `onConfirm`, Esc `onCancel` (`/compact`). */
  showConfirm(confirm: Confirm): void
  /** Opens the `/mcp` panel (MCP servers with their live status). */
  showMcp(): void
  /** Opens the session picker. */
  showSessions(sessions: SessionSummary[]): void
  /** Opens the model picker; the model picked there is switched to. */
  showModels(models: string[], current: string): void
  /** Leaves this session for another one. */
  resumeSession(id: string): void
  /** Leaves this session for the setup form (`/login`); the session continues with what it sets up. */
  openSetup(): void
  /** The checks of `agent-tui doctor` for this session, as lines; undefined when not available. */
  doctor?: () => Promise<string[]>
  toggleTodos(): void
  /** `/vim`: the prompt's editing mode, at once (saving it is `commands.saveEditorMode`). */
  setEditorMode(mode: EditorMode): void
  focusTasks(): void
  /** Opens the /rewind dialog. */
  openRewind(): void
  /** Adds an `[Image #N]` chip for an already loaded image to the prompt. */
  attachImage(image: ImageAttachment): void
  /** Puts text on the clipboard (`/copy`); absent where there is no terminal (tests, headless). */
  copyText?: (text: string) => Promise<CopyOutcome>
  /** Switches the palette for this session (`/theme`). */
  setTheme?: (theme: ThemeSetting) => void
  /** Keeps a theme in the user's settings; resolves with the file written (absent: cannot save here). */
  saveTheme?: (theme: ThemeSetting) => Promise<string>
  exit(code: number): void
}
