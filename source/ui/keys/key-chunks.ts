/**
 * Splits terminal input into one piece per key before Ink parses it.
 *
 * Ink reads a chunk of input as one key, or as text when it is no single key: it only splits at escape
 * sequences, Backspace and Ctrl+C. When several keys arrive in one read — a busy machine, `tmux send-keys
 * "Green" Enter`, `C-u C-u`, a fast typist — "Green\r" reaches the app as text with a carriage return in
 * it (the Enter is lost), and "\x15\x15" as an unknown key. Here every control character (Enter, Tab,
 * Ctrl+letter) becomes a piece of its own, so each text field sees each key.
 *
 * Left whole: bracketed pastes (between `ESC[200~` and `ESC[201~`, even across reads), escape sequences,
 * and a read in which a line break is followed by more text — a paste from a terminal without bracketed
 * paste, which must not submit line by line.
 */

const PASTE_START = '\x1b[200~'
const PASTE_END = '\x1b[201~'
const ESC = '\x1b'

export interface KeySplitter {
  /** The pieces of one read, in order; joined they are exactly `chunk`. */
  push(chunk: string): string[]
}

/** A control character that is a key of its own: C0 controls but ESC (which starts sequences), and DEL. */
function isControl(char: string): boolean {
  const code = char.charCodeAt(0)
  return (code < 0x20 && code !== 0x1b) || code === 0x7f
}

/** Multi-line text in one read: a line break with printable text after it. */
function looksLikePaste(text: string): boolean {
  return /[\r\n][^\x00-\x1f\x7f]/.test(text)
}

export function createKeySplitter(): KeySplitter {
  let inPaste = false
  // How much of the marker we look for (start outside a paste, end inside) the input has matched so far.
  let matched = 0

  /** Feeds one character to the marker matcher; true when it completed a marker. */
  const track = (char: string): boolean => {
    const marker = inPaste ? PASTE_END : PASTE_START
    if (char === marker[matched]) matched++
    else matched = char === ESC ? 1 : 0
    if (matched < marker.length) return false
    inPaste = !inPaste
    matched = 0
    return true
  }

  /** Plain input (no paste) into pieces: whole when it looks like a paste, else cut at its controls. */
  const plainPieces = (text: string, out: string[]) => {
    if (!text) return
    if (looksLikePaste(text)) out.push(text)
    else out.push(...splitPlain(text))
  }

  return {
    push(chunk) {
      const out: string[] = []
      let plain = ''
      let paste = ''
      for (const char of chunk) {
        if (inPaste) {
          // Inside a paste everything goes to Ink unchanged, end marker included.
          paste += char
          if (track(char)) {
            out.push(paste)
            paste = ''
          }
          continue
        }
        plain += char
        if (!track(char)) continue
        // The start marker (possibly begun in the previous read) opens a paste piece.
        const cut = Math.max(0, plain.length - PASTE_START.length)
        plainPieces(plain.slice(0, cut), out)
        paste = plain.slice(cut)
        plain = ''
      }
      plainPieces(plain, out)
      // A paste not finished in this read: Ink holds it until its end marker arrives.
      if (paste) out.push(paste)
      return out
    },
  }
}

/**
 * Cuts plain input at its control characters: each becomes a key of its own, text between them stays
 * together. A control character right after ESC belongs to it (Alt+Backspace, Alt+Enter).
 */
function splitPlain(text: string): string[] {
  const out: string[] = []
  let run = ''
  let previous = ''
  for (const char of text) {
    if (isControl(char) && previous !== ESC) {
      if (run) out.push(run)
      run = ''
      out.push(char)
    } else run += char
    // Two ESCs in a row are Alt+Esc (or Esc Esc); either way a control after them stands alone.
    previous = char === ESC && previous === ESC ? '' : char
  }
  if (run) out.push(run)
  return out
}
