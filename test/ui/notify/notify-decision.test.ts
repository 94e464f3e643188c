import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { createStore } from '../../../source/store/create-store.js'
import type { ConsentRequest } from '../../../source/store/domain.js'
import { takeFocusReports } from '../../../source/ui/keys/focus-report.js'
import {
  type Delivery,
  decideNotification,
  type NotificationSettings,
  type NotifyEvent,
  notificationEvents,
} from '../../../source/ui/notify/notify-decision.js'
import { startNotifier } from '../../../source/ui/notify/notifier.js'
import {
  detectNotifyTerminal,
  type NotifyTerminal,
  notificationSequence,
} from '../../../source/ui/notify/notify-terminal.js'
import { apply, baseState } from '../transcript/fixtures.js'

function consent(id: string): ConsentRequest {
  return {
    id,
    callId: `call-${id}`,
    tool: 'Bash',
    risk: 'exec',
    summary: 'npm test',
    reason: 'SAFE mode asks before running commands',
    preview: { kind: 'command', command: 'npm test', cwd: '/tmp/project' },
    suggestedRule: 'Bash(npm test *)',
    createdAt: 0,
  }
}
const started: Action = { type: 'turn/started', turnId: 't1', at: 0 }
const ended: Action = { type: 'turn/ended', result: { kind: 'completed', text: '', steps: 1 } }
const asked = (id: string): Action => ({ type: 'consent/requested', request: consent(id) })

describe('notificationEvents', () => {
  it('names each new permission prompt once, and a turn ending', () => {
    const idle = baseState()
    const busy = apply(idle, started)
    const waiting = apply(busy, asked('c1'))
    const two = apply(waiting, asked('c2'))
    expect(notificationEvents(idle, busy)).toEqual([])
    expect(notificationEvents(busy, waiting)).toEqual([
      { kind: 'consent', tool: 'Bash', summary: 'npm test' },
    ])
    expect(notificationEvents(waiting, two)).toEqual([{ kind: 'consent', tool: 'Bash', summary: 'npm test' }])
    expect(notificationEvents(two, apply(two, { type: 'consent/resolved', id: 'c1' }))).toEqual([])
    expect(notificationEvents(busy, apply(busy, ended))).toEqual([{ kind: 'turn-end' }])
    expect(notificationEvents(idle, idle)).toEqual([])
  })
})

describe('decideNotification: focus × event × settings × terminal', () => {
  const CONSENT: NotifyEvent = { kind: 'consent', tool: 'Bash', summary: 'npm test' }
  const END: NotifyEvent = { kind: 'turn-end' }
  const plain: NotifyTerminal = { tmux: false }
  const wez: NotifyTerminal = { tmux: false, protocol: 'osc777' }
  const iterm: NotifyTerminal = { tmux: false, protocol: 'osc9' }
  const kitty: NotifyTerminal = { tmux: false, protocol: 'osc99' }
  const linuxDesktop: NotifyTerminal = { tmux: false, program: 'notify-send' }
  const tmuxWez: NotifyTerminal = { tmux: true, protocol: 'osc777' }
  const body = 'Permission needed: Bash npm test'
  const table: [
    string,
    NotifyEvent,
    boolean | undefined,
    NotificationSettings | undefined,
    NotifyTerminal,
    Delivery | undefined,
  ][] = [
    ['focused: nothing', CONSENT, true, undefined, wez, undefined],
    [
      'unfocused consent, defaults, WezTerm',
      CONSENT,
      false,
      undefined,
      wez,
      { bell: true, sequence: `\x1b]777;notify;agent-tui;${body}\x07` },
    ],
    [
      'focus never reported: notifies',
      CONSENT,
      undefined,
      undefined,
      wez,
      { bell: true, sequence: `\x1b]777;notify;agent-tui;${body}\x07` },
    ],
    [
      'iTerm2: OSC 9',
      CONSENT,
      false,
      undefined,
      iterm,
      { bell: true, sequence: `\x1b]9;agent-tui: ${body}\x07` },
    ],
    [
      'kitty: OSC 99, title then body',
      CONSENT,
      false,
      undefined,
      kitty,
      {
        bell: true,
        sequence: `\x1b]99;i=agent-tui:d=0:p=title;agent-tui\x1b\\\x1b]99;i=agent-tui:d=1:p=body;${body}\x1b\\`,
      },
    ],
    [
      'tmux: passthrough, ESC doubled',
      CONSENT,
      false,
      undefined,
      tmuxWez,
      { bell: true, sequence: `\x1bPtmux;\x1b\x1b]777;notify;agent-tui;${body}\x07\x1b\\` },
    ],
    [
      'no escape: notify-send with the text as arguments',
      CONSENT,
      false,
      undefined,
      linuxDesktop,
      {
        bell: true,
        program: { name: 'notify-send', args: ['--app-name=agent-tui', '--', 'agent-tui', body] },
      },
    ],
    ['nothing known: the bell', CONSENT, false, undefined, plain, { bell: true }],
    ['turn end is off by default', END, false, undefined, wez, undefined],
    [
      'turn end when asked',
      END,
      false,
      { onTurnEnd: true },
      wez,
      { bell: true, sequence: '\x1b]777;notify;agent-tui;Turn finished\x07' },
    ],
    ['turn end focused: nothing', END, true, { onTurnEnd: true }, wez, undefined],
    ['consent switched off', CONSENT, false, { onConsent: false }, wez, undefined],
    ['method bell', CONSENT, false, { method: 'bell' }, wez, { bell: true }],
    [
      'method desktop: no bell',
      CONSENT,
      false,
      { method: 'desktop' },
      wez,
      { bell: false, sequence: `\x1b]777;notify;agent-tui;${body}\x07` },
    ],
    ['method off', CONSENT, false, { method: 'off', onTurnEnd: true }, wez, undefined],
  ]
  it.each(table)('%s', (_name, event, focused, settings, terminal, expected) => {
    expect(decideNotification(event, focused, settings, terminal)).toEqual(expected)
  })

  it('a hostile tool summary cannot end the sequence or add one: cleaned, `;` replaced', () => {
    const event: NotifyEvent = { kind: 'consent', tool: 'Bash', summary: 'x\x07\x1b]52;c;ZXZpbA==\x07; rm' }
    const sequence = decideNotification(event, false, undefined, wez)?.sequence ?? ''
    expect(sequence.match(/\x1b/g)).toHaveLength(1)
    expect(sequence.match(/\x07/g)).toHaveLength(1)
    expect(sequence.split(';')).toHaveLength(4)
  })
})

describe('detectNotifyTerminal', () => {
  const table: [string, Record<string, string>, NodeJS.Platform, NotifyTerminal][] = [
    [
      'iTerm2',
      { TERM_PROGRAM: 'iTerm.app' },
      'darwin',
      { tmux: false, protocol: 'osc9', program: 'osascript' },
    ],
    [
      'iTerm2 in tmux',
      { TERM_PROGRAM: 'tmux', LC_TERMINAL: 'iTerm2', TMUX: 't' },
      'darwin',
      { tmux: true, protocol: 'osc9', program: 'osascript' },
    ],
    ['WezTerm', { TERM_PROGRAM: 'WezTerm' }, 'linux', { tmux: false, protocol: 'osc777' }],
    [
      'kitty',
      { TERM: 'xterm-kitty', DISPLAY: ':0' },
      'linux',
      { tmux: false, protocol: 'osc99', program: 'notify-send' },
    ],
    [
      'kitty in tmux',
      { TERM: 'tmux-256color', KITTY_WINDOW_ID: '1', TMUX: 't' },
      'linux',
      { tmux: true, protocol: 'osc99' },
    ],
    [
      'foot',
      { TERM: 'foot', WAYLAND_DISPLAY: 'w' },
      'linux',
      { tmux: false, protocol: 'osc777', program: 'notify-send' },
    ],
    [
      'Ghostty',
      { TERM_PROGRAM: 'ghostty' },
      'darwin',
      { tmux: false, protocol: 'osc777', program: 'osascript' },
    ],
    ['Windows Terminal (WSL)', { WT_SESSION: 'x' }, 'linux', { tmux: false, protocol: 'osc9' }],
    [
      'xterm on X11',
      { TERM: 'xterm-256color', DISPLAY: ':0' },
      'linux',
      { tmux: false, program: 'notify-send' },
    ],
    [
      'over SSH: no desktop program',
      { TERM: 'xterm', DISPLAY: 'localhost:10', SSH_CONNECTION: 'a b c d' },
      'linux',
      { tmux: false },
    ],
    ['Apple Terminal', { TERM_PROGRAM: 'Apple_Terminal' }, 'darwin', { tmux: false, program: 'osascript' }],
  ]
  it.each(table)('%s', (_name, env, platform, expected) => {
    expect(detectNotifyTerminal(env, platform)).toEqual(expected)
  })
})

describe('startNotifier', () => {
  it('writes the bell and the escape when a prompt appears unfocused, nothing while focused', () => {
    const store = createStore(apply(baseState(), started))
    const written: string[] = []
    const notifier = startNotifier({
      store,
      settings: { onTurnEnd: true },
      terminal: { tmux: false, protocol: 'osc777' },
      write: (t) => written.push(t),
      find: () => undefined,
      env: {},
    })
    notifier.setFocused(true)
    store.dispatch(asked('c1'))
    expect(written).toEqual([])
    notifier.setFocused(false)
    store.dispatch(asked('c2'))
    store.dispatch(ended)
    expect(written).toEqual([
      `${notificationSequence('osc777', 'agent-tui', 'Permission needed: Bash npm test', { tmux: false })}\x07`,
      '\x1b]777;notify;agent-tui;Turn finished\x07\x07',
    ])
    notifier.dispose()
    store.dispatch(started)
    store.dispatch(ended)
    expect(written).toHaveLength(2)
  })
})

describe('takeFocusReports', () => {
  const table: [string, string, string, boolean[]][] = [
    ['none', 'abc', 'abc', []],
    ['in', '\x1b[I', '', [true]],
    ['out between keys', 'a\x1b[Ob\x1b[I', 'ab', [false, true]],
    ['other CSI kept', '\x1b[A\x1b[Z', '\x1b[A\x1b[Z', []],
  ]
  it.each(table)('%s', (_name, input, text, reports) => {
    expect(takeFocusReports(input)).toEqual({ text, reports })
  })
})
