import { spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { type HostPrograms, isUnsafe } from '../util/host-programs.js'
import { ToolError } from './types.js'

export interface RipgrepRun {
  /** 0 found, 1 nothing found, 2 error (possibly with partial results); null when stopped early. */
  exitCode: number | null
  /** The first 4 KB of stderr. */
  stderr: string
  /** The caller stopped reading before rg finished. */
  stopped: boolean
}

export interface RipgrepOptions {
  cwd: string
  signal: AbortSignal
  /** Record separator of stdout: '\n' for --json and plain output, '\0' with --null. */
  separator?: '\n' | '\0'
  /** Called per record; return false to stop early (rg is killed). */
  onRecord(record: string): boolean | undefined
  /** Where the session finds the programs it runs itself: the bundled rg must not lie in the workspace. */
  programs?: HostPrograms
}

/** Flags every search uses: no user config, hidden files included, .gitignore honoured even outside git, never `.git/`. */
export const BASE_RG_ARGS = ['--no-config', '--hidden', '--no-require-git', '--glob', '!.git'] as const

/**
 * Runs the bundled ripgrep and streams its stdout records to `onRecord`. Resolves when rg exits
 * or was stopped; rejects with ToolError('aborted') when `signal` fires (rg is killed first).
 * The binary is imported lazily: its package throws at import time when the platform build is missing.
 */
export async function runRipgrep(args: readonly string[], opts: RipgrepOptions): Promise<RipgrepRun> {
  if (opts.signal.aborted) throw new ToolError('aborted', 'The search was cancelled.')
  const { rgPath: bundled } = await import('@vscode/ripgrep').catch((error: unknown) => {
    throw new ToolError(
      'execution',
      `ripgrep is not available: ${error instanceof Error ? error.message : String(error)}`,
    )
  })
  const rgPath = opts.programs ? safeRipgrep(bundled, opts.programs) : bundled
  const separator = opts.separator ?? '\n'
  return new Promise<RipgrepRun>((resolve, reject) => {
    const child = spawn(rgPath, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let pending = ''
    let stderr = ''
    let stopped = false
    let aborted = false
    const onAbort = (): void => {
      aborted = true
      child.kill('SIGKILL')
    }
    opts.signal.addEventListener('abort', onAbort, { once: true })

    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      if (stopped) return
      pending += chunk
      let at = pending.indexOf(separator)
      while (at !== -1) {
        const record = pending.slice(0, at)
        pending = pending.slice(at + 1)
        if (opts.onRecord(record) === false) {
          stopped = true
          child.kill('SIGKILL')
          return
        }
        at = pending.indexOf(separator)
      }
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk.slice(0, 4096 - stderr.length)
    })
    child.on('error', (error) => {
      opts.signal.removeEventListener('abort', onAbort)
      reject(new ToolError('execution', `Could not run ripgrep: ${error.message}`))
    })
    child.on('close', (code) => {
      opts.signal.removeEventListener('abort', onAbort)
      if (aborted) {
        reject(new ToolError('aborted', 'The search was cancelled.'))
        return
      }
      if (!stopped && pending !== '') opts.onRecord(pending)
      resolve({ exitCode: stopped ? null : code, stderr: stderr.trim(), stopped })
    })
  })
}

/** Turns rg's error exit into a ToolError: bad regex, type or glob are the model's to fix. */
export function ripgrepError(run: RipgrepRun): ToolError {
  const message = run.stderr.replace(/^rg: /gm, '') || `ripgrep failed with exit code ${run.exitCode}`
  const invalidInput =
    /regex parse error|not allowed in a regex|unrecognized file type|error parsing glob|invalid glob/i
  if (invalidInput.test(message)) {
    return new ToolError('validation', message, {
      hint: 'The pattern uses ripgrep (Rust regex) syntax: escape literal ( ) [ ] { } . * + ? | with a backslash.',
    })
  }
  return new ToolError('execution', message)
}

/**
 * The bundled rg, unless agent-tui itself is installed inside the workspace (a project's own
 * node_modules), where a command could replace it: then an rg on PATH outside the workspace, or none.
 */
function safeRipgrep(bundled: string, programs: HostPrograms): string {
  let real: string
  try {
    real = realpathSync(bundled)
  } catch {
    return bundled
  }
  if (!isUnsafe(real, programs.unsafe)) return bundled
  const onPath = programs.find('rg')
  if (onPath) return onPath
  throw new ToolError(
    'execution',
    `ripgrep is not run from ${bundled}: it lies inside the workspace, where a command could replace it`,
    {
      hint: 'tell the user to install ripgrep (rg) on PATH outside the workspace, or to run agent-tui from an install outside it',
    },
  )
}
