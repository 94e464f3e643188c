import { lstatSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { UnaskedCall } from '../../agent/tool-call/pipeline.js'
import type { StdioVet } from '../../mcp/transports.js'
import type { ConsentBroker } from '../../permissions/broker.js'
import { isInside, realOrUndefined } from '../../provenance/fs-facts.js'
import { createProvenanceGuard, type GuardSubject, shownRelativeTo } from '../../provenance/guard.js'
import { openVerdicts } from '../../provenance/verdicts.js'
import { changedInWindow, createWindowLedger, unaskedWindowsDir } from '../../provenance/windows.js'
import type { Mode } from '../../store/domain.js'
import type { HookGuard } from '../../user-hooks/hook-service.js'
import { createHostPrograms, type HostPrograms } from '../../util/host-programs.js'

/**
 * What keeps something the model wrote unasked from running outside the sandbox later unasked, for one
 * session: the programs agent-tui runs itself by absolute path outside the workspace; the window of
 * unasked activity, opened by the first call nobody was asked about that can change files (a sandboxed
 * command, an auto-mode edit; dangerous mode is the user's own "yes to everything"); and the check
 * before a hook command or an MCP stdio server starts: if what it would run changed in such a window,
 * the TUI asks (allowed, it is asked again only after a later change) and a headless run does not start
 * it, saying why.
 */

export interface SessionProvenance {
  programs: HostPrograms
  unasked(call: UnaskedCall): void
  hookGuard: HookGuard
  vetServer: StdioVet
  /** The same check before the status line command first runs: undefined to run it, else why not. */
  vetStatusLine(
    command: string,
    cwd: string,
    env: NodeJS.ProcessEnv,
    signal: AbortSignal,
  ): Promise<string | undefined>
  /** When a file (or the link at its name) last changed in a window of unasked activity (ms), if it did. */
  changedUnasked(path: string): number | undefined
  /** Session end: the window closes (a later session still sees what it covered). */
  close(): void
}

export interface SessionProvenanceOptions {
  stateDir: string
  sessionId: string
  /** Real path of the workspace (messages show paths relative to it). */
  workspace: string
  /** Real paths unasked commands and edits can write: the workspace, added directories, session outputs. */
  roots: readonly string[]
  home: string
  mode(): Mode
  interactive: boolean
  broker: ConsentBroker
}

/** `$XDG_STATE_HOME/agent-tui/provenance`: the windows and the remembered checks. */
export function provenanceDir(stateDir: string): string {
  return join(stateDir, 'provenance')
}

export function createSessionProvenance(opts: SessionProvenanceOptions): SessionProvenance {
  const dir = provenanceDir(opts.stateDir)
  const programs = createHostPrograms({ path: process.env.PATH, unsafe: opts.roots })
  const ledger = createWindowLedger({
    dir: unaskedWindowsDir(opts.stateDir),
    session: opts.sessionId,
    roots: opts.roots,
  })
  const guard = createProvenanceGuard({
    windows: () => ledger.list(),
    generation: () => ledger.generation(),
    verdicts: openVerdicts(join(dir, 'checked.json')),
    home: opts.home,
    show: shownRelativeTo(opts.workspace),
  })
  let asked = 0

  /** Undefined to run it; else why it does not run. */
  const vet = async (subject: GuardSubject, label: string, signal?: AbortSignal) => {
    const answer = guard.check(subject)
    if (answer.ok) return undefined
    if (!opts.interactive) {
      return `${answer.reason}; a run without a user (-p) does not start it unasked — look at the change, then start agent-tui here without -p and allow it`
    }
    const command = 'script' in subject.command ? subject.command.script : subject.command.argv.join(' ')
    try {
      const decision = await opts.broker.request(
        {
          callId: `provenance-${++asked}`,
          tool: label,
          risk: 'exec',
          summary: command,
          reason: `${answer.reason}. It runs outside the sandbox; allowed, it is asked about again only if that changes again`,
          preview: { kind: 'command', command, cwd: subject.cwd },
          suggestedRule: '',
          noRule:
            'it is asked again only when what it runs changes again while commands or edits run unasked',
        },
        signal ?? new AbortController().signal,
      )
      if (decision.kind === 'deny') return `not allowed (${answer.reason})`
      guard.allow(answer.key, answer.at)
      return undefined
    } catch {
      return 'the turn was interrupted before it was allowed'
    }
  }

  return {
    programs,
    unasked(call) {
      if (opts.mode() === 'dangerous') return
      const sandboxed = call.target.kind === 'command' && call.target.sandbox !== undefined
      const edits = call.risk === 'edit' && !call.readOnly
      if (!sandboxed && !edits) return
      if (ledger.isOpen()) ledger.touch()
      else ledger.open()
    },
    hookGuard: (run, signal) =>
      vet(
        {
          kind: `${run.event} hook`,
          command: { script: run.hook.command },
          cwd: run.cwd,
          env: run.env,
          related: run.related.map((file) => resolve(run.cwd, file)),
        },
        `${run.event} hook`,
        signal,
      ),
    vetServer: (server) =>
      vet(
        {
          kind: `MCP server "${server.name}"`,
          command: { argv: [server.command, ...server.args] },
          cwd: server.cwd,
          env: server.env,
        },
        `MCP server ${server.name}`,
      ),
    vetStatusLine: (command, cwd, env, signal) =>
      vet(
        { kind: 'statusLine command', command: { script: command }, cwd, env },
        'statusLine command',
        signal,
      ),
    changedUnasked(path) {
      const windows = ledger.list()
      if (windows.length === 0) return undefined
      // Windows hold real paths: the name where it lies (a link planted there), and what it leads to.
      const folder = realOrUndefined(dirname(path))
      const named = folder === undefined ? path : join(folder, basename(path))
      const ctimeOf = (stat: typeof lstatSync) => {
        try {
          return stat(path, { throwIfNoEntry: false })?.ctimeMs
        } catch {
          return undefined
        }
      }
      const times = [
        { ctime: ctimeOf(lstatSync), at: named },
        { ctime: ctimeOf(statSync), at: realOrUndefined(path) ?? named },
      ].flatMap(({ ctime, at }) =>
        ctime !== undefined && changedInWindow(ctime, at, windows, isInside) ? [ctime] : [],
      )
      return times.length > 0 ? Math.max(...times) : undefined
    },
    close: () => ledger.close(),
  }
}
