import { describe, expect, it } from 'vitest'
import { buildSeatbeltArgs, type SeatbeltPlan } from '../../../source/sandbox/seatbelt-profile.js'

const command = ['bash', '-c', 'true']

function plan(over: Partial<SeatbeltPlan> = {}): SeatbeltPlan {
  return {
    fence: {
      writable: ['/Users/u/proj', '/Users/u/.local/state/agent-tui/outputs/s1'],
      readOnly: ['/Users/u/proj/.git'],
      reserved: ['/Users/u/proj/.agent-tui'],
    },
    network: false,
    tempDirs: ['/private/tmp', '/private/var/folders/xy/T'],
    files: ['/private/var/folders/xy/T/agent-tui-cwd-1'],
    ...over,
  }
}

function parse(args: string[]) {
  expect(args[0]).toBe('-p')
  const profile = args[1]!
  const end = args.indexOf('--')
  const params = Object.fromEntries(
    args.slice(2, end).map((arg) => {
      expect(arg.startsWith('-D')).toBe(true)
      const eq = arg.indexOf('=')
      return [arg.slice(2, eq), arg.slice(eq + 1)]
    }),
  )
  return { profile, params: params as Record<string, string>, command: args.slice(end + 1) }
}

describe('buildSeatbeltArgs', () => {
  it('denies by default, reads everywhere, and writes only where a clause allows', () => {
    const { profile, command: cmd } = parse(buildSeatbeltArgs(plan(), command))
    expect(profile).toMatch(/^\(version 1\)\n\(deny default\)/)
    expect(profile).toContain('(allow file-read*)')
    // The one broad write rule is the list of writable places; the other writes are single devices.
    expect(profile.match(/\(allow file-write\*/g)).toHaveLength(2)
    expect(cmd).toEqual(command)
  })

  it('passes every path as a parameter: the profile text names none', () => {
    const { profile, params } = parse(buildSeatbeltArgs(plan(), command))
    expect(params).toEqual({
      WRITABLE_ROOT_0: '/Users/u/proj',
      WRITABLE_ROOT_0_RO_0: '/Users/u/proj/.git',
      WRITABLE_ROOT_0_RO_1: '/Users/u/proj/.agent-tui',
      WRITABLE_ROOT_1: '/Users/u/.local/state/agent-tui/outputs/s1',
      TEMP_DIR_0: '/private/tmp',
      TEMP_DIR_1: '/private/var/folders/xy/T',
      FILE_0: '/private/var/folders/xy/T/agent-tui-cwd-1',
    })
    for (const value of Object.values(params)) expect(profile).not.toContain(value)
  })

  it('keeps .git and .agent-tui read-only inside the workspace, created or not', () => {
    const { profile } = parse(buildSeatbeltArgs(plan(), command))
    expect(profile).toContain(
      '(require-all (subpath (param "WRITABLE_ROOT_0")) ' +
        '(require-not (literal (param "WRITABLE_ROOT_0_RO_0"))) (require-not (subpath (param "WRITABLE_ROOT_0_RO_0"))) ' +
        '(require-not (literal (param "WRITABLE_ROOT_0_RO_1"))) (require-not (subpath (param "WRITABLE_ROOT_0_RO_1"))))',
    )
    expect(profile).toContain('  (subpath (param "WRITABLE_ROOT_1"))')
    expect(profile).toContain('  (subpath (param "TEMP_DIR_0"))')
    expect(profile).toContain('  (literal (param "FILE_0"))')
  })

  it('keeps a missing start-up file (~/.zshenv) from being created, which bubblewrap cannot', () => {
    const fence = { writable: ['/Users/u'], readOnly: [], reserved: [], reservedFiles: ['/Users/u/.zshenv'] }
    const { profile, params } = parse(buildSeatbeltArgs(plan({ fence }), command))
    expect(params.WRITABLE_ROOT_0_RO_0).toBe('/Users/u/.zshenv')
    expect(profile).toContain('(require-not (literal (param "WRITABLE_ROOT_0_RO_0")))')
  })

  it.each([
    [false, false],
    [true, true],
  ])('network %s → network rules %s', (network, allowed) => {
    const { profile } = parse(buildSeatbeltArgs(plan({ network }), command))
    expect(profile.includes('(allow network*)')).toBe(allowed)
    expect(profile.includes('(allow system-socket)')).toBe(allowed)
  })

  it('a path with quotes and parentheses cannot change the policy', () => {
    const evil = '/Users/u/EVIL") (allow file-write* (subpath "/'
    const { profile, params } = parse(
      buildSeatbeltArgs(plan({ fence: { writable: [evil], readOnly: [], reserved: [] } }), command),
    )
    expect(params.WRITABLE_ROOT_0).toBe(evil)
    expect(profile).not.toContain('EVIL')
  })

  it('is the same text whatever the paths are (only the -D values change)', () => {
    const a = parse(buildSeatbeltArgs(plan(), command)).profile
    const b = parse(
      buildSeatbeltArgs(
        plan({
          fence: { writable: ['/a', '/b'], readOnly: ['/a/.git'], reserved: ['/a/.agent-tui'] },
          tempDirs: ['/t1', '/t2'],
          files: ['/t2/f'],
        }),
        command,
      ),
    ).profile
    expect(b).toBe(a)
  })

  it('hides secret stores from reads and writes, by parameter', () => {
    const { profile, params } = parse(
      buildSeatbeltArgs(
        plan({
          fence: {
            writable: ['/Users/u/proj'],
            readOnly: [],
            reserved: [],
            hidden: [
              { path: '/Users/u/.ssh', kind: 'dir' },
              { path: '/Users/u/.netrc', kind: 'file' },
            ],
          },
        }),
        command,
      ),
    )
    expect(params.HIDDEN_0).toBe('/Users/u/.ssh')
    expect(params.HIDDEN_1).toBe('/Users/u/.netrc')
    expect(profile).toContain(
      '(deny file-read* file-write*\n  (subpath (param "HIDDEN_0"))\n  (literal (param "HIDDEN_1")))',
    )
    // After the allows, so it wins over them.
    expect(profile.indexOf('(deny file-read* file-write*')).toBeGreaterThan(
      profile.indexOf('(allow file-write*'),
    )
  })

  it('refuses Unix sockets to host processes, network or not; name resolution keeps its socket with the network on', () => {
    for (const network of [false, true]) {
      const { profile } = parse(buildSeatbeltArgs(plan({ network }), command))
      const deny = profile.lastIndexOf('(deny network-outbound (remote unix-socket))')
      expect(deny).toBeGreaterThan(-1)
      // Last wins in Seatbelt: after the network allow.
      expect(deny).toBeGreaterThan(profile.indexOf('(allow network*)'))
      const resolver = profile.indexOf('(remote unix-socket (path-literal "/private/var/run/mDNSResponder"))')
      if (network) expect(resolver).toBeGreaterThan(deny)
      else expect(resolver).toBe(-1)
    }
  })

  it('starts the command through /usr/bin/env without the host IPC variables', () => {
    const { command: cmd } = parse(
      buildSeatbeltArgs(plan({ unsetEnv: ['SSH_AUTH_SOCK', 'DISPLAY'] }), command),
    )
    expect(cmd).toEqual(['/usr/bin/env', '-u', 'SSH_AUTH_SOCK', '-u', 'DISPLAY', '--', ...command])
  })

  it('hides agent-tui’s state dir but shows the session’s outputs inside it again, and hides a store inside those', () => {
    const state = '/Users/u/.local/state/agent-tui'
    const { profile, params } = parse(
      buildSeatbeltArgs(
        plan({
          fence: {
            writable: ['/Users/u/proj', `${state}/outputs/s1`],
            readOnly: [],
            reserved: [],
            hidden: [
              { path: state, kind: 'dir' },
              { path: `${state}/outputs/s1/.netrc`, kind: 'file' },
            ],
          },
        }),
        command,
      ),
    )
    expect(params.HIDDEN_0).toBe(state)
    expect(params.RESHOWN_0).toBe(`${state}/outputs/s1`)
    expect(params.HIDDEN_INNER_0).toBe(`${state}/outputs/s1/.netrc`)
    const order = [
      '(deny file-read* file-write*\n  (subpath (param "HIDDEN_0")))',
      '(allow file-read*\n  (subpath (param "RESHOWN_0")))',
      '(allow file-write*\n  (subpath (param "WRITABLE_ROOT_1")))',
      '(deny file-read* file-write*\n  (literal (param "HIDDEN_INNER_0")))',
    ].map((clause) => profile.indexOf(clause))
    expect(order.every((at) => at > -1)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
  })
})
