/**
 * The descriptors a sandboxed spawn gets: the caller's stdio, the filter's pipe, and /dev/null over
 * every descriptor agent-tui inherited open (a socket to a host daemon among them would otherwise
 * reach the command with no socket() or connect() at all).
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, readlinkSync, readSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  createInputFile,
  inheritedDescriptors,
  type SandboxFds,
  sandboxStdio,
} from '../../../source/sandbox/spawn-fds.js'

describe('sandboxStdio', () => {
  it.each<[string, Parameters<typeof sandboxStdio>[0], SandboxFds, ReturnType<typeof sandboxStdio>]>([
    [
      'the filter after the info pipe',
      ['ignore', 'pipe', 'pipe', 'pipe'],
      { input: { at: 4, from: 77 }, covered: [] },
      ['ignore', 'pipe', 'pipe', 'pipe', 77],
    ],
    [
      'the filter at 3 when there is no info pipe',
      ['ignore', 7, 7],
      { input: { at: 3, from: 77 }, covered: [] },
      ['ignore', 7, 7, 77],
    ],
    [
      '/dev/null over inherited descriptors no entry replaces',
      ['ignore', 'pipe', 'pipe', 'pipe'],
      { input: { at: 4, from: 77 }, covered: [3, 5, 9], devNull: 42 },
      ['ignore', 'pipe', 'pipe', 'pipe', 77, 42, 'ignore', 'ignore', 'ignore', 42],
    ],
    [
      'an ignored slot above 2 keeps what was there: covered too',
      ['ignore', 'pipe', 'pipe', 'ignore'],
      { covered: [3], devNull: 42 },
      ['ignore', 'pipe', 'pipe', 42],
    ],
    [
      'nothing to add (macOS: no filter, no /proc)',
      ['ignore', 'pipe', 'pipe'],
      { covered: [] },
      ['ignore', 'pipe', 'pipe'],
    ],
  ])('%s', (_label, base, fds, expected) => {
    expect(sandboxStdio(base, fds)).toEqual(expected)
  })

  it('refuses a filter descriptor that is the caller’s', () => {
    expect(() =>
      sandboxStdio(['ignore', 'pipe', 'pipe', 'pipe'], { input: { at: 3, from: 77 }, covered: [] }),
    ).toThrow("descriptor 3 is the caller's")
  })
})

describe.runIf(process.platform === 'linux')('inheritedDescriptors', () => {
  it('finds a descriptor this process was started with, not its own close-on-exec ones', async () => {
    // A child Node started with an extra pipe at 40, as a careless parent would leave one (Node marks
    // the low ones close-on-exec at start-up, not all).
    const module = join(import.meta.dirname, '..', '..', '..', 'source', 'sandbox', 'spawn-fds.ts')
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { inheritedDescriptors } from ${JSON.stringify(module)}; console.log(JSON.stringify(inheritedDescriptors()))`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit', ...Array<'ignore'>(37).fill('ignore'), 'pipe'] },
    )
    let out = ''
    child.stdout?.on('data', (chunk) => {
      out += chunk
    })
    await new Promise((resolve) => child.on('close', resolve))
    expect(JSON.parse(out)).toContain(40)
    expect(inheritedDescriptors().every((fd) => fd > 2)).toBe(true)
  })
})

describe.runIf(process.platform === 'linux')('createInputFile', () => {
  it('gives each spawn its own descriptor that reads the bytes from the start, and leaves no file behind', () => {
    const file = createInputFile(new Uint8Array([1, 2, 3, 4]))
    for (let i = 0; i < 2; i++) {
      const fd = file.open()
      // Unlinked, its directory too: nothing on disk to swap or leave behind.
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      expect(target).toMatch(/agent-tui-input-.*\/input \(deleted\)$/)
      expect(existsSync(dirname(target))).toBe(false)
      const buffer = Buffer.alloc(16)
      expect(readSync(fd, buffer)).toBe(4)
      expect([...buffer.subarray(0, 4)]).toEqual([1, 2, 3, 4])
      closeSync(fd)
    }
  })
})
