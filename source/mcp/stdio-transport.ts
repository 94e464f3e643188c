import { type ChildProcess, spawn } from 'node:child_process'
import { groupAlive, type OwnedGroup, ownedGroup, pollUntil, signalGroup } from '../tasks/process-group.js'

/**
 * The MCP stdio transport (newline-delimited JSON-RPC over the server's stdin/stdout), written here
 * rather than taken from the SDK because the server must run in its own process group: servers started
 * through `npx` or a shell wrapper are a tree of processes, and every one of them must be gone when the
 * session ends, on every exit path. stderr is kept (its tail) for the error message when the server dies.
 */

/** The SDK's Transport shape (structurally; this module does not load the SDK). */
export interface JsonRpcTransport<M> {
  start(): Promise<void>
  send(message: M): Promise<void>
  close(): Promise<void>
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: M) => void) | undefined
}

export interface StdioTransportOptions<M> {
  command: string
  args: readonly string[]
  env: Record<string, string>
  cwd: string
  /** Parses one line into a JSON-RPC message (the SDK's validator); throws on anything else. */
  deserialize(line: string): M
  /** Told when the server's process group exists (pid = pgid) and when it is gone. */
  onSpawn?(pid: number): void
  onGone?(pid: number): void
  /** How long a closing server gets after stdin closes, and after SIGTERM (ms). */
  graceMs?: number
}

const STDERR_TAIL = 4096
const MAX_LINE = 16 * 1024 * 1024

export class StdioServerTransport<M> implements JsonRpcTransport<M> {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: M) => void) | undefined
  private child: ChildProcess | undefined
  /** The server's group as read at spawn: signals go to it only (util/process-ownership.ts). */
  private group: OwnedGroup | undefined
  private buffer = ''
  private stderrTail = ''
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  private closing = false
  private readonly opts: StdioTransportOptions<M>

  constructor(opts: StdioTransportOptions<M>) {
    this.opts = opts
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  /** The last lines the server wrote to stderr (for error messages). */
  stderr(): string {
    return this.stderrTail.trim()
  }

  /** How the process ended, once it has: `exited with code 1`, `killed by SIGKILL`. */
  exitDescription(): string | undefined {
    if (!this.exit) return undefined
    return this.exit.signal ? `killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the stdio transport was already started')
    return new Promise((resolve, reject) => {
      const child = spawn(this.opts.command, [...this.opts.args], {
        cwd: this.opts.cwd,
        env: this.opts.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      })
      this.child = child
      if (child.pid !== undefined) this.group = ownedGroup(child.pid)
      child.once('error', (error: NodeJS.ErrnoException) => {
        const why =
          error.code === 'ENOENT'
            ? `command not found: ${this.opts.command}`
            : error.code === 'EACCES'
              ? `not executable: ${this.opts.command}`
              : error.message
        const failure = new Error(`cannot start the server: ${why}`)
        if (child.pid === undefined) reject(failure)
        else this.onerror?.(failure)
      })
      child.once('spawn', () => {
        if (child.pid !== undefined) this.opts.onSpawn?.(child.pid)
        resolve()
      })
      child.stdout?.setEncoding('utf8')
      child.stdout?.on('data', (chunk: string) => this.read(chunk))
      child.stderr?.setEncoding('utf8')
      child.stderr?.on('data', (chunk: string) => {
        this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL)
      })
      // A server that exits while we write gets EPIPE: its exit is reported through `close`.
      child.stdin?.on('error', () => undefined)
      child.once('close', (code, signal) => {
        this.exit = { code, signal }
        const { group } = this
        // The leader is gone; anything it left in its group goes too.
        if (group !== undefined) {
          if (groupAlive(group.pgid)) signalGroup(group, 'SIGKILL')
          this.opts.onGone?.(group.pgid)
        }
        this.onclose?.()
      })
    })
  }

  async send(message: M): Promise<void> {
    const stdin = this.child?.stdin
    if (!stdin || stdin.destroyed || this.exit) throw new Error('the server process is not running')
    const line = `${JSON.stringify(message)}\n`
    await new Promise<void>((resolve, reject) => {
      stdin.write(line, (error) => (error ? reject(error) : resolve()))
    })
  }

  /**
   * Closes stdin (the spec's way to ask a stdio server to exit), then SIGTERM and SIGKILL to the whole
   * group if it lingers.
   */
  async close(): Promise<void> {
    const child = this.child
    if (!child || this.closing) return
    this.closing = true
    const { group } = this
    const grace = this.opts.graceMs ?? 1000
    child.stdin?.end()
    if (group === undefined) return
    const gone = () => this.exit !== undefined && !groupAlive(group.pgid)
    if (await pollUntil(gone, { timeoutMs: Math.min(grace, 500), intervalMs: 20 })) return
    signalGroup(group, 'SIGTERM')
    if (await pollUntil(gone, { timeoutMs: grace, intervalMs: 20 })) return
    signalGroup(group, 'SIGKILL')
    await pollUntil(gone, { timeoutMs: grace, intervalMs: 20 })
  }

  /** For exit paths that cannot wait (`process.on('exit')`, signals): SIGKILL to the group at once. */
  killSync(): void {
    const { group } = this
    if (group !== undefined && !(this.exit && !groupAlive(group.pgid))) signalGroup(group, 'SIGKILL')
  }

  private read(chunk: string): void {
    this.buffer += chunk
    if (this.buffer.length > MAX_LINE) {
      this.buffer = ''
      this.onerror?.(new Error(`the server sent a message over ${MAX_LINE / 1024 / 1024} MB; dropped`))
      return
    }
    let nl = this.buffer.indexOf('\n')
    while (nl !== -1) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '')
      this.buffer = this.buffer.slice(nl + 1)
      if (line.trim()) {
        try {
          this.onmessage?.(this.opts.deserialize(line))
        } catch (error) {
          // Servers that print logs on stdout: report, keep reading.
          const text = line.length > 200 ? `${line.slice(0, 200)}…` : line
          this.onerror?.(new Error(`not a JSON-RPC message on stdout: ${text} (${String(error)})`))
        }
      }
      nl = this.buffer.indexOf('\n')
    }
  }
}
