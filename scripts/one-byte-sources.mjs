// V8 keeps a module's source text on its heap for as long as the module lives: one byte per character
// when every character is Latin-1, two bytes for all of it otherwise. esbuild escapes what is beyond ASCII
// in strings, but keeps regular expression literals as written, so a single `…` in a pattern held a 300 KB
// chunk at 600 KB for the whole session. The build fails on such a character (escape it: `\u2026`).
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The `.js` files under `dir` holding a character beyond Latin-1, each with the text around the first. */
export async function beyondLatin1(dir) {
  const found = []
  for (const entry of (await readdir(dir, { recursive: true })).sort()) {
    if (!entry.endsWith('.js')) continue
    const text = await readFile(join(dir, entry), 'utf8')
    const at = text.search(/[^\u0000-\u00ff]/u)
    if (at !== -1) found.push(`${entry}: ${JSON.stringify(text.slice(Math.max(0, at - 30), at + 10))}`)
  }
  return found
}
