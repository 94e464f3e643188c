import { execFile } from 'node:child_process'
import { cp, lstat, readdir, readlink, realpath, rm } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
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

/**
 * Copies the folder at `source` (relative to `cwd`) or clones the git URL into `dest` (which must not
 * exist). `.git` is never kept: an installed plugin is files, not a repository agent-tui runs git in.
 */
export async function fetchFolder(source: string, dest: string, cwd: string): Promise<void> {
  if (isGitSource(source)) await clone(source, dest, cwd)
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

async function clone(url: string, dest: string, cwd: string): Promise<void> {
  // Looked up outside the workspace: a `git` planted there must not run (util/host-programs.ts).
  const git = findHostProgram('git', { path: process.env.PATH, unsafe: [cwd] })
  if (!git)
    throw new PluginError(
      'git was not found on PATH (outside this folder); it is needed to install from a git URL',
    )
  const args = [
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'protocol.ext.allow=never',
    '-c',
    'core.fsmonitor=false',
    'clone',
    '--quiet',
    '--no-recurse-submodules',
    '--depth',
    '1',
    '--',
    url,
    dest,
  ]
  await new Promise<void>((done, fail) => {
    execFile(
      git,
      args,
      {
        cwd: dirname(dest),
        timeout: CLONE_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        // No prompt for a password in the middle of `plugin add`; the system and user git config stay.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      },
      (error, _stdout, stderr) => {
        if (!error) return done()
        const why = stderr.trim().split('\n').filter(Boolean).at(-1) ?? error.message
        fail(new PluginError(`git clone ${url} failed: ${why}`))
      },
    )
  })
}

/** Throws when a symlink below `root` resolves outside it (or nowhere). */
async function refuseLinksOut(root: string): Promise<void> {
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
