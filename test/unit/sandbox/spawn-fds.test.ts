/**
 * The descriptors a sandboxed spawn gets: the caller's stdio, the filter's pipe, and /dev/null over
 * every descriptor agent-tui inherited open (a socket to a host daemon among them would otherwise
 * reach the command with no socket() or connect() at all).
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { inheritedDescriptors, type SandboxFds, sandboxStdio } from '../../../source/sandbox/spawn-fds.js'

describe('sandboxStdio', () => {
  it.each<[string, Parameters<typeof sandboxStdio>[0], SandboxFds, ReturnType<typeof sandboxStdio>]>([
    [
      'the filter pipe after the info pipe',
      ['ignore', 'pipe', 'pipe', 'pipe'],
      { inputFd: 4, covered: [] },
      ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    ],
    [
      'the filter pipe at 3 when there is no info pipe',
      ['ignore', 7, 7],
      { inputFd: 3, covered: [] },
      ['ignore', 7, 7, 'pipe'],
    ],
    [
      '/dev/null over inherited descriptors no entry replaces',
      ['ignore', 'pipe', 'pipe', 'pipe'],
      { inputFd: 4, covered: [3, 5, 9], devNull: 42 },
      ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 42, 'ignore', 'ignore', 'ignore', 42],
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
    expect(() => sandboxStdio(['ignore', 'pipe', 'pipe', 'pipe'], { inputFd: 3, covered: [] })).toThrow(
      "descriptor 3 is the caller's",
    )
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
