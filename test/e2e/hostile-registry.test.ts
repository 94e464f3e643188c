/**
 * Signals reach only what agent-tui owns (issue #30, class 10), end to end: a pid registry left by a
 * "crashed run" names init, a group whose leader is another process now, and a group agent-tui never
 * recorded a start time for. The next start must signal none of them, and say why on stderr.
 *
 * The CLI runs in a PID namespace of its own (bubblewrap --unshare-pid): were the check ever missing, its
 * kill(-1) would reach only what is in that namespace, never the other processes of this machine.
 */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { osSandbox } from '../support/os-sandbox.ts'
import { cliPath } from '../support/run-cli.ts'

const env = setupE2eEnv()

/** Writes the registry inside the namespace: the bystander's and init's start times are read there. */
const SETUP = `
const fs = require('fs'), path = require('path')
const [file, bystander] = process.argv.slice(2)
const start = (pid) => { const s = fs.readFileSync('/proc/' + pid + '/stat', 'utf8'); return s.slice(s.lastIndexOf(')') + 2).split(' ')[19] }
const dead = 4194000
const entry = (pid, pgid, command, ownerPid, leaderStart) =>
  ({ pid, pgid, command, startedAt: 1, ownerPid, kind: 'background', ...(leaderStart ? { leaderStart } : {}) })
const b = Number(bystander)
const entries = [
  entry(1, 1, 'init', dead, start(1)),
  entry(b, b, 'reused pid', dead + 1, String(Number(start(b)) + 1)),
  entry(b, b, 'no start time', dead + 2),
]
fs.mkdirSync(path.dirname(file), { recursive: true })
fs.writeFileSync(file, JSON.stringify({ version: 1, entries }))
`

describe.runIf(osSandbox?.kind === 'bwrap')('a hostile or stale pid registry at start-up', () => {
  it('signals neither init, nor a reused pid, nor a group without a recorded start time', async () => {
    const { root, home, workspace } = env.box
    writeFileSync(join(root, 'setup.cjs'), SETUP)
    const registry = join(home, '.local', 'state', 'agent-tui', 'pids.json')
    env.server.enqueue({ text: 'done' })
    const node = process.execPath
    const cli = [
      cliPath,
      '--base-url',
      env.server.baseUrl,
      '--model',
      'm',
      '-p',
      'go',
      '--output-format',
      'json',
    ]
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
    const script = [
      // A group leader of its own: the process a stale entry's pid now belongs to.
      'setsid sleep 300 & b=$!',
      `${quote(node)} ${quote(join(root, 'setup.cjs'))} ${quote(registry)} $b`,
      `${cli
        .map(quote)
        .join(' ')
        .replace(
          /^/,
          `${quote(node)} `,
        )} > ${quote(join(root, 'out.json'))} 2> ${quote(join(root, 'err.txt'))}`,
      'echo "cli=$?"',
      'kill -0 $b && echo BYSTANDER-ALIVE',
      'kill $b',
    ].join('\n')
    const child = spawn(
      'bwrap',
      [
        '--dev-bind',
        '/',
        '/',
        '--unshare-pid',
        '--proc',
        '/proc',
        '--die-with-parent',
        '--',
        'bash',
        '-c',
        script,
      ],
      { cwd: workspace, env: env.box.env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      out += d
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    const stderr = readFileSync(join(root, 'err.txt'), 'utf8')
    expect(code, `${out}\n${stderr}`).toBe(0)
    expect(out).toContain('cli=0')
    expect(out).toContain('BYSTANDER-ALIVE')
    expect(stderr).toMatch(
      /left an entry of the background job registry alone \(init\): process group 1 is init/,
    )
    expect(stderr).toMatch(/\(no start time\): no start time was recorded for process group \d+/)
    // A pid that is another process now is only stale: dropped without a word, and never signalled.
    expect(stderr).not.toContain('reused pid')
    expect(JSON.parse(readFileSync(join(root, 'out.json'), 'utf8')).result).toBe('done')
  })
})
