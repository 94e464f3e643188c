/**
 * The sandbox hides secrets that are not in ~/.ssh (issue #30, class 7), with real bubblewrap:
 * agent-tui's own state and config dirs (other sessions' logs and outputs, the trust store, sign-ins,
 * checkpoints, debug logs) and shell histories are unreadable inside, while the session's own outputs
 * dir — inside the hidden state dir — stays writable.
 */
import { existsSync } from 'node:fs'
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createBashSandbox } from '../../../source/sandbox/bash-sandbox.js'
import { type ShellProcess, startShell } from '../../../source/tools/shell-process.js'
import { osSandbox } from '../../support/os-sandbox.ts'
import { makeTempDir } from '../tasks/helpers.js'

let root: string
let home: string
let ws: string
let state: string
let config: string
let outputs: string
let cleanup: () => Promise<void>
const shells: ShellProcess[] = []

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

beforeEach(async () => {
  const temp = await makeTempDir()
  root = await realpath(temp.dir)
  cleanup = temp.cleanup
  home = join(root, 'home')
  ws = join(root, 'ws')
  state = join(home, '.local', 'state', 'agent-tui')
  config = join(home, '.config', 'agent-tui')
  outputs = join(state, 'outputs', 's1')
  await mkdir(ws, { recursive: true })
  await mkdir(outputs, { recursive: true })
})

afterEach(async () => {
  for (const shell of shells.splice(0)) await shell.kill(0)
  await cleanup()
})

async function run(command: string, env: Record<string, string> = {}): Promise<string> {
  const status = await createBashSandbox({
    network: false,
    projectRoots: [ws],
    scratchRoots: [outputs],
    ownSecrets: [config, state],
    env: { ...process.env, HOME: home, ...env },
  }).status()
  if (status.kind !== 'on') throw new Error(`the sandbox should work here: ${JSON.stringify(status)}`)
  const shell = startShell({ command, cwd: ws, sandbox: status.sandbox })
  shells.push(shell)
  let out = ''
  shell.onOutput((chunk) => {
    out += chunk
  })
  await shell.exited
  return out
}

const SECRET = 'SECRET-'

describe.runIf(osSandbox?.kind === 'bwrap')('what the sandbox hides', () => {
  it('agent-tui’s state and config: other sessions, trust store, sign-ins, checkpoints, debug logs', async () => {
    const files = [
      join(state, 'sessions', '-home-u-other', 'old-session.jsonl'),
      join(state, 'trusted-folders.json'),
      join(state, 'mcp-oauth.json'),
      join(state, 'debug', 'run.log'),
      join(state, 'checkpoints', '-home-u-other-1234', 'config'),
      join(state, 'outputs', 's0', 'spill-1.txt'),
      join(config, 'settings.json'),
      // The setup form's stored API keys.
      join(config, 'credentials.json'),
    ]
    for (const [i, file] of files.entries()) await put(file, `${SECRET}${i}\n`)
    const out = await run(
      `for f in ${files.join(' ')}; do cat "$f"; done 2>&1; ls -A ${state}; ls -A ${state}/outputs`,
    )
    expect(out).not.toContain(SECRET)
    expect(out.match(/No such file or directory/g)).toHaveLength(files.length)
    // Only the way to this session's outputs is there.
    expect(out.split('\n').slice(-3)).toEqual(['outputs', 's1', ''])
    for (const file of files) expect(await readFile(file, 'utf8')).toContain(SECRET)
  })

  it('the session’s outputs dir stays writable inside the hidden state dir; the rest of it is read-only', async () => {
    const out = await run(
      `echo kept > ${outputs}/probe && cat ${outputs}/probe; mkdir -p ${outputs}/tasks && echo ok > ${outputs}/tasks/x && echo tasks-ok; ` +
        `touch ${state}/planted 2>&1; mkdir ${state}/outputs/s2 2>&1`,
    )
    expect(out).toContain('kept\ntasks-ok\n')
    expect(out.match(/Read-only file system/g)).toHaveLength(2)
    expect(await readFile(join(outputs, 'probe'), 'utf8')).toBe('kept\n')
    expect(existsSync(join(state, 'planted'))).toBe(false)
    expect(existsSync(join(state, 'outputs', 's2'))).toBe(false)
  })

  it('shell and REPL histories, and the one $HISTFILE names', async () => {
    const names = [
      '.bash_history',
      '.zsh_history',
      '.zhistory',
      '.local/share/fish/fish_history',
      '.python_history',
      '.node_repl_history',
      '.psql_history',
      '.mysql_history',
      '.sqlite_history',
      '.lesshst',
      '.viminfo',
      'elsewhere/my_history',
    ]
    for (const name of names) await put(join(home, name), `${SECRET}${name}\n`)
    const out = await run(`for f in ${names.map((n) => join(home, n)).join(' ')}; do cat "$f"; done 2>&1`, {
      HISTFILE: join(home, 'elsewhere', 'my_history'),
    })
    expect(out).not.toContain(SECRET)
    // /dev/null is bound over each, on a mount without devices.
    expect(out.match(/Permission denied/g)).toHaveLength(names.length)
  })

  it('other tools’ and agents’ credentials and transcripts', async () => {
    const names = [
      '.config/containers/auth.json',
      '.claude/.credentials.json',
      '.claude/projects/-home-u-other/t.jsonl',
      '.codex/auth.json',
      '.gradle/gradle.properties',
      '.Xauthority',
    ]
    for (const name of names) await put(join(home, name), `${SECRET}${name}\n`)
    const out = await run(`for f in ${names.map((n) => join(home, n)).join(' ')}; do cat "$f"; done 2>&1`)
    expect(out).not.toContain(SECRET)
  })
})
