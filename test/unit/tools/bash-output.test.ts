import { readFileSync, statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createBashTool } from '../../../source/tools/bash.js'
import { createOutputSpiller } from '../../../source/tools/spill.js'
import { createTestEnv, run, type TestEnv } from './helpers.js'

const bash = createBashTool({ isReadOnlyCommand: () => false })

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(() => env.cleanup())

/** `seq 1 n` as the command prints it. */
const seq = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}\n`).join('')

/** The inline view's parts: what precedes the marker, the marker's numbers and what follows it. */
function splitView(forModel: string) {
  const body = forModel.slice(0, forModel.lastIndexOf('\n\nExit code'))
  const match = /\n… (\d+) chars \((\d+) lines\) omitted; ([^\n]*) …\n/.exec(body)
  if (!match) throw new Error(`no omitted marker in: ${body.slice(0, 200)}…`)
  return {
    head: body.slice(0, match.index),
    tail: body.slice(match.index + match[0].length),
    chars: Number(match[1]),
    lines: Number(match[2]),
    where: match[3] ?? '',
  }
}

describe('Bash output too long to show inline', () => {
  // 700000 numbered lines: 4.7 M characters, past the 4 M characters a command keeps in memory.
  it('says exactly how many characters and lines are not shown, and spills all of the output', async () => {
    const full = seq(700_000)
    const result = await run(bash, { command: 'seq 1 700000' }, env.ctx)
    const view = splitView(result.forModel)
    expect(full.startsWith(view.head)).toBe(true)
    expect(full.endsWith(`${view.tail}\n`)).toBe(true)
    // The body drops the final newline before the status line.
    expect(view.chars).toBe(full.length - view.head.length - view.tail.length - 1)
    const firstHidden = view.head.split('\n').length + 1
    const lastHidden = 700_000 - view.tail.split('\n').length
    expect(view.lines).toBe(lastHidden - firstHidden + 1)
    const path = /^full output: (\S+) \(lines (\d+)–(\d+); Read it with offset\/limit\)$/.exec(view.where)
    expect(path?.slice(2).map(Number)).toEqual([firstHidden, lastHidden])
    expect(env.ctx.spill.isSpillPath(path?.[1] ?? '')).toBe(true)
    expect(readFileSync(path?.[1] ?? '', 'utf8')).toBe(full)
  })

  it('caps the spill file, keeping its start and the latest output, and says so', async () => {
    const spill = createOutputSpiller(join(env.root, 'capped'), { capBytes: 64 * 1024 })
    const full = seq(200_000)
    const result = await run(bash, { command: 'seq 1 200000' }, { ...env.ctx, spill })
    const view = splitView(result.forModel)
    const where =
      /^the output file (\S+) keeps the first 8 KiB and the latest output: it is capped at 64 KiB, and (\d+) bytes were cut from its middle \(Read it with offset\/limit\)$/.exec(
        view.where,
      )
    expect(where).not.toBeNull()
    const file = where?.[1] ?? ''
    expect(statSync(file).size).toBeLessThanOrEqual(64 * 1024)
    const text = readFileSync(file, 'utf8')
    const marker = /\n\[agent-tui: (\d+) bytes of output cut here;[^\n]*\]\n/.exec(text)
    expect(Number(marker?.[1])).toBe(Number(where?.[2]))
    const head = text.slice(0, marker?.index)
    const tail = text.slice((marker?.index ?? 0) + (marker?.[0].length ?? 0))
    expect(full.startsWith(head)).toBe(true)
    expect(full.endsWith(tail)).toBe(true)
    expect(head.length + Number(where?.[2]) + tail.length).toBe(full.length)
    // The inline view still counts against the whole output, not the capped file.
    expect(view.chars).toBe(full.length - view.head.length - view.tail.length - 1)
  })

  it('still bounds the output and says why when the spill file cannot be created', async () => {
    await writeFile(join(env.root, 'blocker'), 'a file where the outputs dir should be')
    const spill = createOutputSpiller(join(env.root, 'blocker', 'outputs'))
    const result = await run(bash, { command: 'seq 1 20000' }, { ...env.ctx, spill })
    const view = splitView(result.forModel)
    expect(view.where).toMatch(/^the full output could not be saved \(.+\)$/)
    expect(result.forModel.length).toBeLessThan(31_000)
  })
})
