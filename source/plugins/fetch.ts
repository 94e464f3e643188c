import { execFile } from 'node:child_process'
import { cp, lstat, readdir, readlink, realpath, rename, rm } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { findHostProgram } from '../util/host-programs.js'
import { within } from './manifest.js'
import { PluginError } from './registry.js'

/**
 * Bringing a plugin's or a marketplace's folder onto the machine: a local folder is copied, a git URL
 * cloned with the host git, always into a fresh folder the caller then renames into place. Nothing of
 * what is fetched runs: git runs with hooks off and no submodules, and a symlink that leads out of the
 * folder is refused (a plugin's `hooks.json` linked to another file would run whatever that holds).
 */

/** A git URL (`https://…`, `ssh://…`, `git@host:path`, `file://…`, or anything ending in `.git`). */
export function isGitSource(source: string): boolean {
  return (
    /^(https?|ssh|git|file):\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source) || /\.git\/?$/.test(source)
  )
}

const CLONE_TIMEOUT_MS = 5 * 60_000

/** What of a git source to take: a branch or tag, a pinned commit, one folder of the repository. */
export interface GitPick {
  ref?: string
  sha?: string
  /** A folder of the repository (a marketplace's `git-subdir`), relative, inside it. */
  path?: string
}

/**
 * Copies the folder at `source` (relative to `cwd`) or clones the git URL into `dest` (which must not
 * exist). `.git` is never kept: an installed plugin is files, not a repository agent-tui runs git in.
 */
export async function fetchFolder(
  source: string,
  dest: string,
  cwd: string,
  pick: GitPick = {},
): Promise<void> {
  if (isGitSource(source)) await cloneInto(source, dest, cwd, pick)
  else {
    const from = await realpath(resolve(cwd, source)).catch(() => {
      throw new PluginError(`${source}: no such folder`)
    })
    if (!(await lstat(from)).isDirectory()) throw new PluginError(`${source}: not a folder`)
    await cp(from, dest, {
      recursive: true,
      verbatimSymlinks: true,
      errorOnExist: true,
      force: false,
      filter: (path) => relative(from, path).split(/[\\/]/)[0] !== '.git',
    })
  }
  await rm(join(dest, '.git'), { recursive: true, force: true })
  await refuseLinksOut(dest)
}

/** Clones beside `dest`, checks the pinned commit, and renames the repository (or its folder) to `dest`. */
async function cloneInto(url: string, dest: string, cwd: string, pick: GitPick): Promise<void> {
  // Looked up outside the workspace: a `git` planted there must not run (util/host-programs.ts).
  const git = findHostProgram('git', { path: process.env.PATH, unsafe: [cwd] })
  if (!git)
    throw new PluginError(
      'git was not found on PATH (outside this folder); it is needed to install from a git URL',
    )
  if (pick.ref?.startsWith('-') || (pick.sha !== undefined && !/^[0-9a-f]{7,64}$/i.test(pick.sha)))
    throw new PluginError(`${url}: the ref or sha it names is not one (${pick.ref ?? pick.sha})`)
  const repo = pick.path === undefined ? dest : `${dest}.repo`
  const branch = pick.ref ? ['--branch', pick.ref] : []
  await runGit(
    git,
    ['clone', '--quiet', '--no-recurse-submodules', '--depth', '1', ...branch, '--', url, repo],
    {
      cwd: dirname(dest),
      what: `git clone ${url}`,
    },
  )
  try {
    if (pick.sha) {
      const head = await runGit(git, ['rev-parse', 'HEAD'], { cwd: repo, what: 'git rev-parse' })
      if (!head.startsWith(pick.sha.toLowerCase())) {
        await runGit(git, ['fetch', '--quiet', '--depth', '1', 'origin', pick.sha], {
          cwd: repo,
          what: `the commit ${pick.sha} it pins`,
        })
        await runGit(git, ['checkout', '--quiet', 'FETCH_HEAD'], {
          cwd: repo,
          what: `git checkout ${pick.sha}`,
        })
      }
    }
    if (pick.path !== undefined) {
      const folder = resolve(repo, pick.path)
      if (isAbsolute(pick.path) || !within(repo, folder) || folder === repo)
        throw new PluginError(`${url}: the folder ${pick.path} it names is not inside the repository`)
      const real = await realpath(folder).catch(() => undefined)
      if (real === undefined || !within(await realpath(repo), real) || !(await lstat(real)).isDirectory())
        throw new PluginError(`${url} has no folder ${pick.path}`)
      await rename(real, dest)
    }
  } finally {
    if (repo !== dest) await rm(repo, { recursive: true, force: true })
  }
}

const GIT_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'core.fsmonitor=false',
]

/** Runs the host git with hooks and fsmonitor off; its stdout, trimmed; a PluginError naming `what`. */
function runGit(git: string, args: string[], opts: { cwd: string; what: string }): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      git,
      [...GIT_CONFIG, ...args],
      {
        cwd: opts.cwd,
        timeout: CLONE_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        // No prompt for a password in the middle of `plugin add`; the system and user git config stay.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      },
      (error, stdout, stderr) => {
        if (!error) return done(stdout.trim())
        const why = stderr.trim().split('\n').filter(Boolean).at(-1) ?? error.message
        fail(new PluginError(`${opts.what} failed: ${why}`))
      },
    )
  })
}

/** Throws when a symlink below `root` resolves outside it (or nowhere). */
export async function refuseLinksOut(root: string): Promise<void> {
  const real = await realpath(root)
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined)
        if (target === undefined || !within(real, target))
          throw new PluginError(
            `${relative(root, path)} is a link out of the folder (to ${await readlink(path)}); nothing was installed`,
          )
      } else if (entry.isDirectory()) await walk(path)
    }
  }
  await walk(root)
}
