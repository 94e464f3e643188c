/**
 * OSC 52 ("set the clipboard") as agent-tui writes it for `/copy`. These bytes go to the terminal beside
 * the frames, never inside one: the screen painter's guard strips OSC from painted text on purpose (a
 * model's answer must never set the clipboard), so agent-tui's own sequence is written to the real stdout
 * between two frames (see `clipboard.ts`).
 */

/** Terminals reject or truncate bigger ones (xterm, hterm and tmux cap the sequence around 100 kB). */
export const OSC52_MAX_BASE64 = 100_000

export interface Osc52Terminal {
  /** Inside tmux (`TMUX` set): the sequence is also wrapped in tmux's passthrough. */
  tmux: boolean
}

/**
 * The bytes that set the system clipboard to `text`: `ESC ] 52 ; c ; base64 BEL`. Inside tmux, twice:
 * plain (tmux takes it into its buffer and forwards it with `set-clipboard on`) and wrapped in a
 * passthrough DCS (`ESC P tmux; … ESC \`, every ESC inside doubled), which reaches the outer terminal
 * with `allow-passthrough on`. Setting the clipboard twice to the same text is harmless.
 * Undefined when the text is too big for terminals to take.
 */
export function osc52Sequence(text: string, terminal: Osc52Terminal): string | undefined {
  const base64 = Buffer.from(text, 'utf8').toString('base64')
  if (base64.length > OSC52_MAX_BASE64) return undefined
  const plain = `\x1b]52;c;${base64}\x07`
  if (!terminal.tmux) return plain
  return `${plain}\x1bPtmux;${plain.replaceAll('\x1b', '\x1b\x1b')}\x1b\\`
}
