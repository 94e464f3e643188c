import { describe, expect, it } from 'vitest'
import { type BwrapPlan, buildBwrapArgs } from '../../../source/sandbox/bwrap-args.js'

const command = ['bash', '-c', 'true']

function plan(over: Partial<BwrapPlan> = {}): BwrapPlan {
  return {
    fence: {
      writable: ['/home/u/proj'],
      readOnly: ['/home/u/proj/.git'],
      reserved: ['/home/u/proj/.agent-tui'],
    },
    network: false,
    cwd: '/home/u/proj/src',
    privateTmp: ['/tmp'],
    ...over,
  }
}

/** The `--flag a b` triples of the arguments, in order, for the mount flags. */
function mounts(args: string[]): string[] {
  const shown: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') break
    if (['--ro-bind', '--bind'].includes(arg)) shown.push(`${arg} ${args[++i]} ${args[++i]}`)
    else if (['--tmpfs', '--remount-ro', '--dev', '--proc', '--chdir'].includes(arg))
      shown.push(`${arg} ${args[++i]}`)
  }
  return shown
}

describe('buildBwrapArgs', () => {
  it('makes the root read-only, then the private /tmp, the writable roots and the read-only metadata, in that order', () => {
    expect(mounts(buildBwrapArgs(plan(), command))).toEqual([
      '--ro-bind / /',
      '--dev /dev',
      '--proc /proc',
      '--tmpfs /tmp',
      '--bind /home/u/proj /home/u/proj',
      '--ro-bind /home/u/proj/.git /home/u/proj/.git',
      // A missing .agent-tui is reserved: an empty read-only directory, so it cannot be created.
      '--tmpfs /home/u/proj/.agent-tui',
      '--remount-ro /home/u/proj/.agent-tui',
      '--chdir /home/u/proj/src',
    ])
  })

  it('dies with agent-tui, drops every capability, has its own PID namespace, and ends with the command', () => {
    const args = buildBwrapArgs(plan(), command)
    expect(args.slice(0, 4)).toEqual(['--die-with-parent', '--cap-drop', 'ALL', '--unshare-pid'])
    expect(args.slice(args.indexOf('--'))).toEqual(['--', ...command])
    expect(args).not.toContain('--new-session')
  })

  it('asks bubblewrap for its init pid on a given descriptor (to wait for the sandbox to end)', () => {
    expect(buildBwrapArgs(plan({ infoFd: 3 }), command).slice(0, 2)).toEqual(['--info-fd', '3'])
    expect(buildBwrapArgs(plan(), command)).not.toContain('--info-fd')
  })

  it.each([
    [false, true],
    [true, false],
  ])('network %s → --unshare-net %s', (network, unshared) => {
    expect(buildBwrapArgs(plan({ network }), command).includes('--unshare-net')).toBe(unshared)
  })

  it('binds extra files read-write after the writable roots (the shell cwd file in /tmp)', () => {
    const args = mounts(buildBwrapArgs(plan({ files: ['/tmp/agent-tui-cwd-1'] }), command))
    expect(args.indexOf('--bind /tmp/agent-tui-cwd-1 /tmp/agent-tui-cwd-1')).toBeGreaterThan(
      args.indexOf('--tmpfs /tmp'),
    )
  })

  it('shows the way to a workspace under /tmp read-only, so `touch ../x` fails instead of vanishing', () => {
    const args = mounts(
      buildBwrapArgs(
        plan({
          fence: {
            writable: ['/tmp/e2e-1/work', '/tmp/e2e-1/home/out', '/tmp/direct'],
            readOnly: [],
            reserved: [],
          },
          cwd: '/tmp/e2e-1/work',
        }),
        command,
      ),
    )
    expect(args).toEqual([
      '--ro-bind / /',
      '--dev /dev',
      '--proc /proc',
      '--tmpfs /tmp',
      '--ro-bind /tmp/e2e-1 /tmp/e2e-1',
      // The fence's mounts go outermost first.
      '--bind /tmp/direct /tmp/direct',
      '--bind /tmp/e2e-1/work /tmp/e2e-1/work',
      '--bind /tmp/e2e-1/home/out /tmp/e2e-1/home/out',
      '--chdir /tmp/e2e-1/work',
    ])
  })

  it('keeps a PATH directory under /tmp visible read-only, with the tree its programs link into', () => {
    const args = mounts(
      buildBwrapArgs(
        plan({ pathDirs: ['/usr/bin', '/tmp/clone/node_modules/.bin', '/tmp/clone/bin', '/tmp'] }),
        command,
      ),
    )
    expect(args.slice(3, 6)).toEqual([
      '--tmpfs /tmp',
      '--ro-bind /tmp/clone /tmp/clone',
      '--bind /home/u/proj /home/u/proj',
    ])
    expect(args.filter((a) => a.includes('/tmp/clone'))).toHaveLength(1)
  })

  it('gives $TMPDIR its own private tmpfs too', () => {
    const args = mounts(buildBwrapArgs(plan({ privateTmp: ['/tmp', '/var/tmp/u'] }), command))
    expect(args).toContain('--tmpfs /var/tmp/u')
  })

  it('passes paths as separate words: spaces and quotes stay inside one argument', () => {
    const odd = '/home/u/my "proj"; rm -rf ~'
    const args = buildBwrapArgs(
      plan({ fence: { writable: [odd], readOnly: [], reserved: [] }, cwd: odd }),
      command,
    )
    expect(args).toContain(odd)
    expect(args.filter((a) => a === odd)).toHaveLength(3)
  })

  it('hides a secret store inside a writable root over the root: an empty read-only directory, or /dev/null', () => {
    const args = buildBwrapArgs(
      plan({
        fence: {
          writable: ['/home/u'],
          readOnly: [],
          reserved: [],
          hidden: [
            { path: '/home/u/.ssh', kind: 'dir' },
            { path: '/home/u/.netrc', kind: 'file' },
          ],
        },
      }),
      command,
    )
    expect(mounts(args).slice(3)).toEqual([
      '--tmpfs /tmp',
      '--bind /home/u /home/u',
      '--tmpfs /home/u/.ssh',
      '--remount-ro /home/u/.ssh',
      '--ro-bind /dev/null /home/u/.netrc',
      '--chdir /home/u/proj/src',
    ])
  })

  it('hides agent-tui’s state dir but shows the session’s outputs inside it again, writable', () => {
    const state = '/home/u/.local/state/agent-tui'
    const outputs = `${state}/outputs/s1`
    const args = buildBwrapArgs(
      plan({
        fence: {
          writable: ['/home/u/proj', outputs],
          readOnly: ['/home/u/proj/.git'],
          reserved: [],
          hidden: [
            { path: state, kind: 'dir' },
            { path: '/home/u/.bash_history', kind: 'file' },
          ],
        },
      }),
      command,
    )
    expect(mounts(args).slice(3)).toEqual([
      '--tmpfs /tmp',
      '--ro-bind /dev/null /home/u/.bash_history',
      '--bind /home/u/proj /home/u/proj',
      '--ro-bind /home/u/proj/.git /home/u/proj/.git',
      // An empty tmpfs first (bubblewrap makes the mount point in it), read-only once the outputs are in.
      `--tmpfs ${state}`,
      `--bind ${outputs} ${outputs}`,
      `--remount-ro ${state}`,
      '--chdir /home/u/proj/src',
    ])
  })

  it('a store that is also a writable root stays writable (the later mount at one path wins, unsealed)', () => {
    const args = mounts(
      buildBwrapArgs(
        plan({
          fence: {
            writable: ['/home/u/x'],
            readOnly: [],
            reserved: [],
            hidden: [{ path: '/home/u/x', kind: 'dir' }],
          },
        }),
        command,
      ),
    )
    expect(args.slice(3)).toEqual([
      '--tmpfs /tmp',
      '--tmpfs /home/u/x',
      '--bind /home/u/x /home/u/x',
      '--chdir /home/u/proj/src',
    ])
  })

  it('reads the seccomp program from a descriptor, has its own IPC namespace, and drops host IPC variables', () => {
    const args = buildBwrapArgs(
      plan({ infoFd: 3, seccompFd: 4, unsetEnv: ['SSH_AUTH_SOCK', 'DISPLAY'] }),
      command,
    )
    expect(args.slice(0, 4)).toEqual(['--info-fd', '3', '--seccomp', '4'])
    expect(args).toContain('--unshare-ipc')
    const before = args.slice(0, args.indexOf('--'))
    expect(before.join(' ')).toContain('--unsetenv SSH_AUTH_SOCK --unsetenv DISPLAY')
    expect(buildBwrapArgs(plan(), command)).not.toContain('--seccomp')
  })

  it.each([
    [false, true],
    [true, true],
  ])('network %s: still its own IPC namespace (%s)', (network, unshared) => {
    expect(buildBwrapArgs(plan({ network }), command).includes('--unshare-ipc')).toBe(unshared)
  })
})
