import { execFile } from 'node:child_process'
import { lstat, realpath } from 'node:fs/promises'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import {
  type GitConfigFacts,
  includedFiles,
  programSettings,
  quotedFiles,
  repositoryOrigins,
  readOnlyGitEnv,
  withGitConfig,
} from './git-read-only.js'

/**
 * Asks git what configuration it would read in a directory, before the policy judges a read-only git
 * command there (see git-read-only.ts): `git config --list` (includes, worktree config and a `.git`
 * file pointing elsewhere resolved as git resolves them), the work tree (`core.worktree`), and the
 * `.gitmodules` beside it. git runs with the environment the command will have, so it finds the same
 * repository (and refuses the same bare one), and with the read-only settings fixed; listing config
 * runs nothing. A config that names a FIFO as an include would block: the scan gives up after a while.
 */

const TIMEOUT_MS = 3000
const MAX_BUFFER = 1024 * 1024

/** The environment of the command's git, as the Bash tool gives it (tools/shell-process.ts). */
export function scanEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return readOnlyGitEnv(withGitConfig(base, [['safe.bareRepository', 'explicit']]))
}

export async function scanGitConfig(
  dir: string,
  opts: {
    env?: NodeJS.ProcessEnv
    timeoutMs?: number
    /**
     * The git to ask, by absolute path outside the workspace (util/host-programs.ts): the scan runs
     * outside any sandbox, so a `git` planted on a PATH entry in the workspace must not be it. `null`:
     * there is none there, and the call is not taken as read-only. Default: `git` from PATH (tests).
     */
    program?: string | null
  } = {},
): Promise<GitConfigFacts> {
  if (opts.program === null)
    return { ok: false, reason: 'no git outside the workspace to ask what the repository configures' }
  const env = opts.env ?? scanEnv()
  const program = opts.program ?? 'git'
  const run = (args: string[]) => git(program, dir, env, args, opts.timeoutMs ?? TIMEOUT_MS)
  const [listing, topLevel] = await Promise.all([
    run(['config', '--list', '--show-scope', '--show-origin', '-z']),
    run(['rev-parse', '--show-toplevel']),
  ])
  // Not a repository, or no git: the command's git fails the same way, and runs nothing.
  if (listing.kind === 'missing') return { ok: true, runs: [] }
  if (listing.kind === 'failed') return { ok: false, reason: listing.reason }
  const workTree = topLevel.kind === 'ok' ? topLevel.stdout.trim() : undefined
  let gitmodules = ''
  if (workTree && isAbsolute(workTree)) {
    const file = join(workTree, '.gitmodules')
    const info = await lstat(file).catch(() => undefined)
    if (info?.isFile()) {
      const read = await run(['config', '--file', file, '--list', '-z'])
      if (read.kind === 'failed') return { ok: false, reason: `.gitmodules: ${read.reason}` }
      if (read.kind === 'ok') gitmodules = read.stdout
    }
  }
  const runs = programSettings(listing.stdout, gitmodules).map((found) => ({
    ...found,
    origin:
      isAbsolute(found.origin) || found.origin === '.gitmodules' ? found.origin : resolve(dir, found.origin),
  }))
  const top = workTree ? resolve(dir, workTree) : undefined
  const home = env.HOME ?? ''
  const real = (path: string) => realpath(path).catch(() => path)
  const quoted = await Promise.all(
    quotedFiles(listing.stdout).map(async ({ key, value }) => {
      const path = value.startsWith('~/') ? join(home, value.slice(2)) : resolve(top ?? dir, value)
      return { key, path: await real(path) }
    }),
  )
  // git names the files it read relative to the top (it works from there) or absolute; an include is
  // relative to the file that names it. Only includes git did read count (a condition may not hold).
  const origin = (name: string) => (isAbsolute(name) ? name : resolve(top ?? dir, name))
  const read = new Set(await Promise.all(repositoryOrigins(listing.stdout).map((o) => real(origin(o)))))
  const included = await Promise.all(
    includedFiles(listing.stdout).map(async ({ key, value, origin: from }) => {
      const path = value.startsWith('~/') ? join(home, value.slice(2)) : resolve(dirname(origin(from)), value)
      return { key, path: await real(path) }
    }),
  )
  const reads = [...quoted, ...included.filter((inc) => read.has(inc.path))]
  return {
    ok: true,
    runs,
    ...(top ? { workTree: top } : {}),
    ...(reads.length > 0 ? { reads } : {}),
  }
}

type GitOutput = { kind: 'ok'; stdout: string } | { kind: 'missing' } | { kind: 'failed'; reason: string }

function git(
  program: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  timeoutMs: number,
): Promise<GitOutput> {
  return new Promise((done) => {
    execFile(
      program,
      args,
      { cwd, env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: MAX_BUFFER, windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) return done({ kind: 'ok', stdout })
        const e = error as NodeJS.ErrnoException & { killed?: boolean; code?: unknown }
        if (e.code === 'ENOENT') return done({ kind: 'missing' })
        if (e.killed) return done({ kind: 'failed', reason: `git did not answer in ${timeoutMs} ms` })
        const said = String(stderr).trim()
        if (/not a git repository/i.test(said)) return done({ kind: 'missing' })
        done({
          kind: 'failed',
          reason: said.split('\n').at(-1)?.slice(0, 200) || `git exited ${String(e.code)}`,
        })
      },
    )
  })
}
