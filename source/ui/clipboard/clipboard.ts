import { spawn } from 'node:child_process'
import type { ClipboardImage } from './clipboard-image.js'
import { osc52Sequence } from './osc52.js'

/**
 * `/copy`'s two ways to the clipboard, used together: OSC 52 to the terminal (works over SSH and in most
 * terminals, but silently does nothing where the terminal refuses it: tmux's default `set-clipboard
 * external`, iTerm2 without "may access clipboard", VTE) and, as the fallback one can check, the
 * platform's clipboard program, found outside the workspace like every program agent-tui runs itself
 * (`util/host-programs.ts`). The notice names each way that was taken.
 */

export interface ClipboardEnv {
  env: Readonly<Record<string, string | undefined>>
  platform: NodeJS.Platform
  /** Whether stdout is a terminal (OSC 52 only goes to one). */
  tty: boolean
}

export interface ClipboardProgram {
  name: string
  args: readonly string[]
}

export interface ClipboardPlan {
  /** Why OSC 52 is not written; undefined when it is. */
  noOsc52?: string
  tmux: boolean
  /** Clipboard programs for this platform and display, best first; the first one found is run. */
  programs: readonly ClipboardProgram[]
}

/** What `/copy` will try on this terminal and platform. Pure: the decision table's subject. */
export function clipboardPlan({ env, platform, tty }: ClipboardEnv): ClipboardPlan {
  const programs: ClipboardProgram[] = []
  const wsl = platform === 'linux' && Boolean(env.WSL_DISTRO_NAME || env.WSL_INTEROP)
  if (wsl) programs.push({ name: 'clip.exe', args: [] })
  if (platform === 'darwin') programs.push({ name: 'pbcopy', args: [] })
  if (platform !== 'darwin' && platform !== 'win32') {
    if (env.WAYLAND_DISPLAY) programs.push({ name: 'wl-copy', args: [] })
    if (env.DISPLAY) {
      programs.push({ name: 'xclip', args: ['-selection', 'clipboard'] })
      programs.push({ name: 'xsel', args: ['--clipboard', '--input'] })
    }
  }
  const plan = { tmux: Boolean(env.TMUX), programs }
  const noOsc52 = !tty
    ? 'not a terminal'
    : env.TERM === 'dumb' || env.TERM === 'linux'
      ? `TERM=${env.TERM} has no clipboard`
      : env.TERM_PROGRAM === 'Apple_Terminal'
        ? 'Apple Terminal ignores OSC 52'
        : undefined
  return noOsc52 ? { ...plan, noOsc52 } : plan
}

export interface CopyOutcome {
  /** The ways the text went: `OSC 52`, `OSC 52 (tmux passthrough too)`, `wl-copy`… */
  via: string[]
  /** What did not work, as `name: reason`. */
  failed: string[]
}

export interface ClipboardDeps extends ClipboardEnv {
  /** Writes to the real terminal, beside the painter's frames (not through them). */
  write(text: string): void
  /** A program's absolute path outside the workspace (`HostPrograms.find`). */
  find(name: string): string | undefined
  /** How long a clipboard program may take before it is killed. */
  timeoutMs?: number
}

export interface Clipboard {
  copy(text: string): Promise<CopyOutcome>
  /** Ctrl+V: the clipboard's image, if it holds one (its reader is loaded on the first call). */
  pasteImage(): Promise<ClipboardImage>
}

export function createClipboard(deps: ClipboardDeps): Clipboard {
  return {
    async pasteImage() {
      const { readClipboardImage } = await import('./clipboard-image.js')
      return readClipboardImage(deps)
    },
    async copy(text) {
      const plan = clipboardPlan(deps)
      const via: string[] = []
      const failed: string[] = []
      if (plan.noOsc52 === undefined) {
        const bytes = osc52Sequence(text, { tmux: plan.tmux })
        if (bytes === undefined) failed.push('OSC 52: too long for terminals')
        else {
          deps.write(bytes)
          via.push(plan.tmux ? 'OSC 52 (and tmux passthrough)' : 'OSC 52')
        }
      }
      const program = plan.programs.map((p) => ({ ...p, path: deps.find(p.name) })).find((p) => p.path)
      if (program?.path) {
        const error = await runClipboardProgram(program.path, program.args, text, deps)
        if (error === undefined) via.push(program.name)
        else failed.push(`${program.name}: ${error}`)
      }
      return { via, failed }
    },
  }
}

/**
 * Runs a clipboard program with the text on stdin; resolves with undefined when it exited 0, else why not.
 * Waits for `exit`, not `close`: xclip, xsel and wl-copy leave a child behind that owns the selection (and
 * keeps the inherited pipes open) — that child must outlive the copy, it is what serves the clipboard.
 */
function runClipboardProgram(
  path: string,
  args: readonly string[],
  text: string,
  deps: Pick<ClipboardDeps, 'env' | 'timeoutMs'>,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let stderr = ''
    let settled = false
    const done = (error: string | undefined) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(error)
    }
    const child = spawn(path, [...args], { stdio: ['pipe', 'ignore', 'pipe'], env: { ...deps.env } })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      done('timed out')
    }, deps.timeoutMs ?? 3000)
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk
    })
    child.stderr?.on('error', () => {})
    child.stdin?.on('error', () => {})
    child.on('error', (err) => done(err.message))
    child.on('exit', (code, signal) => {
      const first = stderr.trim().split('\n')[0] ?? ''
      if (code === 0) done(undefined)
      else done(first || (signal ? `killed by ${signal}` : `exit status ${code}`))
    })
    child.stdin?.end(text)
  })
}
