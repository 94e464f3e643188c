import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { safePath } from '../../../util/host-programs.js'

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
    // The editor is found on PATH, never in a folder of the workspace (where the model writes).
    const path = safePath(env.PATH, [realOrSelf(process.cwd())])
    const result = spawnSync(`${editor} ${quoted}`, {
      stdio: 'inherit',
      shell: true,
      env: { ...env, PATH: path },
    })
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

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
