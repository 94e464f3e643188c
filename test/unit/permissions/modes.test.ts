import { describe, expect, it } from 'vitest'
import {
  modeChangeRefusal,
  nextMode,
  resumedMode,
  selectableModes,
  USER_MODES,
} from '../../../source/permissions/modes.js'
import { MODES, type Mode } from '../../../source/store/domain.js'

describe('mode policy', () => {
  it.each<[Mode, Mode[]]>([
    ['safe', ['safe', 'auto', 'plan']],
    ['auto', ['safe', 'auto', 'plan']],
    ['plan', ['safe', 'auto', 'plan']],
    ['dangerous', ['safe', 'auto', 'plan', 'dangerous']],
    ['ci', ['safe', 'auto', 'plan', 'ci']],
  ])('launched in %s, the session may switch to %j', (launch, allowed) => {
    expect(selectableModes(launch)).toEqual(allowed)
    for (const target of MODES) {
      const refusal = modeChangeRefusal(target, launch)
      if (allowed.includes(target)) expect(refusal).toBeNull()
      else expect(refusal).toMatch(new RegExp(`^${target} mode can only be chosen when starting agent-tui`))
    }
  })

  it.each<[Mode, string]>([
    ['dangerous', '--dangerously-skip-permissions'],
    ['ci', '-p or --mode ci'],
  ])('a refused %s names the flag that sets it', (target, flag) => {
    expect(modeChangeRefusal(target, 'safe')).toContain(`(${flag})`)
  })

  it.each<[Mode, Mode, Mode]>([
    // current, launch, next
    ['safe', 'safe', 'auto'],
    ['auto', 'safe', 'plan'],
    ['plan', 'safe', 'safe'],
    ['safe', 'plan', 'auto'],
    ['plan', 'dangerous', 'dangerous'],
    ['dangerous', 'dangerous', 'safe'],
    ['plan', 'ci', 'ci'],
    ['ci', 'ci', 'safe'],
    // A mode the session may not be in (cannot happen through the runtime) goes back to SAFE.
    ['dangerous', 'safe', 'safe'],
    ['ci', 'safe', 'safe'],
  ])('Shift+Tab from %s (launched in %s) goes to %s', (current, launch, next) => {
    expect(nextMode(current, launch)).toBe(next)
  })

  it('cycling never reaches a mode the policy refuses', () => {
    for (const launch of MODES) {
      let mode: Mode = launch
      for (let i = 0; i < 10; i++) {
        mode = nextMode(mode, launch)
        expect(modeChangeRefusal(mode, launch)).toBeNull()
      }
    }
    expect(USER_MODES).toEqual(['safe', 'auto', 'plan'])
  })
})

describe('the mode a resumed session starts in', () => {
  type Origin = 'flag' | 'env' | 'settings' | 'default' | 'none'
  it.each<[Mode, Mode, Origin, boolean, Mode, RegExp | null]>([
    // left, this run's mode, its origin, interactive → mode, notice
    [
      'safe',
      'auto',
      'settings',
      true,
      'safe',
      /^resumed in SAFE mode, where you left it \(the settings say auto\)$/,
    ],
    [
      'plan',
      'safe',
      'default',
      true,
      'plan',
      /^resumed in PLAN mode, where you left it \(new sessions start in safe\)$/,
    ],
    ['auto', 'auto', 'settings', true, 'auto', null],
    [
      'safe',
      'auto',
      'flag',
      true,
      'auto',
      /^resumed in AUTO mode \(the command line\); the session was left in SAFE$/,
    ],
    ['auto', 'plan', 'env', true, 'plan', /AGENT_TUI_MODE/],
    // Only a launch flag sets these: not carried over to a run that did not ask again.
    [
      'dangerous',
      'safe',
      'default',
      true,
      'safe',
      /left in DANGEROUS mode, which only --dangerously-skip-permissions sets/,
    ],
    ['ci', 'auto', 'settings', true, 'auto', null],
    // A script's `-p --continue` never inherits what the user picked in the TUI.
    ['auto', 'ci', 'default', false, 'ci', null],
    ['dangerous', 'ci', 'default', false, 'ci', null],
  ])(
    'left in %s, this run %s (%s, interactive %s) → %s',
    (left, value, origin, interactive, mode, notice) => {
      const out = resumedMode({ left, launch: { value, origin }, interactive })
      expect(out.mode).toBe(mode)
      if (notice) expect(out.notice).toMatch(notice)
      else expect(out.notice).toBeNull()
    },
  )
})
