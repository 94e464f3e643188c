/**
 * Checkpoints and --rewind-to against the built CLI and the scripted server: a turn that edits two files,
 * runs `sed -i` on a third and `rm` on a fourth is rewound (files and conversation), the rewind undone,
 * and the project's own repository — its .git, index and stash — is never touched.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { fingerprint } from '../unit/checkpoints/helpers.ts'

const env = setupE2eEnv()
const { cli } = env

function git(args: string[]): string {
  return execFileSync('git', args, {
    cwd: env.box.workspace,
    env: {
      PATH: process.env.PATH,
      HOME: env.box.home,
      GIT_CONFIG_NOSYSTEM: '1',
      // Reading the status must not refresh the index: the test compares the index file's bytes and mtime.
      GIT_OPTIONAL_LOCKS: '0',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
    encoding: 'utf8',
  })
}

const ORIGINAL = { 'a.txt': 'alpha\n', 'b.txt': 'bravo\n', 'c.txt': 'charlie\n', 'd.txt': 'delta\n' }

async function files(): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {}
  for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']) {
    out[name] = await readFile(join(env.box.workspace, name), 'utf8').catch(() => null)
  }
  return out
}

/** A repository with a commit, a stash and a staged change; the agent's turn then changes four files. */
async function agentTurn() {
  for (const [name, text] of Object.entries(ORIGINAL)) await writeFile(join(env.box.workspace, name), text)
  git(['init', '-q'])
  git(['add', '.'])
  git(['commit', '-qm', 'start'])
  await writeFile(join(env.box.workspace, 'a.txt'), 'stashed work\n')
  git(['stash', '-q'])
  await writeFile(join(env.box.workspace, 'notes.md'), 'staged\n')
  git(['add', 'notes.md'])
  const dotGit = await fingerprint(join(env.box.workspace, '.git'))
  const stashes = git(['stash', 'list'])

  env.server.enqueue(
    {
      toolCalls: [
        { name: 'Read', arguments: { file_path: 'a.txt' } },
        { name: 'Read', arguments: { file_path: 'b.txt' } },
      ],
    },
    {
      toolCalls: [
        { name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' } },
      ],
    },
    {
      toolCalls: [
        { name: 'Edit', arguments: { file_path: 'b.txt', old_string: 'bravo', new_string: 'BRAVO' } },
      ],
    },
    { toolCalls: [{ name: 'Bash', arguments: { command: 'sed -i s/charlie/CHARLIE/ c.txt' } }] },
    { toolCalls: [{ name: 'Bash', arguments: { command: 'rm d.txt && echo new > e.txt' } }] },
    { text: 'Changed four files.' },
  )
  const r = await cli(['-p', 'change the four files', '--mode', 'dangerous'])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  expect(await files()).toEqual({
    'a.txt': 'ALPHA\n',
    'b.txt': 'BRAVO\n',
    'c.txt': 'CHARLIE\n',
    'd.txt': null,
    'e.txt': 'new\n',
  })
  return { dotGit, stashes }
}

describe('--rewind-to', () => {
  it('restores all four files and the conversation, undo brings the changes back, .git is untouched', async () => {
    const { dotGit, stashes } = await agentTurn()
    const changed = await files()

    const list = await cli(['--continue', '--rewind-to', 'list'])
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(
      /^ {2}1 {2}turn-\S+ {2}“change the four files” {2}files: a\.txt, b\.txt, c\.txt, d\.txt, e\.txt$/m,
    )

    const dry = await cli(['--continue', '--rewind-to', '1', '--dry-run'])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain(
      'Dry run: rewind to the start of turn 1 “change the four files” (code and conversation)',
    )
    expect(dry.stdout).toContain('  delete   e.txt')
    expect(await files()).toEqual(changed)

    const rewound = await cli(['--continue', '--rewind-to', '1'])
    expect(rewound.stderr).toBe('')
    expect(rewound.code).toBe(0)
    expect(rewound.stdout.split('\n').slice(1, 7)).toEqual([
      '  restored  a.txt',
      '  restored  b.txt',
      '  restored  c.txt',
      '  restored  d.txt',
      '  deleted   e.txt',
      '  conversation: back to before this turn (1 turn removed)',
    ])
    expect(rewound.stdout).toMatch(/Undo with: agent-tui --resume \S+ --rewind-to undo/)
    expect(await files()).toEqual({ ...ORIGINAL, 'e.txt': null })

    const undone = await cli(['--continue', '--rewind-to', 'undo', '--output-format', 'json'])
    expect(undone.code).toBe(0)
    expect(JSON.parse(undone.stdout)).toMatchObject({
      type: 'rewind',
      scope: 'both',
      applied: true,
      restore: ['a.txt', 'b.txt', 'c.txt', 'e.txt'],
      remove: ['d.txt'],
    })
    expect(await files()).toEqual(changed)

    // Rewind again, then talk on: the model sees none of the rewound turn, and the history stays paired.
    await cli(['--continue', '--rewind-to', '1'])
    env.server.enqueue({ text: 'fresh start' })
    const next = await cli(['--continue', '-p', 'what now?'])
    expect(next.stdout).toBe('fresh start\n')
    const messages = env.server.requests.at(-1)?.body.messages as Array<{ role: string; content: string }>
    expect(messages.filter((m) => m.role !== 'system')).toEqual([{ role: 'user', content: 'what now?' }])

    // The project's repository: same .git files (bytes and mtimes), same stash, same status.
    expect(await fingerprint(join(env.box.workspace, '.git'))).toEqual(dotGit)
    expect(git(['stash', 'list'])).toBe(stashes)
    expect(git(['status', '--porcelain'])).toBe('A  notes.md\n')
  })

  it('keeps a file changed outside the agent since the checkpoint unless --force, and says so', async () => {
    await agentTurn()
    await writeFile(join(env.box.workspace, 'a.txt'), 'edited by hand\n')
    const kept = await cli(['--continue', '--rewind-to', '1', '--rewind-scope', 'code'])
    expect(kept.code).toBe(0)
    expect(kept.stdout).toContain(
      '  kept     a.txt  (changed outside the agent since the checkpoint; --force restores it)',
    )
    expect((await files())['a.txt']).toBe('edited by hand\n')
    expect((await files())['b.txt']).toBe('bravo\n')

    const forced = await cli(['--continue', '--rewind-to', '1', '--rewind-scope', 'code', '--force'])
    expect(forced.stdout).toContain('  restored  a.txt')
    expect((await files())['a.txt']).toBe('alpha\n')
  })

  it('says what is wrong with a turn that does not exist or a session that is missing', async () => {
    const none = await cli(['--continue', '--rewind-to', '1'])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('no previous session')
    await agentTurn()
    const bad = await cli(['--continue', '--rewind-to', '7'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('agent-tui: no turn 7: this conversation has turns 1–1\n')
  })

  it('a nested repository without a commit (a hostile repository plants one) does not switch checkpoints off', async () => {
    await writeFile(join(env.box.workspace, 'a.txt'), 'alpha\n')
    git(['init', '-q'])
    git(['add', '.'])
    git(['commit', '-qm', 'start'])
    await mkdir(join(env.box.workspace, 'vendor', 'empty'), { recursive: true })
    await writeFile(join(env.box.workspace, 'vendor', 'empty', 'x.txt'), 'x\n')
    execFileSync('git', ['init', '-q'], { cwd: join(env.box.workspace, 'vendor', 'empty') })
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: 'a.txt' } }] },
      {
        toolCalls: [
          { name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' } },
        ],
      },
      { text: 'done' },
    )
    const r = await cli(['-p', 'edit', '--mode', 'auto'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    expect((await files())['a.txt']).toBe('ALPHA\n')
    const rewound = await cli(['--continue', '--rewind-to', '1', '--rewind-scope', 'code'])
    expect(rewound.stdout).toContain('  restored  a.txt')
    expect((await files())['a.txt']).toBe('alpha\n')
  })
})
