import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RuleSet } from '../../../source/permissions/policy.js'
import { parseRule } from '../../../source/permissions/rules.js'
import {
  type InstructionFile,
  type ReadBoundary,
  readConfigText,
  readInstructionFile,
} from '../../../source/tools/instruction-file.js'

/**
 * The read boundary for the files agent-tui reads into the prompt without a tool call (AGENTS.md, memory,
 * commands, skills, agents): real files in the folders they may come from, never a link to a secret, a
 * kernel file or a FIFO. Real files and links in a temp tree.
 */

let root: string
let ws: string
let home: string
let added: string
let config: string

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'instruction-file-')))
  ws = join(root, 'work')
  home = join(root, 'home')
  added = join(root, 'added')
  config = join(home, '.config', 'agent-tui')
  for (const dir of [ws, join(ws, 'secret'), join(home, '.ssh'), added, join(config, 'commands')])
    await mkdir(dir, { recursive: true })
  await writeFile(join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\n')
  await writeFile(join(ws, 'notes.md'), 'workspace notes\n')
  await writeFile(join(ws, 'secret', 'plan.md'), 'secret plan\n')
  await writeFile(join(ws, '.env'), 'KEY=1\n')
  await writeFile(join(added, 'shared.md'), 'shared notes\n')
  await writeFile(join(root, 'outside.md'), 'outside notes\n')
  await writeFile(join(config, 'commands', 'mine.md'), 'my command\n')
  await writeFile(join(ws, 'huge.md'), 'x'.repeat(1024 * 1024))
  execFileSync('mkfifo', [join(ws, 'fifo.md')])
  const links: Array<[string, string]> = [
    ['to-key.md', join(home, '.ssh', 'id_rsa')],
    ['to-environ.md', '/proc/self/environ'],
    ['to-zero.md', '/dev/zero'],
    ['to-fifo.md', join(ws, 'fifo.md')],
    ['to-notes.md', 'notes.md'],
    ['to-added.md', join(added, 'shared.md')],
    ['to-secret-dir.md', 'secret/plan.md'],
    ['to-env.md', '.env'],
    ['to-outside.md', join(root, 'outside.md')],
    ['to-nothing.md', 'gone.md'],
    ['loop-a.md', 'loop-b.md'],
    ['loop-b.md', 'loop-a.md'],
  ]
  for (const [name, target] of links) await symlink(target, join(ws, name))
  await symlink(join(home, '.ssh', 'id_rsa'), join(config, 'commands', 'key.md'))
  await symlink(join(ws, 'notes.md'), join(config, 'commands', 'into-workspace.md'))
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

function boundary(rules: Partial<Record<keyof RuleSet, string[]>> = {}): ReadBoundary {
  // The table is written before the temp tree exists: `$ROOT` stands for it.
  const parse = (list: string[] = []) => list.map((r) => parseRule(r.replace('$ROOT', root), 'settings.json'))
  const parsed: RuleSet = { allow: parse(rules.allow), ask: parse(rules.ask), deny: parse(rules.deny) }
  return { workspace: ws, home, additionalDirs: [added], rules: () => parsed }
}

type Expect = { text: string } | { refused: RegExp } | 'missing'

function check(result: InstructionFile, want: Expect): void {
  if (want === 'missing') {
    expect(result).toEqual({ kind: 'missing' })
  } else if ('text' in want) {
    expect(result.kind).toBe('read')
    if (result.kind === 'read') expect(result.text).toBe(want.text)
  } else {
    expect(result.kind).toBe('refused')
    if (result.kind === 'refused') expect(result.reason).toMatch(want.refused)
  }
}

describe('readInstructionFile', () => {
  const cases: Array<{ name: string; file: string; want: Expect; rules?: Parameters<typeof boundary>[0] }> = [
    { name: 'a file in the workspace', file: 'notes.md', want: { text: 'workspace notes\n' } },
    { name: 'a link to a file in the workspace', file: 'to-notes.md', want: { text: 'workspace notes\n' } },
    { name: 'a link into an added directory', file: 'to-added.md', want: { text: 'shared notes\n' } },
    {
      name: 'a link into ~/.ssh',
      file: 'to-key.md',
      want: { refused: /reads outside the workspace and the added directories need consent .*id_rsa/ },
    },
    {
      name: 'a link to /proc/self/environ',
      file: 'to-environ.md',
      want: { refused: /resolves to \/proc\/\d+\/environ, which is in \/proc/ },
    },
    { name: 'a link to /dev/zero', file: 'to-zero.md', want: { refused: /in \/dev/ } },
    { name: 'a FIFO', file: 'fifo.md', want: { refused: /not a regular file/ } },
    { name: 'a link to a FIFO', file: 'to-fifo.md', want: { refused: /not a regular file/ } },
    {
      name: 'a link to a secrets file in the workspace',
      file: 'to-env.md',
      want: { refused: /reads of secrets files \(\.env\) need consent/ },
    },
    {
      name: 'a link outside, with the rule that would let it in',
      file: 'to-outside.md',
      want: { refused: /an allow rule Read\(.*\) in your user settings would let it in/ },
    },
    {
      name: 'a link outside that an allow rule names',
      file: 'to-outside.md',
      rules: { allow: ['Read(/$ROOT/outside.md)'] },
      want: { text: 'outside notes\n' },
    },
    {
      name: 'a bare Read allow rule does not open the boundary',
      file: 'to-key.md',
      rules: { allow: ['Read'] },
      want: { refused: /need consent/ },
    },
    {
      name: 'a deny rule on the link target',
      file: 'to-secret-dir.md',
      rules: { deny: ['Read(secret/**)'] },
      want: { refused: /rule Read\(secret\/\*\*\) in settings\.json denies/ },
    },
    {
      name: 'a deny rule on the name',
      file: 'notes.md',
      rules: { deny: ['Read(notes.md)'] },
      want: { refused: /rule Read\(notes\.md\) in settings\.json denies/ },
    },
    {
      name: 'an ask rule (nobody is asked)',
      file: 'notes.md',
      rules: { ask: ['Read(*.md)'] },
      want: { refused: /rule Read\(\*\.md\) in settings\.json asks/ },
    },
    { name: 'a missing file', file: 'absent.md', want: 'missing' },
    { name: 'a link to nothing', file: 'to-nothing.md', want: 'missing' },
    { name: 'a loop of links', file: 'loop-a.md', want: { refused: /loop of symbolic links/ } },
    { name: 'a directory', file: 'secret', want: { refused: /is a directory/ } },
  ]
  it.each(cases)('$name', async ({ file, want, rules }) => {
    check(await readInstructionFile(join(ws, file), boundary(rules)), want)
  })

  it('reads at most maxBytes of a huge file and says it was cut', async () => {
    const result = await readInstructionFile(join(ws, 'huge.md'), boundary(), { maxBytes: 1000 })
    expect(result).toMatchObject({ kind: 'read', size: 1024 * 1024, truncated: true })
    if (result.kind === 'read') expect(result.text.length).toBe(1000)
  })

  it('the default bound is 256 KB', async () => {
    const result = await readInstructionFile(join(ws, 'huge.md'), boundary())
    expect(result).toMatchObject({ kind: 'read', truncated: true })
    if (result.kind === 'read') expect(result.text.length).toBe(256 * 1024)
  })

  it("the user's config dir is allowed for user-level files, but a link from it into ~/.ssh is not", async () => {
    const user = { allowedDirs: [config] }
    check(await readInstructionFile(join(config, 'commands', 'mine.md'), boundary(), user), {
      text: 'my command\n',
    })
    check(await readInstructionFile(join(config, 'commands', 'key.md'), boundary(), user), {
      refused: /need consent .*\.ssh\/id_rsa/,
    })
    check(await readInstructionFile(join(config, 'commands', 'into-workspace.md'), boundary(), user), {
      text: 'workspace notes\n',
    })
    // Without the allowance the config dir is outside like any other folder.
    check(await readInstructionFile(join(config, 'commands', 'mine.md'), boundary()), {
      refused: /need consent/,
    })
  })
})

describe('readConfigText', () => {
  it.each<[string, Expect]>([
    ['notes.md', { text: 'workspace notes\n' }],
    // Settings may be a link to a shared file: not held to the boundary, only to being a real file.
    ['to-outside.md', { text: 'outside notes\n' }],
    ['to-environ.md', { refused: /in \/proc/ }],
    ['fifo.md', { refused: /not a regular file/ }],
    ['to-zero.md', { refused: /in \/dev/ }],
    ['secret', { refused: /is a directory/ }],
    ['absent.md', 'missing'],
  ])('%s', async (file, want) => {
    check(await readConfigText(join(ws, file)), want)
  })

  it('refuses a file over the limit rather than cutting it', async () => {
    check(await readConfigText(join(ws, 'huge.md'), 1000), { refused: /is over 1 KB/ })
  })
})
