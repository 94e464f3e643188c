// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${…}` here is shell parameter expansion under test, not a template
import { describe, expect, it } from 'vitest'
import { splitShell } from '../../../source/permissions/shell-split.js'
import { type ShellCommand, unwrapPart } from '../../../source/permissions/shell-unwrap.js'

/** `name args…` of every program the command runs, with `?` for an unknown name. */
function programs(command: string): string[] {
  const split = splitShell(command)
  if (!split.ok) throw new Error(split.reason)
  return split.parts.flatMap((part) => unwrapPart(part).map(show))
}

function show(c: ShellCommand): string {
  if (c.unknown !== undefined) return '?'
  if (c.words.length === 0) return '(none)'
  return [c.name, ...c.words.slice(1).map((w) => w.value)].join(' ')
}

function only(command: string): ShellCommand {
  const split = splitShell(command)
  if (!split.ok) throw new Error(split.reason)
  const all = split.parts.flatMap((part) => unwrapPart(part))
  expect(all).toHaveLength(1)
  return all[0]!
}

describe('unwrapPart: the programs a simple command runs', () => {
  it.each<[string, string[]]>([
    ['rm -rf x', ['rm -rf x']],
    ['/bin/rm x', ['rm x']],
    ['./rm x', ['rm x']],
    ['/usr/bin/env rm x', ['rm x']],
    ['command rm x', ['rm x']],
    ['command -p rm x', ['rm x']],
    ['command -v rm', ['command -v rm']],
    ['builtin cd x', ['cd x']],
    ['exec rm x', ['rm x']],
    ['exec -a name rm x', ['rm x']],
    ['env rm x', ['rm x']],
    ['env -i -u BAR FOO=1 rm x', ['rm x']],
    ['env', ['env']],
    ['env FOO=1', ['env FOO=1']],
    ['env -S "rm -rf x"', ['rm -rf x']],
    ['nice rm x', ['rm x']],
    ['nice -n 5 rm x', ['rm x']],
    ['nice -5 rm x', ['rm x']],
    ['nice --adjustment=5 rm x', ['rm x']],
    ['nohup rm x', ['rm x']],
    ['timeout 5 rm x', ['rm x']],
    ['timeout -s KILL -k 1 5s rm x', ['rm x']],
    ['timeout --signal=KILL 5 rm x', ['rm x']],
    ['time rm x', ['rm x']],
    ['time -p rm x', ['rm x']],
    ['stdbuf -oL -e0 rm x', ['rm x']],
    ['setsid rm x', ['rm x']],
    ['ionice -c 3 rm x', ['rm x']],
    ['xargs rm', ['rm']],
    ['xargs -0 -n 1 -I {} rm {}', ['rm {}']],
    ['xargs', ['xargs']],
    ['sudo rm x', ['rm x']],
    ['sudo -u root -E rm x', ['rm x']],
    ['sudo VAR=1 rm x', ['rm x']],
    ['sudo -e /etc/hosts', ['sudoedit /etc/hosts']],
    ['doas -u root rm x', ['rm x']],
    ["su -c 'rm x' root", ['rm x']],
    ["bash -c 'rm x'", ['rm x']],
    ["sh -c 'rm x; ls'", ['rm x', 'ls']],
    ["bash -ec 'rm x'", ['rm x']],
    ["bash -o pipefail -c 'rm x'", ['rm x']],
    ["zsh -lc 'timeout 5 rm x'", ['rm x']],
    ['dash -c \'bash -c "rm x"\'', ['rm x']],
    ['bash script.sh', ['bash script.sh']],
    ['bash --version', ['bash --version']],
    ['eval "rm x"', ['rm x']],
    ['eval rm x', ['rm x']],
    ["watch 'rm x'", ['rm x']],
    ['find . -name "*.o" -exec rm {} \\;', ['find . -name *.o -exec rm {} ;', 'rm {}']],
    ['find . -execdir rm -f {} +', ['find . -execdir rm -f {} +', 'rm -f {}']],
    ['FOO=1 rm x', ['rm x']],
    ['RM=rm', ['(none)']],
    ['if true; then rm x; fi', ['true', 'rm x', '(none)']],
    ['while read f; do rm "$f"; done', ['read f', 'rm $f', '(none)']],
    ['for f in a b; do rm $f; done', ['(none)', 'rm $f', '(none)']],
    ['! rm x', ['rm x']],
    ['[ -f x ]', ['[ -f x ]']],
  ])('%s → %j', (command, expected) => {
    expect(programs(command)).toEqual(expected)
  })

  it.each([
    '$RM x',
    '"$RM" x',
    '$(echo rm) x',
    '`echo rm` x',
    'RM=rm; $RM x',
    '/bin/r? x',
    'bash -c "$CMD"',
    'sh -c "rm $X"',
    'eval "$CMD"',
    'eval rm $X',
    'echo rm x | bash',
    'bash < script.sh',
    'sh -s',
    'env $OPTS rm x',
    'timeout $T rm x',
    'nice -n $N rm x',
    'xargs -n $N rm',
  ])('%s runs a program whose name is unknown', (command) => {
    expect(programs(command)).toContain('?')
  })

  it('records the wrappers and whether they are plain', () => {
    expect(only('timeout 5 nice rm x')).toMatchObject({ wrappers: ['timeout', 'nice'], plain: true })
    expect(only("bash -c 'npm test'")).toMatchObject({ wrappers: ['bash -c'], plain: true })
    expect(only('env FOO=1 npm test')).toMatchObject({ wrappers: ['env'], plain: false })
    expect(only('env -i npm test')).toMatchObject({ plain: false })
    expect(only('sudo npm test')).toMatchObject({ plain: false, readOnlyWrappers: false })
    expect(only('xargs rm')).toMatchObject({ plain: false, openArgs: true })
    expect(only('exec -a x npm test')).toMatchObject({ plain: false })
  })

  it('keeps what wrappers add: redirections inside scripts, time -o, env -C', () => {
    expect(only("bash -c 'echo x > .git/config'").writes).toEqual([{ path: '.git/config', dynamic: false }])
    expect(only('time -o out.txt ls').wrapperWrites.map((w) => w.value)).toEqual(['out.txt'])
    expect(only('env -C /tmp rm x').chdir?.value).toBe('/tmp')
    expect(only('sudo -D /srv rm x').chdir?.value).toBe('/srv')
  })
})

describe('unwrapPart: what bash evaluates as code', () => {
  it.each<[string, string | undefined]>([
    ['echo ${a[x]}', '${a[x]}'],
    ['FOO=${x:i} ls', '${x:i}'],
    ['cat <<< $((x))', '$((x))'],
    ["timeout 5 bash -c 'echo ${a[$0]}' x", '${a[$0]}'],
    ["eval '[[ $x -eq 1 ]]'", '[[ $x -eq 1 ]]'],
    ['command test -v "$x"', 'test -v "$x"'],
    ['if [[ -v a[1] ]]; then ls; fi', '[[ -v a[1] ]]'],
    ['printf -v"$x" %s', 'printf -v"$x" %s'],
    ['echo ${a[1]} $((2*3))', undefined],
    ["bash -c '[[ $0 == 1 ]]' x", undefined],
  ])('%j evaluates %j', (command, evaluates) => {
    const split = splitShell(command)
    if (!split.ok) throw new Error(split.reason)
    expect(unwrapPart(split.parts[0]!).map((c) => c.evaluates)).toEqual([evaluates])
  })
})
