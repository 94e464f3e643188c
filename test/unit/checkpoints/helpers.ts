import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { findHostProgram } from '../../../source/util/host-programs.js'

/** The machine's git, found as a session finds it. */
export const GIT = findHostProgram('git', { path: process.env.PATH, unsafe: [] }) ?? '/usr/bin/git'

export interface Workspace {
  root: string
  /** The project directory (the work tree). */
  dir: string
  /** Where the shadow repositories go (an XDG state dir of its own). */
  state: string
  write(path: string, text: string | Buffer): Promise<void>
  read(path: string): Promise<string | null>
  cleanup(): Promise<void>
}

export async function makeWorkspace(): Promise<Workspace> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-ckpt-')))
  const dir = join(root, 'project')
  const state = join(root, 'state')
  await mkdir(dir, { recursive: true })
  return {
    root,
    dir,
    state,
    async write(path, text) {
      await mkdir(dirname(join(dir, path)), { recursive: true })
      await writeFile(join(dir, path), text)
    },
    read: (path) => readFile(join(dir, path), 'utf8').catch(() => null),
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}

/** Runs git in the project itself, the way a user would (their config isolated from this machine's). */
export function projectGit(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync('git', args, {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
      ...env,
    },
    encoding: 'utf8',
    // git's stderr is kept (an error carries it) rather than printed: the hostile-repository test springs
    // an fsmonitor trap on purpose, and its "warning: …" lines in `npm test` read like a failure.
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Every file under `dir` with its bytes' hash, size and mtime: equal fingerprints mean nothing was touched. */
export async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name)
      const st = await lstat(path)
      if (entry.isDirectory()) {
        out[path.slice(dir.length)] = `dir ${st.mtimeMs}`
        await walk(path)
      } else {
        const bytes = entry.isFile() ? await readFile(path) : Buffer.from('')
        out[path.slice(dir.length)] =
          `${createHash('sha1').update(bytes).digest('hex')} ${st.size} ${st.mtimeMs}`
      }
    }
  }
  await walk(dir)
  return out
}
