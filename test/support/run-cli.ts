import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const cliPath = join(repoRoot, 'bin', 'agent-tui.cjs')

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** An isolated HOME/XDG and a workspace directory for one end-to-end test. */
export interface Sandbox {
  root: string
  home: string
  workspace: string
  env: NodeJS.ProcessEnv
  cleanup(): Promise<void>
}

export async function makeSandbox(): Promise<Sandbox> {
  if (!existsSync(join(repoRoot, 'dist', 'cli.js'))) {
    throw new Error('dist/cli.js is missing: run `npm run build` (npm test does it first)')
  }
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-e2e-')))
  const home = join(root, 'home')
  const workspace = join(root, 'work')
  await mkdir(home, { recursive: true })
  await mkdir(workspace, { recursive: true })
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
  }
  return { root, home, workspace, env, cleanup: () => rm(root, { recursive: true, force: true }) }
}

/** Runs the built CLI to completion. `stdin` undefined means no stdin at all (like CI). */
export function runCli(
  args: string[],
  opts: {
    cwd: string
    env: NodeJS.ProcessEnv
    stdin?: string
    timeoutMs?: number
    onSpawn?: (pid: number) => void
  },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    if (child.pid && opts.onSpawn) opts.onSpawn(child.pid)
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (d) => {
      stdout += d
    })
    child.stderr?.on('data', (d) => {
      stderr += d
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(`agent-tui ${args.join(' ')} did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`),
      )
    }, opts.timeoutMs ?? 20_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin)
  })
}
