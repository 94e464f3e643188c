import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export type EditorResult = { ok: true; text: string } | { ok: false; error: string }

/** $VISUAL, then $EDITOR, else vi — the order git and most shells use. */
export function editorCommand(env: NodeJS.ProcessEnv): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi'
}

/**
 * Opens `text` in the user's editor on a temp file and returns the edited text. Blocks until the
 * editor exits: the caller must have handed the terminal over first (Ink's suspendTerminal).
 * The command runs through the shell because EDITOR often carries arguments ("code --wait").
 */
export function editInExternalEditor(text: string, env: NodeJS.ProcessEnv = process.env): EditorResult {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tui-prompt-'))
  const file = join(dir, 'prompt.md')
  const editor = editorCommand(env)
  try {
    writeFileSync(file, text)
    const quoted = `'${file.replace(/'/g, `'\\''`)}'`
    const result = spawnSync(`${editor} ${quoted}`, { stdio: 'inherit', shell: true, env })
    if (result.error) return { ok: false, error: `could not start ${editor}: ${result.error.message}` }
    if (result.status !== 0)
      return { ok: false, error: `${editor} exited with status ${result.status ?? result.signal}` }
    // Editors add a final newline; a prompt should not end with one.
    return { ok: true, text: readFileSync(file, 'utf8').replace(/\r?\n$/, '') }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
