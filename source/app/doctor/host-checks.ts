import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { dirname, join } from 'node:path'
import {
  type BashSandboxOptions,
  createBashSandbox,
  type CommandSandbox,
} from '../../sandbox/bash-sandbox.js'
import type { Check } from './report.js'

/**
 * The machine's checks (docs/troubleshooting.md#doctor): the Node running agent-tui and the pinned one,
 * the bundled ripgrep, and the Bash sandbox — found, started, and its fence tried from inside (a Unix
 * socket refused, no network out).
 */

/** Oldest Node the launcher runs on directly (package.json `engines`); older ones re-exec the pinned one. */
const MIN_NODE = 22

export function nodeCheck(opts: { version?: string; execPath?: string; packageRoot?: string } = {}): Check {
  const version = opts.version ?? process.versions.node
  const execPath = opts.execPath ?? process.execPath
  const major = Number(version.split('.')[0])
  const pinned = opts.packageRoot ? join(opts.packageRoot, 'node_modules', 'node', 'bin', 'node') : undefined
  const runsPinned = pinned !== undefined && execPath.startsWith(dirname(dirname(pinned)))
  const pinnedNote =
    pinned === undefined
      ? ''
      : runsPinned
        ? ', the pinned runtime'
        : existsSync(pinned)
          ? ' (the pinned runtime is installed too)'
          : ''
  if (major >= MIN_NODE)
    return {
      id: 'node',
      title: 'Node',
      status: 'ok',
      detail: `${version} (${execPath})${pinnedNote}`,
      essential: true,
    }
  return {
    id: 'node',
    title: 'Node',
    status: 'fail',
    detail: `${version}: agent-tui needs Node ${MIN_NODE} or later`,
    fix: 'npm install (it installs the pinned Node, which bin/agent-tui.cjs runs), or install Node 22+',
    essential: true,
  }
}

export async function ripgrepCheck(): Promise<Check> {
  const base = { id: 'ripgrep', title: 'ripgrep', essential: false }
  let rgPath: string
  try {
    rgPath = (await import('@vscode/ripgrep')).rgPath
  } catch (error) {
    return {
      ...base,
      status: 'fail',
      detail: `the bundled rg is missing: ${(error as Error).message}`,
      fix: 'npm install again (Grep and Glob need it)',
    }
  }
  const run = await runOnce(rgPath, ['--version'], 10_000)
  if (run.code !== 0)
    return {
      ...base,
      status: 'fail',
      detail: `${rgPath} does not run: ${run.error ?? run.stderr.trim()}`,
      fix: 'npm rebuild @vscode/ripgrep',
    }
  return { ...base, status: 'ok', detail: `${run.stdout.split('\n')[0]?.trim()} (${rgPath})` }
}

export interface SandboxCheckOptions
  extends Pick<BashSandboxOptions, 'projectRoots' | 'scratchRoots' | 'ownSecrets' | 'env' | 'platform'> {
  network: boolean
  /** Whether the settings turn the sandbox on (`sandbox.enabled`, `--sandbox`). */
  enabled: boolean
}

/** The sandbox program found and tried, then the fence tried from inside. */
export async function sandboxChecks(opts: SandboxCheckOptions): Promise<Check[]> {
  const status = await createBashSandbox({ ...opts, network: opts.network }).status()
  const off = opts.enabled
    ? ''
    : ' (off in these settings: "sandbox": "workspace-write" or --sandbox turns it on)'
  if (status.kind === 'unavailable') {
    return [
      {
        id: 'sandbox',
        title: 'Sandbox',
        status: opts.enabled ? 'fail' : 'warn',
        detail: status.notice,
        fix: 'install bubblewrap (apt install bubblewrap); without it every command asks first',
        essential: false,
      },
    ]
  }
  const fence = await fenceProbe(status.sandbox, opts.projectRoots[0] ?? '/', opts.network)
  return [
    {
      id: 'sandbox',
      title: 'Sandbox',
      status: 'ok',
      detail: `${status.program} starts commands${off}`,
      essential: false,
    },
    fence,
  ]
}

/**
 * Runs a small Node script in the sandbox: it tries to open a Unix socket (the filter must refuse it)
 * and to reach a TCP port this process listens on (unreachable unless the sandbox has the network).
 */
async function fenceProbe(sandbox: CommandSandbox, cwd: string, network: boolean): Promise<Check> {
  const base = { id: 'fence', title: 'Sandbox fence', essential: false }
  let server: Server | undefined
  try {
    server = createServer((socket) => socket.end('hi'))
    const port = await new Promise<number>((resolve, reject) => {
      server?.once('error', reject)
      server?.listen(0, '127.0.0.1', () => {
        const address = server?.address()
        resolve(typeof address === 'object' && address ? address.port : 0)
      })
    })
    const script = [
      "const net = require('node:net')",
      "const out = (k, v) => process.stdout.write(k + '=' + v + '\\n')",
      "const s = net.createServer(); s.on('error', (e) => { out('unix', e.code || e.message); tcp() })",
      "s.listen('/tmp/agent-tui-doctor-' + process.pid + '.sock', () => { out('unix', 'open'); s.close(); tcp() })",
      `function tcp() { const c = net.connect(${port}, '127.0.0.1'); c.setTimeout(3000, () => { out('tcp', 'timeout'); c.destroy() }); c.on('connect', () => { out('tcp', 'open'); c.destroy() }); c.on('error', (e) => out('tcp', e.code || e.message)) }`,
    ].join('\n')
    const wrapped = sandbox.wrap({ file: process.execPath, args: ['-e', script], cwd })
    const run = await runWrapped(wrapped, cwd, 15_000)
    const result = Object.fromEntries(
      run.stdout.split('\n').flatMap((line) => {
        const at = line.indexOf('=')
        return at > 0 ? [[line.slice(0, at), line.slice(at + 1)]] : []
      }),
    ) as { unix?: string; tcp?: string }
    if (!result.unix || !result.tcp)
      return {
        ...base,
        status: 'fail',
        detail: `the probe did not run in the sandbox: ${run.error ?? (run.stderr.trim().split('\n')[0] || `exit ${run.code}`)}`,
      }
    const unixOk = result.unix !== 'open'
    const netOk = network ? true : result.tcp !== 'open'
    const detail = `a Unix socket: ${unixOk ? `refused (${result.unix})` : 'OPENED'}; this machine's TCP port: ${result.tcp === 'open' ? (network ? 'reachable (network on)' : 'REACHED') : `unreachable (${result.tcp})`}`
    if (unixOk && netOk) return { ...base, status: 'ok', detail }
    return {
      ...base,
      status: 'fail',
      detail,
      fix: 'the fence is open: report this with the output of `agent-tui doctor --json`; until then use --mode safe and read each command',
    }
  } catch (error) {
    return { ...base, status: 'fail', detail: `the probe could not start: ${(error as Error).message}` }
  } finally {
    server?.close()
  }
}

type Wrapped = ReturnType<CommandSandbox['wrap']>

function runWrapped(wrapped: Wrapped, cwd: string, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(wrapped.file, wrapped.args, { cwd, stdio: wrapped.stdio(['ignore', 'pipe', 'pipe']) })
    wrapped.started()
    collect(child, timeoutMs, (result) => {
      wrapped.done()
      resolve(result)
    })
  })
}

interface RunResult {
  code: number | null
  stdout: string
  stderr: string
  error?: string
}

function runOnce(file: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    collect(child, timeoutMs, resolve)
  })
}

function collect(child: ReturnType<typeof spawn>, timeoutMs: number, done: (r: RunResult) => void): void {
  let stdout = ''
  let stderr = ''
  let finished = false
  const finish = (result: RunResult) => {
    if (finished) return
    finished = true
    clearTimeout(timer)
    done(result)
  }
  const timer = setTimeout(() => {
    child.kill('SIGKILL')
    finish({ code: null, stdout, stderr, error: `no result within ${timeoutMs / 1000} s` })
  }, timeoutMs)
  child.stdout?.on('data', (d: Buffer) => {
    if (stdout.length < 8192) stdout += d.toString('utf8')
  })
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 8192) stderr += d.toString('utf8')
  })
  child.once('error', (error) => finish({ code: null, stdout, stderr, error: error.message }))
  child.once('close', (code) => finish({ code, stdout, stderr }))
}
