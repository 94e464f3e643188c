/**
 * The loosest permission mode a caller may ask for, given a ceiling (`agent-tui mcp serve --max-mode`).
 * Modes are not one line: PLAN denies edits and commands but lets web requests through unasked, which
 * SAFE and AUTO (asking, so denied without a user) do not. So each ceiling lists what it admits: a mode is
 * admitted when everything it lets run unasked headless, the ceiling lets run too.
 */
import { MODES, type Mode } from '../store/domain.js'

const ADMITS: Readonly<Record<Mode, readonly Mode[]>> = {
  ci: ['ci'],
  plan: ['ci', 'plan'],
  safe: ['ci', 'safe'],
  auto: ['ci', 'safe', 'auto'],
  dangerous: MODES,
}

/** The modes a caller may ask for under `ceiling`, strictest first. */
export function modesUnder(ceiling: Mode): readonly Mode[] {
  return ADMITS[ceiling]
}

/** Null when `requested` is admitted under `ceiling`; otherwise why not, in words for the caller. */
export function modeCeilingRefusal(requested: Mode, ceiling: Mode): string | null {
  if (ADMITS[ceiling].includes(requested)) return null
  return `mode "${requested}" is looser than this server allows (--max-mode ${ceiling}: ${ADMITS[ceiling].join(', ')}); start the server with --max-mode ${requested} to allow it`
}
