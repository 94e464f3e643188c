import { existsSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { readOnlyGitEnv } from '../permissions/git-read-only.js'
import { realPathOf } from '../permissions/real-path.js'
import { readConfigText } from '../tools/instruction-file.js'
import { ConfigError } from './errors.js'
import { findHostProgram } from '../util/host-programs.js'
import { appendAllowRule, writeAtomically } from './save-rule.js'

/** The file "always allow" writes, relative to the workspace. */
export const LOCAL_SETTINGS = '.agent-tui/settings.local.json'

export type IgnoreOutcome =
  | { kind: 'added'; file: string }
  | { kind: 'already-ignored' }
  | { kind: 'not-a-repository' }
  | { kind: 'failed'; reason: string }

/**
 * Keeps the local settings file out of commits, as Claude Code does for its own: when the workspace is in a
 * git repository and git does not ignore the file yet, appends it to the workspace's `.gitignore` (created
 * if missing; written atomically). git runs with fsmonitor, hooks and the other settings that run programs
 * on a read fixed (permissions/git-read-only.ts): a repository's own config must not name a command that
 * runs. Without git installed, a `.git` above the workspace and a `.gitignore` without
 * the line decide. Never throws.
 */
export async function ignoreLocalSettings(workspace: string): Promise<IgnoreOutcome> {
  try {
    const ignored = await gitIgnores(workspace, LOCAL_SETTINGS)
    if (ignored === 'not-a-repository') return { kind: 'not-a-repository' }
    if (ignored === true) return { kind: 'already-ignored' }
    const file = join(workspace, '.gitignore')
    // Only the workspace's own regular file: a `.gitignore` linked to ~/.ssh/id_rsa or /proc/self/environ
    // would be read and written back here, in the workspace, for the model to Read.
    const info = await lstat(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null
      throw err
    })
    if (info && !info.isFile())
      return { kind: 'failed', reason: '.gitignore is a link or not a regular file, so it was left as it is' }
    const read = info ? await readConfigText(file) : null
    if (read?.kind === 'refused') return { kind: 'failed', reason: `.gitignore: ${read.reason}` }
    const text = read?.kind === 'read' ? read.text : ''
    const lines = text.split(/\r?\n/).map((line) => line.trim())
    if (lines.includes(LOCAL_SETTINGS) || lines.includes(`/${LOCAL_SETTINGS}`))
      return { kind: 'already-ignored' }
    const eol = text.includes('\r\n') ? '\r\n' : '\n'
    const separator = text === '' || text.endsWith('\n') ? '' : eol
    await writeAtomically(file, `${text}${separator}${LOCAL_SETTINGS}${eol}`, workspace)
    return { kind: 'added', file }
  } catch (err) {
    return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) }
  }
}

/** Whether git ignores `relPath` in `cwd`; `unknown` when git is not installed (the caller checks the file). */
async function gitIgnores(cwd: string, relPath: string): Promise<boolean | 'not-a-repository'> {
  // Never a git found in the workspace (a PATH entry there): it would run with the user's rights.
  const git = findHostProgram('git', { path: process.env.PATH, unsafe: [cwd] })
  if (git === undefined) return insideRepository(cwd) ? false : 'not-a-repository'
  const { execFile } = await import('node:child_process')
  return new Promise((resolve) => {
    execFile(
      git,
      ['--no-pager', '-c', 'core.fsmonitor=false', 'check-ignore', '-q', '--', relPath],
      { cwd, timeout: 3000, windowsHide: true, env: readOnlyGitEnv(process.env) },
      (error, _stdout, stderr) => {
        if (!error) return resolve(true)
        const code = (error as { code?: unknown }).code
        if (code === 1) return resolve(false)
        if (/not a git repository/i.test(String(stderr))) return resolve('not-a-repository')
        // git missing or failing: a repository is one with a .git folder (or file) above the workspace.
        resolve(insideRepository(cwd) ? false : 'not-a-repository')
      },
    )
  })
}

function insideRepository(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return true
    if (dirname(at) === at) return false
  }
}

/**
 * "Always allow": adds `rule` to the local settings file, then makes sure git ignores that file. What the
 * second step did (or could not do) comes back as a notice; only a failure to save the rule throws.
 */
export async function saveAlwaysRule(
  localSettingsPath: string,
  workspace: string,
  rule: string,
): Promise<{ level: 'info' | 'warn'; text: string } | undefined> {
  // The file is read and rewritten: through a link a repository committed (to ~/.docker/config.json, or
  // `.agent-tui` to a folder elsewhere) that would copy the user's file into the workspace, or write
  // outside it.
  const [real, root] = await Promise.all([realPathOf(localSettingsPath), realPathOf(workspace)])
  if (real !== join(root, relative(workspace, localSettingsPath)))
    throw new ConfigError(
      `cannot save ${rule}: ${LOCAL_SETTINGS} is a link (it leads to ${real}); remove the link first`,
      { file: localSettingsPath },
    )
  await appendAllowRule(localSettingsPath, rule, workspace)
  const ignored = await ignoreLocalSettings(workspace)
  if (ignored.kind === 'added')
    return {
      level: 'info',
      text: `Added ${LOCAL_SETTINGS} to .gitignore: your saved rules stay out of commits.`,
    }
  if (ignored.kind === 'failed')
    return {
      level: 'warn',
      text: `Saved ${rule}, but could not add ${LOCAL_SETTINGS} to .gitignore (${ignored.reason}); add it yourself so it is not committed.`,
    }
  return undefined
}
